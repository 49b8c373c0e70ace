"""Tool names, the arguments node and per-tool argument parsers."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from .. import ast
from ..combinators import (
    Committed,
    Input,
    Parser,
    Step,
    fail,
    literal,
    not_followed_by,
    regex,
    seq,
    success,
    tag,
    whitespace,
)
from ..combinators.parser import Wrapper
from ..combinators.result import Backtrack
from ..shortcuts.glance import Glance
from ..shortcuts.parser import deciders_of, glance_of
from ..tools import Tools
from ..values import (
    json_string,
)

NAME_LIMIT = 256


"""The longest tool name read: a longer run is no tool name (its call head fails there), so
a head waiting on an endless name holds back a bounded text (OpenAI allows 64)."""


NAME_CHAR = r"[^\s<>\"'`(){}\[\],;|=]"
"""A character of a tool name: one that cannot terminate one in any format."""
NAME_CHARS = rf"{NAME_CHAR}{{1,{NAME_LIMIT}}}"
"""A tool name: a run of `NAME_CHAR`s."""
TOO_LONG = f"a tool name of at most {NAME_LIMIT} characters"
"""What a name that runs past `NAME_LIMIT` fails expecting (see `long_name_commits`)."""


def tool_name(parser: Parser[str] | None = None) -> Parser[str]:
    """The tool name as a `tool_name` node (by default a run of `NAME_CHARS`), closed only
    once its terminator has arrived, so `get_weather` never shows while `get_weather_x`
    is still arriving."""
    return tag(ast.TOOL_NAME, parser or name_run(NAME_CHARS))


def name_run(pattern: str) -> Parser[str]:
    """A name matching `pattern`: `NAME_CHARS` or a run of one character class (`[…]+`)
    is bounded (see `bounded_name`); another pattern is a format's own."""
    if pattern == NAME_CHARS:
        return bounded_name(NAME_CHAR)
    if _CLASS_RUN.fullmatch(pattern):
        return bounded_name(pattern[:-1])
    return regex(pattern).desc("a tool name")


_CLASS_RUN = re.compile(r"\[(?:[^\]\\]|\\.)+\]\+")


def bounded_name(char: str, description: str = "a tool name") -> Parser[str]:
    """A run of 1 to `NAME_LIMIT` characters of the class `char`; one that goes on past
    `NAME_LIMIT` fails there expecting `TOO_LONG` (see `long_name_commits`)."""
    names = regex(rf"{char}{{1,{NAME_LIMIT}}}").desc(description)
    return names.skip(not_followed_by(regex(char), TOO_LONG))


def json_name() -> Parser[str]:
    """A tool name written as a JSON string (`"get_weather"`), as a `tool_name` node: one
    whose text runs past `NAME_LIMIT` characters fails there, expecting `TOO_LONG`."""
    return tool_name(_JsonName())


class _JsonName(Wrapper[str]):
    def __init__(self) -> None:
        self.parser = json_string(max_size=NAME_LIMIT + 2)  # the quotes too
        self.too_long = self.parser.too_long  # type: ignore[attr-defined]

    def step(self, inp: Input, pos: int) -> Step[str]:
        try:
            return (yield from self.parser.step(inp, pos))
        except Backtrack as failure:
            if failure.expected != self.too_long:
                raise
            named = Backtrack(failure.position, (TOO_LONG,))
            named.context = failure.context
            raise named from None

    def _glance(self, window: str) -> Glance | None:
        return glance_of(self.parser, window)


def declared(tools: Tools | None, pattern: str = NAME_CHARS) -> Parser[str]:
    """A tool name that must be one of `tools` (any name when none are declared); an
    undeclared one fails, so the text around it is not taken for a call."""
    names = name_run(pattern)
    if tools is None:
        return names
    expected = f"a declared tool name ({len(tools)} declared)"
    return names.bind(lambda name: success(name) if name in tools else fail(expected))


def undoubled(name: str, tools: Tools | None, separator: str) -> str:
    """`name`, or `N` where `name` is `N{separator}N`, `N` is declared and `name` is not (a
    namespace the same as the name: Muse's template offers a tool `N` as the recipients
    `N.*`); with no tools declared, `name` as written."""
    head, split, tail = name.partition(separator)
    if split and head == tail and tools is not None and head in tools and name not in tools:
        return head
    return name


def lenient(text: str) -> Parser[str]:
    """`text` with any whitespace before it (decoders sometimes add some around markers)."""
    return whitespace.then(literal(text))


def arguments(parser: Parser[Any]) -> Parser[Any]:
    """The `tool_arguments` node: its streamed text is the arguments JSON."""
    return tag(ast.TOOL_ARGUMENTS, parser)


def per_tool(
    tools: Tools | None, build: Callable[[Any], Parser[Any]]
) -> Callable[[str], Parser[Any]]:
    """`name -> parser` built once per declared name from the tool's parameter schema, so
    lookups cost one dict access whatever the tool count; every undeclared name shares
    the one parser built from None (a compiled format serves many sessions: names a model
    invents are not kept)."""
    cache: dict[str, Parser[Any]] = {}
    undeclared: list[Parser[Any]] = []

    def for_name(name: str) -> Parser[Any]:
        parser = cache.get(name)
        if parser is None:
            tool = tools.get(name) if tools is not None else None
            if tool is not None:
                parser = cache[name] = build(tool.parameters)
            else:
                if not undeclared:
                    undeclared.append(build(None))
                parser = undeclared[0]
        return parser

    return for_name


@functools.lru_cache(maxsize=1024)
def loose(text: str) -> Parser[str]:
    """`text` (a layout such as `"\\n```json\\n"`), allowing any whitespace, or none,
    wherever it has whitespace and around each `<…>` tag in it, as decoders vary the
    spacing; its value is `text`. Whitespace before it is allowed only if it starts with
    some (so a head never starts on whitespace alone). Built once per `text` and shared
    by every grammar that uses it (see `compile.compiled`)."""
    pieces = [piece for piece in re.split(r"\s+|(?=<)|(?<=>)", text) if piece]
    first = lenient if text[:1].isspace() else literal
    parsers = [first(piece) for piece in pieces[:1]] + [lenient(piece) for piece in pieces[1:]]
    if not parsers or text[-1].isspace():
        parsers.append(whitespace)
    return seq(*parsers).result(text)


class _LongNameCommits(Wrapper[Any]):
    """`parser` (a call's head), whose failure at a name too long (`TOO_LONG`) commits:
    the opener and the long name are a call, malformed."""

    def __init__(self, parser: Parser[Any]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[Any]:
        try:
            return (yield from self.parser.step(inp, pos))
        except Backtrack as failure:
            if TOO_LONG not in failure.expected:
                raise
            inp.cut()
            committed = Committed(failure.position, (TOO_LONG,))
            committed.context = failure.context
            raise committed from None

    def _glance(self, window: str) -> Glance | None:
        return glance_of(self.parser, window)  # a window is shorter than a name too long

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        return deciders_of(self.parser, window)


def long_name_commits(head: Parser[Any]) -> Parser[Any]:
    """`head`, where a tool name too long is a malformed call, not text: after the opener,
    a name that runs past `NAME_LIMIT` characters fails there, committed (see `tool_call`)."""
    return _LongNameCommits(head)
