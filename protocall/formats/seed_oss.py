"""ByteDance Seed-OSS (FORMATS.md §6.12): Qwen3-Coder-style functions in `<seed:tool_call>`.

<seed:think>R</seed:think>content\\n<seed:tool_call>\\n<function=N>\\n<parameter=K>V</parameter>\\n</function>\\n</seed:tool_call><seed:eos>

- The model writes `<seed:think>` itself after the prompt `<seed:bos>assistant\\n`; a
  thinking budget of 0 pre-opens it (the prompt ends `<seed:think><seed:cot_budget_reflect>`).
  `<seed:cot_budget_reflect>…</seed:cot_budget_reflect>` notes are reasoning text. A block
  the model opened ends at `</seed:think>` (a call quoted in it is reasoning), or at a
  call it never closes after; a pre-opened one also ends at a genuine call.
- Each call has its own `<seed:tool_call>` (several functions in one are accepted too); the
  newline before it belongs to it. Values are verbatim, typed by the tool's schema, but
  for one newline right after `<parameter=K>` and one right before `</parameter>`, which
  are framing (the model writes them at times, as Qwen3-Coder does; the template does
  not, and the renderer writes them only where a value begins or ends with a newline).
- `<seed:eos>` ends the turn; it is never content.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

FUNCTION_END = "</function>"

LAYOUT = Layout(
    "<parameter=", ">", "</parameter>", FUNCTION_END, framing_newlines=True, framing_written=False
)
"""`<parameter=K>V</parameter>`, ends at `</function>`, typed by the schema. One newline
right after `>` and one right before `</parameter>` are framing, stripped as in Qwen3-Coder
(as vLLM's Seed-OSS parser strips them); the template writes none, so neither does the
renderer, but where the value itself begins or ends with a newline."""

SPEC = Spec(
    name="seed-oss",
    summary="ByteDance Seed-OSS: <function=N> and <parameter=K> in <seed:tool_call>",
    turn=Think(
        "<seed:think>",
        "</seed:think>",
        explicit=True,
        opened_by="<seed:think><seed:cot_budget_reflect>",
    ),
    call=Call(
        f"<function={{name}}>\n{{arguments}}{FUNCTION_END}", XmlArguments(LAYOUT, newline=True)
    ),
    section=Section(("\n<seed:tool_call>\n",), ("\n</seed:tool_call>",), each=True),
    stops=("<seed:eos>",),
    prompt="<seed:bos>assistant\n",
)
FORMAT = build(SPEC)
