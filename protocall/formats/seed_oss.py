"""ByteDance Seed-OSS (FORMATS.md §6.12): Qwen3-Coder-style functions in `<seed:tool_call>`.

<seed:think>R</seed:think>content\\n<seed:tool_call>\\n<function=N>\\n<parameter=K>V</parameter>\\n</function>\\n</seed:tool_call><seed:eos>

- The model writes `<seed:think>` itself after the prompt `<seed:bos>assistant\\n`; a
  thinking budget of 0 pre-opens it (the prompt ends `<seed:think><seed:cot_budget_reflect>`).
  `<seed:cot_budget_reflect>…</seed:cot_budget_reflect>` notes are reasoning text. A block
  the model opened ends only at `</seed:think>` (a call quoted in it is reasoning); a
  pre-opened one also ends at a genuine call.
- Each call has its own `<seed:tool_call>` (several functions in one are accepted too); the
  newline before it belongs to it. Values have no padding newlines: verbatim, typed by the
  tool's schema.
- `<seed:eos>` ends the turn; it is never content.
"""

from __future__ import annotations

from typing import Any

from ..combinators import Parser
from ..combinators.xmlargs import SEED_OSS
from ..tools import Tools
from .base import Format
from .blocks import Reasoning, assistant_turn, render_turn, render_xml_call, xml_calls
from .turns import ToolUse, Turn

THINK, END_THINK = "<seed:think>", "</seed:think>"
REASONING = Reasoning(THINK, END_THINK, explicit=True)
REFLECT = "<seed:cot_budget_reflect>"
CALL, END_CALL = "<seed:tool_call>", "</seed:tool_call>"
FUNCTION, NAMED = "<function=", ">"
END_OF_TURN = "<seed:eos>"
ASSISTANT = "<seed:bos>assistant\n"
RESERVED = (THINK, END_THINK, CALL, END_CALL, FUNCTION, SEED_OSS.end, SEED_OSS.opener,
            SEED_OSS.value_close, END_OF_TURN)  # fmt: skip


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    calls = xml_calls(tools, SEED_OSS, FUNCTION, NAMED, stops=(END_OF_TURN,),
                      section=(CALL, END_CALL), lead="\n")  # fmt: skip
    return assistant_turn(calls=calls, stops=(END_OF_TURN,), reasoning=REASONING, start=start)


def render_call(use: ToolUse) -> str:
    return f"\n{CALL}\n{render_xml_call(SEED_OSS, FUNCTION, NAMED, use, newline=True)}\n{END_CALL}"


def render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=REASONING, call=render_call, stop=END_OF_TURN)


FORMAT = Format(
    "seed-oss",
    grammar,
    render,
    reserved=RESERVED,
    channels={"reasoning": (THINK, END_THINK)},
    default_start=None,
    prompts={None: ASSISTANT, "reasoning": f"{ASSISTANT}{THINK}{REFLECT}"},
    summary="ByteDance Seed-OSS: <function=N> and <parameter=K> in <seed:tool_call>",
    markers={"reasoning": "<seed:think>…</seed:think>",
             "call": "<seed:tool_call><function=N><parameter=K>V"},
)  # fmt: skip
