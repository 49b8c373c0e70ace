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
from .base import Format
from .blocks import (
    Calls,
    Channel,
    arguments,
    channelled_turn,
    escape_attribute,
    json_type,
    markers,
    per_tool,
    raw_text,
    render_channels,
    section,
    tool_call,
    tool_name,
    unescape_attribute,
    unfinished,
)
from .turns import ToolUse, Turn

OPEN, CLOSE, SEP, END_OF_MSG = "<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>"
THINK = Channel("<|open|>think<|sep|>", "<|close|>think<|sep|>", ast.REASONING)
RESPONSE = Channel("<|open|>response<|sep|>", "<|close|>response<|sep|>", ast.CONTENT)
CHANNELS = {"reasoning": THINK, "content": RESPONSE}
TOOLS, END_TOOLS = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
CALL, END_CALL = "<|open|>call", "<|close|>call<|sep|>"
JSON, END_JSON = "<|open|>json", "<|close|>json<|sep|>"
STOPS = ("<|close|>message<|sep|>", END_OF_MSG)
PROMPT = '<|open|>message role="assistant"<|sep|>'
RESERVED = (THINK.open, THINK.close, RESPONSE.open, RESPONSE.close, TOOLS, END_TOOLS, CALL,
            END_CALL, JSON, END_JSON, KIMI_K3.opener, KIMI_K3.value_close, *STOPS)  # fmt: skip


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
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
    calls = Calls((TOOLS,), begin, section(begin, unfinished(call), END_TOOLS))
    return channelled_turn(channels=CHANNELS, calls=calls, stops=STOPS, start=start,
                           tokens=(OPEN, CLOSE, END_OF_MSG), dropped=(END_TOOLS,))  # fmt: skip


def render_call(call: ToolUse, index: int) -> str:
    body = "".join(f'{KIMI_K3.opener} key="{escape_attribute(k)}" type="{json_type(v)}"{SEP}'
                   f"{raw_text(v)}{KIMI_K3.value_close}"
                   for k, v in call.arguments.items())  # fmt: skip
    return f'{CALL} tool="{escape_attribute(call.name)}" index="{index}"{SEP}{body}{END_CALL}'


def render(turn: Turn, start: str | None) -> str:
    return render_channels(turn, start, channels=CHANNELS, call=render_call,
                           section=(TOOLS, END_TOOLS), stop="".join(STOPS))  # fmt: skip


FORMAT = Format(
    "kimi-k3", grammar, render, reserved=RESERVED, default_start="reasoning",
    channels={name: (channel.open, channel.close) for name, channel in CHANNELS.items()},
    prompts={name: PROMPT + channel.open for name, channel in CHANNELS.items()} | {None: PROMPT},
    summary="Kimi K3: XTML channels over <|open|>, <|close|>, <|sep|>, <|end_of_msg|>",
    markers={"reasoning": "<|open|>think<|sep|>…", "call": '<|open|>call tool="N"<|sep|>'},
)  # fmt: skip
