"""Ling 3.0 / Ling 3.0 Flash, Bailing V3 (FORMATS.md §4): GLM-style arguments, no section.

[R</think>]content<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call><|role_end|>
The template pre-opens `<think>`; a genuine `<tool_call>` ends the open reasoning block.
"""

from __future__ import annotations

from ..combinators.xmlargs import GLM
from ..tools import Tools
from .blocks import Calls, render_xml_call, turn_format, xml_calls
from .turns import ToolUse

TOOL_CALL, END_TOOL_CALL = "<tool_call>", "</tool_call>"
END_OF_TURN = "<|role_end|>"
ASSISTANT = "<role>ASSISTANT</role>\n"


def calls(tools: Tools | None) -> Calls:
    return xml_calls(tools, GLM, TOOL_CALL, stops=(END_OF_TURN,))


def render_call(call: ToolUse, index: int) -> str:
    return render_xml_call(GLM, TOOL_CALL, "", call, newline=True)


FORMAT = turn_format(
    "ling-3", calls, stops=(END_OF_TURN,), render_call=render_call, between_calls="\n",
    reserved=(TOOL_CALL, END_TOOL_CALL, "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"),
    default_start="reasoning",
    prompts={"reasoning": f"{ASSISTANT}<think>", None: f"{ASSISTANT}<think></think>"},
    summary="Ling 3.0 / Bailing V3: <tool_call>NAME with <arg_key>/<arg_value> pairs",
    call_marker="<tool_call>N<arg_key>K<arg_value>V",
)  # fmt: skip
