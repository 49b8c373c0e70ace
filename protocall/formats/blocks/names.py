"""Tool names, the arguments node and per-tool argument parsers."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ... import ast
from ...combinators import (
    Parser,
    fail,
    json_string,
    literal,
    regex,
    seq,
    success,
    tag,
    whitespace,
)
from ...tools import Tools

NAME_LIMIT = 256


"""The longest tool name read: a longer run is no tool name (its call head fails there), so
a head waiting on an endless name holds back a bounded text (OpenAI allows 64)."""


NAME_CHARS = rf"[^\s<>\"'`(){{}}\[\],;|=]{{1,{NAME_LIMIT}}}"


"""A tool name: a run of characters that cannot terminate one in any format."""


def tool_name(parser: Parser[str] | None = None) -> Parser[str]:
    """The tool name as a `tool_name` node (by default a run of `NAME_CHARS`), closed only
    once its terminator has arrived, so `get_weather` never shows while `get_weather_x`
    is still arriving."""
    return tag(ast.TOOL_NAME, parser or regex(NAME_CHARS).desc("a tool name"))


def json_name() -> Parser[str]:
    """A tool name written as a JSON string (`"get_weather"`), as a `tool_name` node: one
    whose text runs past `NAME_LIMIT` characters fails there."""
    return tool_name(json_string(max_size=NAME_LIMIT + 2))


def declared(tools: Tools | None, pattern: str = NAME_CHARS) -> Parser[str]:
    """A tool name that must be one of `tools` (any name when none are declared); an
    undeclared one fails, so the text around it is not taken for a call."""
    names = regex(pattern).desc("a tool name")
    if tools is None:
        return names
    expected = f"a declared tool name ({len(tools)} declared)"
    return names.bind(lambda name: success(name) if name in tools else fail(expected))


def lenient(text: str) -> Parser[str]:
    """`text` with any whitespace before it (decoders sometimes add some around markers)."""
    return whitespace.then(literal(text))


def arguments(parser: Parser[Any]) -> Parser[Any]:
    """The `tool_arguments` node: its streamed text is the arguments JSON."""
    return tag(ast.TOOL_ARGUMENTS, parser)


def per_tool(
    tools: Tools | None, build: Callable[[Any], Parser[Any]]
) -> Callable[[str], Parser[Any]]:
    """`name -> parser` built once per name from the tool's parameter schema (None when
    the tool is not declared), so lookups cost one dict access whatever the tool count."""
    cache: dict[str, Parser[Any]] = {}

    def for_name(name: str) -> Parser[Any]:
        parser = cache.get(name)
        if parser is None:
            tool = tools.get(name) if tools is not None else None
            parser = cache[name] = build(tool.parameters if tool is not None else None)
        return parser

    return for_name


def loose(text: str) -> Parser[str]:
    """`text` (a layout such as `"\\n```json\\n"`), allowing any whitespace, or none,
    wherever it has whitespace and around each `<…>` tag in it, as decoders vary the
    spacing; its value is `text`. Whitespace before it is allowed only if it starts with
    some (so a head never starts on whitespace alone)."""
    pieces = [piece for piece in re.split(r"\s+|(?=<)|(?<=>)", text) if piece]
    first = lenient if text[:1].isspace() else literal
    parsers = [first(piece) for piece in pieces[:1]] + [lenient(piece) for piece in pieces[1:]]
    if not parsers or text[-1].isspace():
        parsers.append(whitespace)
    return seq(*parsers).result(text)
