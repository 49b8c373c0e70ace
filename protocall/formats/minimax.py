"""MiniMax-M2 / M2.x (FORMATS.md §6.4): invokes with named parameters in tool-call blocks.

R\\n</think>\\n\\ncontent\\n<minimax:tool_call>\\n<invoke name="N">\\n<parameter name="K">V</parameter>\\n</invoke>\\n</minimax:tool_call>[e~[

- The generation prompt pre-opens `<think>` (`]~b]ai\\n<think>\\n`; thinking off adds
  `</think>\\n\\n`). Reasoning ends at `</think>`, or implicitly at a genuine call block.
- A block holds one or more invokes separated by whitespace; a missing block end is
  tolerated, and the newline before the block belongs to it. Values are verbatim, typed by
  the tool's schema.
- `[e~[` ends the turn; it is never content.
- `KEEP_THINK` (not registered) is the "keep think in content" reading for interleaved
  thinking: no reasoning block, so the reasoning and its `</think>` stay verbatim in the
  content (the `<think>` opener is in the prompt, not the output) and pass back into the
  history as written; calls are found anywhere.
"""  # noqa: E501

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

INVOKE_END = "</invoke>"

LAYOUT = Layout("<parameter", ">", "</parameter>", INVOKE_END, key_attribute="name")
"""`<parameter name="K">V</parameter>`, values verbatim, ends at `</invoke>`, typed by the
schema. No missing-tag tolerance."""

SPEC = Spec(
    name="minimax-m2",
    summary='MiniMax-M2 / M2.x: <invoke name="N"> with <parameter name="K"> in <minimax:tool_call>',
    turn=Think(
        opened_by="<think>\n", off="<think>\n</think>\n\n", written=("<think>\n", "\n</think>\n\n")
    ),
    call=Call(
        f'<invoke name="{{name}}">\n{{arguments}}{INVOKE_END}',
        XmlArguments(LAYOUT, newline=True),
        between="\n",
    ),
    section=Section(("\n<minimax:tool_call>\n",), ("\n</minimax:tool_call>",)),
    stops=("[e~[",),
    prompt="]~b]ai\n",
    default_start="reasoning",
)
FORMAT = build(SPEC)
KEEP_THINK = build(
    replace(
        SPEC,
        name="minimax-m2-keep-think",
        summary=f"{SPEC.summary}; reasoning kept verbatim in the content",
        turn=None,
        prompt="]~b]ai\n<think>\n",
        default_start=None,
    )
)
