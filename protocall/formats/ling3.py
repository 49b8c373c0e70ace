"""Ling 3.0 / Ling 3.0 Flash, Bailing V3 (FORMATS.md §4): GLM-style arguments, no section.

[R</think>]content<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call><|role_end|>
The template pre-opens `<think>`; a genuine `<tool_call>` ends the open reasoning block.
"""

from __future__ import annotations

import json
from typing import Any

from ..combinators import Parser, literal, peek, seq, whitespace
from ..combinators.xmlargs import GLM, xml_arguments
from ..tools import Tools
from .base import Format
from .blocks import (
    Reasoning,
    arguments,
    assistant_turn,
    markers,
    per_tool,
    render_turn,
    tool_calls,
    tool_name,
)
from .turns import ToolUse, Turn

THINK, END_THINK = "<think>", "</think>"
REASONING = Reasoning(THINK, END_THINK)
TOOL_CALL, END_TOOL_CALL = "<tool_call>", "</tool_call>"
ARG_KEY, END_ARG_KEY = "<arg_key>", "</arg_key>"
ARG_VALUE, END_ARG_VALUE = "<arg_value>", "</arg_value>"
END_OF_TURN = "<|role_end|>"
ASSISTANT = "<role>ASSISTANT</role>\n"
RESERVED = (THINK, END_THINK, TOOL_CALL, END_TOOL_CALL, ARG_KEY, END_ARG_KEY, ARG_VALUE,
            END_ARG_VALUE, END_OF_TURN)  # fmt: skip


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    parameters = per_tool(tools, lambda schema: arguments(xml_arguments(GLM, schema)))
    named = peek(whitespace.then(markers(ARG_KEY, END_TOOL_CALL)))
    head = seq(literal(TOOL_CALL), whitespace, tool_name(), named).map(lambda parts: parts[2])
    calls = tool_calls((TOOL_CALL,), head,
                       lambda name: parameters(name).skip(literal(END_TOOL_CALL)),
                       (END_TOOL_CALL, TOOL_CALL, END_OF_TURN))  # fmt: skip
    return assistant_turn(calls=calls, stops=(END_OF_TURN,), reasoning=REASONING, start=start)


def render_call(call: ToolUse) -> str:
    pairs = "".join(f"{ARG_KEY}{k}{END_ARG_KEY}\n{ARG_VALUE}"
                    f"{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                    f"{END_ARG_VALUE}\n" for k, v in call.arguments.items())  # fmt: skip
    return f"{TOOL_CALL}{call.name}\n{pairs}{END_TOOL_CALL}"


def render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=REASONING, call=render_call, between_calls="\n",
                       stop=END_OF_TURN)  # fmt: skip


FORMAT = Format(
    "ling-3",
    grammar,
    render,
    reserved=RESERVED,
    channels={"reasoning": (THINK, END_THINK)},
    default_start="reasoning",
    prompts={"reasoning": f"{ASSISTANT}{THINK}", None: f"{ASSISTANT}{THINK}{END_THINK}"},
    summary="Ling 3.0 / Bailing V3: <tool_call>NAME with <arg_key>/<arg_value> pairs",
    markers={"reasoning": "<think>…</think>", "call": "<tool_call>N<arg_key>K<arg_value>V"},
)
