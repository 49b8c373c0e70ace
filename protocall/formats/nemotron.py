"""NVIDIA Nemotron Nano v2 and Llama-3.3-Nemotron-Super-49B-v1.5 (FORMATS.md §6.14): a JSON
array of calls in `<TOOLCALL>` tags.

[<think>R</think>]content<TOOLCALL>[{"name": N, "arguments": {…}}, …]</TOOLCALL><SPECIAL_12>

- Each call is complete when its object closes; members may come in any order (see
  `call_object`). A missing `]` or `</TOOLCALL>` is tolerated; text after the tags is content.
- Reasoning `<think>…</think>` (toggled by `/think`, `/no_think`): Nano v2's prompt
  pre-opens it (`<SPECIAL_11>Assistant\\n<think>\\n\\n`; off: `<think></think>`), Super-49B's
  leaves it to the model (off: the prompt ends `<think>\\n\\n</think>\\n\\n`). `<TOOLCALL>`
  ends it implicitly. (Nemotron 3 Nano uses Qwen3-Coder XML: `qwen3-coder`.)
- `<SPECIAL_12>` (Nano v2) and `<|eot_id|>` (Super-49B) end the turn.
"""

from __future__ import annotations

import json
from typing import Any

from ..combinators import Parser
from ..tools import Tools
from .base import Format
from .blocks import Reasoning, assistant_turn, call_object, json_call_list, render_turn
from .turns import ToolUse, Turn

THINK = Reasoning("<think>", "</think>")
TOOL_CALL, END_TOOL_CALL = "<TOOLCALL>", "</TOOLCALL>"
STOPS = ("<SPECIAL_12>", "<|eot_id|>")
NANO, SUPER = "<SPECIAL_11>Assistant\n", "<|start_header_id|>assistant<|end_header_id|>\n\n"


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    calls = json_call_list((TOOL_CALL,), call_object(arguments_keys=("arguments", "parameters")),
                           (END_TOOL_CALL, *STOPS), END_TOOL_CALL)  # fmt: skip
    return assistant_turn(calls=calls, stops=STOPS, reasoning=THINK, start=start)


def render_call(use: ToolUse) -> str:
    return json.dumps({"name": use.name, "arguments": use.arguments}, ensure_ascii=False)


def render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=THINK, call=render_call, between_calls=", ",
                       section=(TOOL_CALL + "[", "]" + END_TOOL_CALL), stop=STOPS[0])  # fmt: skip


FORMAT = Format(
    "nemotron",
    grammar,
    render,
    reserved=(THINK.open, THINK.close, TOOL_CALL, END_TOOL_CALL, *STOPS),
    channels={"reasoning": (THINK.open, THINK.close)},
    prompts={None: SUPER, "reasoning": NANO + "<think>\n\n"},
    summary="NVIDIA Nemotron Nano v2 / Super-49B-v1.5: <TOOLCALL>[{name, arguments}]</TOOLCALL>",
    markers={"reasoning": "<think>…</think>",
             "call": '<TOOLCALL>[{"name": N, "arguments": {…}}]</TOOLCALL>'},
)  # fmt: skip
