"""Kimi K3 "XTML" channels (FORMATS.md §3) over four special tokens.

R<|close|>think<|sep|><|open|>response<|sep|>C<|close|>response<|sep|><|open|>tools<|sep|>
<|open|>call tool="N" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V
<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
The think channel is pre-opened by default; a response or tools opener ends it implicitly.
"""

from __future__ import annotations

from typing import Any

from .. import ast
from ..combinators import Parser, alt, cut, literal, peek, regex, seq, whitespace
from ..combinators.json import json_object
from ..combinators.xmlargs import KIMI_K3, xml_arguments
from ..tools import Tools
from .blocks import (
    Calls,
    Channel,
    arguments,
    channel_format,
    escape_attribute,
    markers,
    per_tool,
    render_argument,
    section,
    tool_call,
    tool_name,
    unescape_attribute,
    unfinished,
)
from .turns import ToolUse

OPEN, CLOSE, SEP, END_OF_MSG = "<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>"
THINK = Channel("<|open|>think<|sep|>", "<|close|>think<|sep|>", ast.REASONING)
RESPONSE = Channel("<|open|>response<|sep|>", "<|close|>response<|sep|>", ast.CONTENT)
TOOLS, END_TOOLS = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
CALL, END_CALL = "<|open|>call", "<|close|>call<|sep|>"
JSON, END_JSON = "<|open|>json", "<|close|>json<|sep|>"
STOPS = ("<|close|>message<|sep|>", END_OF_MSG)


def calls(tools: Tools | None) -> Calls:
    attributes = regex(r"[^<]*").then(literal(SEP))
    whole = seq(literal(JSON), cut, attributes, whitespace, json_object(), whitespace,
                literal(END_JSON)).map(lambda parts: parts[4])  # fmt: skip
    parameters = per_tool(tools, lambda schema: alt(whole, xml_arguments(KIMI_K3, schema)))
    name = tool_name(regex(r'[^"<]+').map(unescape_attribute))
    head = seq(literal(CALL), whitespace, literal('tool="'), name, literal('"'), attributes)

    def body(tool: str) -> Parser[Any]:
        return seq(arguments(parameters(tool)), whitespace, literal(END_CALL))

    call = tool_call(head.map(lambda parts: parts[3]), body, (END_CALL, END_TOOLS, *STOPS))
    begin = literal(TOOLS).skip(peek(whitespace.then(markers(CALL, END_TOOLS))))
    return Calls((TOOLS,), begin, section(begin, unfinished(call), END_TOOLS))


def render_call(call: ToolUse, index: int) -> str:
    body = "".join(render_argument(KIMI_K3, k, v) for k, v in call.arguments.items())
    return f'{CALL} tool="{escape_attribute(call.name)}" index="{index}"{SEP}{body}{END_CALL}'


FORMAT = channel_format(
    "kimi-k3", calls, channels={"reasoning": THINK, "content": RESPONSE}, stops=STOPS,
    tokens=(OPEN, CLOSE, END_OF_MSG), dropped=(END_TOOLS,), render_call=render_call,
    section=(TOOLS, END_TOOLS), prompt='<|open|>message role="assistant"<|sep|>',
    reserved=(CALL, END_CALL, JSON, END_JSON, KIMI_K3.opener, KIMI_K3.value_close),
    default_start="reasoning", call_marker='<|open|>call tool="N"<|sep|>',
    summary="Kimi K3: XTML channels over <|open|>, <|close|>, <|sep|>, <|end_of_msg|>",
)  # fmt: skip
