"""Kimi K3 "XTML" channels (FORMATS.md §3) over four special tokens.

R<|close|>think<|sep|><|open|>response<|sep|>C<|close|>response<|sep|><|open|>tools<|sep|>
<|open|>call tool="N" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V
<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
The think channel is pre-opened by default; a response or tools opener ends it implicitly.
"""

from __future__ import annotations

import json
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
    markers,
    per_tool,
    render_channels,
    section,
    tool_call,
    tool_name,
    unfinished,
)
from .turns import ToolUse, Turn

OPEN, CLOSE, SEP, END_OF_MSG = "<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>"


def opener(name: str) -> str:
    return f"{OPEN}{name}{SEP}"


def closer(name: str) -> str:
    return f"{CLOSE}{name}{SEP}"


def escape(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;")


def unescape(value: str) -> str:
    return value.replace("&quot;", '"').replace("&amp;", "&")


CHANNELS = {
    "reasoning": Channel(opener("think"), closer("think"), ast.REASONING),
    "content": Channel(opener("response"), closer("response"), ast.CONTENT),
}
TOOLS, END_TOOLS = opener("tools"), closer("tools")
CALL, END_CALL, JSON, END_JSON = f"{OPEN}call", closer("call"), f"{OPEN}json", closer("json")
ARGUMENT, END_ARGUMENT = f"{OPEN}argument", closer("argument")
MARKUP = (TOOLS, END_TOOLS, CALL, END_CALL, JSON, END_JSON, ARGUMENT, END_ARGUMENT)
TYPES = {str: "string", bool: "boolean", int: "number", float: "number", type(None): "null",
         dict: "object", list: "array"}  # fmt: skip
STOPS = (closer("message"), END_OF_MSG)
PROMPT = f'{OPEN}message role="assistant"{SEP}'
RESERVED = (*(m for c in CHANNELS.values() for m in (c.open, c.close)), *MARKUP, *STOPS)


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    attributes = regex(r"[^<]*").then(literal(SEP))
    whole = seq(literal(JSON), cut, attributes, whitespace, json_object(), whitespace,
                literal(END_JSON)).map(lambda parts: parts[4])  # fmt: skip
    parameters = per_tool(
        tools, lambda schema: arguments(alt(whole, xml_arguments(KIMI_K3, schema)))
    )
    name = tool_name(regex(r'[^"<]+').map(unescape))
    head = seq(literal(CALL), whitespace, literal('tool="'), name, literal('"'), attributes)
    call = tool_call(head.map(lambda parts: parts[3]),
                     lambda tool: parameters(tool).skip(whitespace).skip(literal(END_CALL)),
                     (END_CALL, END_TOOLS, *STOPS))  # fmt: skip
    begin = literal(TOOLS).skip(peek(whitespace.then(markers(CALL, END_TOOLS))))
    calls = Calls((TOOLS,), begin, section(begin, unfinished(call), END_TOOLS))
    return channelled_turn(channels=CHANNELS, calls=calls, stops=STOPS, start=start,
                           tokens=(OPEN, CLOSE, END_OF_MSG), dropped=(END_TOOLS,))  # fmt: skip


def render_call(call: ToolUse, index: int) -> str:
    body = "".join(
        f'{ARGUMENT} key="{escape(k)}" type="{TYPES[type(v)]}"{SEP}'
        f"{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}{END_ARGUMENT}"
        for k, v in call.arguments.items()
    )
    return f'{CALL} tool="{escape(call.name)}" index="{index}"{SEP}{body}{END_CALL}'


def render(turn: Turn, start: str | None) -> str:
    return render_channels(turn, start, channels=CHANNELS, call=render_call,
                           section=(TOOLS, END_TOOLS), stop="".join(STOPS))  # fmt: skip


FORMAT = Format(
    "kimi-k3",
    grammar,
    render,
    reserved=RESERVED,
    channels={name: (channel.open, channel.close) for name, channel in CHANNELS.items()},
    default_start="reasoning",
    prompts={name: PROMPT + channel.open for name, channel in CHANNELS.items()} | {None: PROMPT},
    summary="Kimi K3: XTML channels over <|open|>, <|close|>, <|sep|>, <|end_of_msg|>",
    markers={"reasoning": "<|open|>think<|sep|>…", "call": '<|open|>call tool="N"<|sep|>'},
)
