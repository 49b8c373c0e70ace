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
from functools import partial
from typing import Any

from ..combinators import Parser
from ..combinators.xmlargs import MINIMAX
from ..tools import Tools
from .base import Format
from .blocks import Reasoning, assistant_turn, render_turn, render_xml_call, xml_calls
from .turns import ToolUse, Turn

THINK, END_THINK = "<think>", "</think>"
REASONING = Reasoning(THINK, END_THINK)
WRITTEN = Reasoning(f"{THINK}\n", f"\n{END_THINK}\n\n")
"""The reasoning block as the model lays it out."""
BLOCK, END_BLOCK = "<minimax:tool_call>", "</minimax:tool_call>"
INVOKE, NAMED = '<invoke name="', '">'
END_OF_TURN = "[e~["
AI = "]~b]ai\n"
RESERVED = (THINK, END_THINK, BLOCK, END_BLOCK, INVOKE, MINIMAX.end, MINIMAX.opener,
            MINIMAX.value_close, END_OF_TURN)  # fmt: skip


def grammar(reasoning: Reasoning | None, tools: Tools | None, start: str | None) -> Parser[Any]:
    calls = xml_calls(tools, MINIMAX, INVOKE, NAMED, stops=(END_OF_TURN,),
                      section=(BLOCK, END_BLOCK), lead="\n")  # fmt: skip
    return assistant_turn(calls=calls, stops=(END_OF_TURN,), reasoning=reasoning, start=start)


def render(turn: Turn, start: str | None) -> str:
    def call(use: ToolUse) -> str:
        return render_xml_call(MINIMAX, INVOKE, NAMED, use, newline=True)

    return render_turn(turn, start, reasoning=WRITTEN, call=call, between_calls="\n",
                       section=(f"\n{BLOCK}\n", f"\n{END_BLOCK}"), stop=END_OF_TURN)  # fmt: skip


CALL = '<minimax:tool_call><invoke name="N"><parameter name="K">V'
SUMMARY = 'MiniMax-M2 / M2.x: <invoke name="N"> with <parameter name="K"> in <minimax:tool_call>'
FORMAT = Format("minimax-m2", partial(grammar, REASONING), render, reserved=RESERVED,
                channels={"reasoning": (THINK, END_THINK)}, default_start="reasoning",
                prompts={"reasoning": f"{AI}{THINK}\n", None: f"{AI}{THINK}\n{END_THINK}\n\n"},
                summary=SUMMARY,
                markers={"reasoning": "<think>…</think>", "call": CALL})  # fmt: skip
KEEP_THINK = replace(FORMAT, name="minimax-m2-keep-think", grammar=partial(grammar, None),
                     channels={}, default_start=None, prompts={None: f"{AI}{THINK}\n"},
                     summary=f"{SUMMARY}; reasoning kept verbatim in the content",
                     markers={"call": CALL})  # fmt: skip
