"""Ling 3.0 / Ling 3.0 Flash, Bailing V3 (FORMATS.md §4): GLM-style arguments, no section.

[R</think>]content<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call><|role_end|>
The template pre-opens `<think>`; a genuine `<tool_call>` ends the open reasoning block.
"""

from __future__ import annotations

from typing import Any

from ..combinators import Parser
from ..combinators.xmlargs import GLM
from ..tools import Tools
from .base import Format
from .blocks import Reasoning, assistant_turn, render_turn, render_xml_call, xml_calls
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
    calls = xml_calls(tools, GLM, TOOL_CALL, stops=(END_OF_TURN,))
    return assistant_turn(calls=calls, stops=(END_OF_TURN,), reasoning=REASONING, start=start)


def render_call(call: ToolUse) -> str:
    return render_xml_call(GLM, TOOL_CALL, "", call, newline=True)


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
