"""Swiss AI Apertus (FORMATS.md §6.13): single-key call objects in one JSON array.

<|inner_prefix|>R<|inner_suffix|>content<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>
<|assistant_end|>

- Every marker is a special token. The model writes the reasoning block itself after the
  prompt `<|assistant_start|>`; a prompt ending `<|inner_prefix|>` pre-opens it (thinking
  off closes it: `<|inner_prefix|><|inner_suffix|>`). A genuine tool section ends it.
- Each element is `{"NAME": {ARGS}}`: the key is the tool name (final once its closing quote
  has arrived), the value the arguments object, streamed as it arrives. Text before and
  after the section is content; a missing `<|tools_suffix|>` is tolerated.
- `<|assistant_end|>` ends the turn; it is never content.
"""

from __future__ import annotations

import json
from typing import Any

from ..combinators import Parser, json_object, literal, seq
from ..combinators import whitespace as ws
from ..tools import Tools
from .base import Format
from .blocks import Reasoning, arguments, assistant_turn, json_call_list, json_name, render_turn
from .turns import ToolUse, Turn

THINK, END_THINK = "<|inner_prefix|>", "<|inner_suffix|>"
REASONING = Reasoning(THINK, END_THINK)
TOOLS, END_TOOLS = "<|tools_prefix|>", "<|tools_suffix|>"
END_OF_TURN = "<|assistant_end|>"
PROMPT = "<|assistant_start|>"


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    call = seq(literal("{"), ws, json_name(), ws, literal(":"), ws,
               arguments(json_object()), ws, literal("}"))  # fmt: skip
    calls = json_call_list((TOOLS,), call, (END_TOOLS, END_OF_TURN), END_TOOLS)
    return assistant_turn(calls=calls, stops=(END_OF_TURN,), reasoning=REASONING, start=start)


def render_call(use: ToolUse) -> str:
    return json.dumps({use.name: use.arguments}, ensure_ascii=False)


def render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=REASONING, call=render_call, between_calls=", ",
                       section=(TOOLS + "[", "]" + END_TOOLS), stop=END_OF_TURN)  # fmt: skip


FORMAT = Format(
    "apertus",
    grammar,
    render,
    reserved=(THINK, END_THINK, TOOLS, END_TOOLS, END_OF_TURN),
    channels={"reasoning": (THINK, END_THINK)},
    default_start=None,
    prompts={None: PROMPT, "reasoning": PROMPT + THINK},
    summary="Swiss AI Apertus: [{NAME: {ARGS}}] in <|tools_prefix|>…<|tools_suffix|>",
    markers={"reasoning": "<|inner_prefix|>…<|inner_suffix|>",
             "call": '<|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>'},
)  # fmt: skip
