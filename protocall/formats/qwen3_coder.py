"""Qwen3-Coder, and the thinking Qwen3.5+ / Nemotron 3 templates (FORMATS.md §1).

[<think>R</think>]content<tool_call>\\n<function=N>\\n<parameter=K>\\nV\\n</parameter>\\n</function>\\n</tool_call><|im_end|>
A bare `<function=N>` (no `<tool_call>`) is a call only for a declared tool followed by a
parameter or `</function>`; a genuine call also ends an open reasoning block. A missing
`</parameter>` is tolerated (see `QWEN3_CODER`), and so is a missing `</tool_call>` before
`<|im_end|>` or the next `<tool_call>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..combinators import Parser, alt, literal, optional, peek, seq, whitespace
from ..combinators.xmlargs import QWEN3_CODER, xml_arguments
from ..tools import Tools
from .blocks import (
    Calls,
    arguments,
    declared,
    in_runs,
    markers,
    per_tool,
    raw_text,
    tool_calls,
    tool_name,
    turn_format,
)
from .turns import ToolUse

TOOL_CALL, END_TOOL_CALL = "<tool_call>", "</tool_call>"
FUNCTION, END_FUNCTION = "<function=", "</function>"
PARAMETER, END_PARAMETER = QWEN3_CODER.opener, QWEN3_CODER.value_close
END_OF_TURN = "<|im_end|>"


def function(name: Parser[str] | None = None) -> Parser[str]:
    """`<function=NAME>`; its value is the name."""
    return seq(literal(FUNCTION), tool_name(name), literal(">")).map(lambda parts: parts[1])


def calls(tools: Tools | None) -> Calls:
    parameters = per_tool(tools, lambda schema: arguments(xml_arguments(QWEN3_CODER, schema)))

    def body(close: Parser[Any]) -> Callable[[str], Parser[Any]]:
        return lambda name: seq(parameters(name), literal(END_FUNCTION), close)

    # a missing `</tool_call>` is tolerated before the end of turn or the next call
    closed = whitespace.then(alt(literal(END_TOOL_CALL), peek(markers(END_OF_TURN, TOOL_CALL))))
    wrapped = tool_calls((TOOL_CALL,), literal(TOOL_CALL).then(whitespace).then(function()),
                         body(closed), (END_TOOL_CALL, TOOL_CALL, END_OF_TURN))  # fmt: skip
    parameter_next = peek(whitespace.then(markers(PARAMETER, END_FUNCTION)))
    bare = tool_calls((FUNCTION,), function(declared(tools)).skip(parameter_next),
                      body(optional(closed)), (END_FUNCTION, TOOL_CALL, END_OF_TURN))  # fmt: skip
    return in_runs(Calls((TOOL_CALL, FUNCTION), alt(wrapped.head, bare.head),
                         alt(wrapped.call, bare.call)))  # fmt: skip


def render_call(call: ToolUse, index: int) -> str:
    body = "".join(f"{PARAMETER}{k}>\n{raw_text(v)}\n{END_PARAMETER}\n"
                   for k, v in call.arguments.items())  # fmt: skip
    return f"{TOOL_CALL}\n{FUNCTION}{call.name}>\n{body}{END_FUNCTION}\n{END_TOOL_CALL}"


FORMAT = turn_format(
    "qwen3-coder", calls, stops=(END_OF_TURN,), render_call=render_call, between_calls="\n",
    reserved=(TOOL_CALL, END_TOOL_CALL, FUNCTION, END_FUNCTION, PARAMETER, END_PARAMETER),
    prompts={None: "<|im_start|>assistant\n", "reasoning": "<|im_start|>assistant\n<think>\n"},
    summary="Qwen3-Coder / Qwen3.5+ / Nemotron 3: <function=…> and <parameter=…> in <tool_call>",
    call_marker="<tool_call><function=N><parameter=K>V",
)  # fmt: skip
