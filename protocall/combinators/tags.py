"""Semantic tags on the parse, and choice of a sub-parser by key."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import Any, TypeVar

from .parser import Parser, Step, Wrapper, quote
from .result import Backtrack, ParseFailure
from .stream import Close, Input, Item, Open, Text, new_close, new_open

T = TypeVar("T")


class Tag(Wrapper[T]):
    """`parser`, bracketed by `Open(name)` and `Close(name, value)` items.

    `Open` is emitted when the node starts (held by any undecided choice around it), so the
    text a streaming parser emits inside belongs to this node. A failure inside adds `name`
    to its context, so errors say what was open.
    """

    def __init__(self, name: str, parser: Parser[T]) -> None:
        self.name = name
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[T]:
        name = self.name
        inp.out.append(new_open((name, pos)))
        try:
            value, end = yield from self.parser.step(inp, pos)
        except ParseFailure as failure:
            failure.context.append(name)
            raise
        inp.out.append(new_close((name, end, value)))
        return value, end


def tag(name: str, parser: Parser[T]) -> Parser[T]:
    """Mark what `parser` matches as a node tagged `name` (see `Tag`)."""
    return Tag(name, parser)


class AsText(Wrapper[T]):
    """`parser`, whose matched text is then emitted as one `Text` item (e.g. a marker that
    turned out to be prose). Emits nothing until `parser` has matched."""

    def __init__(self, parser: Parser[T]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[T]:
        value, end = yield from self.parser.step(inp, pos)
        if end > pos:
            inp.out.append(Text(inp.text(pos, end), pos))
        return value, end


def as_text(parser: Parser[T]) -> Parser[T]:
    """Emit what `parser` matched as text of the enclosing node (see `AsText`)."""
    return AsText(parser)


class JsonEscaped(Wrapper[T]):
    """`parser`, the text it emits written as the body of a JSON string (escaped, without
    the quotes), each `Text` item as it comes: raw text streamed as a JSON string value."""

    def __init__(self, parser: Parser[T]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[T]:
        return (yield from escaped(inp, self.parser.step(inp, pos)))


def escaped(
    inp: Input, steps: Step[T], suspending: Callable[[Input], None] | None = None
) -> Step[T]:
    """`steps`, the `Text` items each resume of it emits written as the body of a JSON
    string; `suspending(inp)` is called before each suspension (a shortcut's hook)."""
    while True:
        out = inp.out
        at = len(out)
        try:
            waiting = next(steps)
        except StopIteration as done:
            _escape(out, at)
            return done.value  # type: ignore[no-any-return]
        _escape(out, at)
        if suspending is not None:
            suspending(inp)
        yield waiting


def _escape(out: list[Item], at: int) -> None:
    """The `Text` items of `out` from `at` on, each written as the body of a JSON string."""
    for index in range(at, len(out)):
        item = out[index]
        if isinstance(item, Text):
            out[index] = Text(encode_basestring(item.text)[1:-1], item.start)


def json_escaped(parser: Parser[T]) -> Parser[T]:
    """Emit the text `parser` emits as the body of a JSON string (see `JsonEscaped`)."""
    return JsonEscaped(parser)


class Emit(Parser[T]):
    """A zero-width node tagged `name` with `value`: a fact the grammar derived."""

    def __init__(self, name: str, value: T) -> None:
        self.name = name
        self.value = value

    def step(self, inp: Input, pos: int) -> Step[T]:
        inp.out.append(Open(self.name, pos))
        inp.out.append(Close(self.name, pos, self.value))
        return self.value, pos
        yield pos  # pragma: no cover - makes this a generator


def emit(name: str, value: T) -> Parser[T]:
    return Emit(name, value)


class Synthesised(Parser[None]):
    """Matches nothing and emits `text` as one `Text` item where it stands: text the grammar
    derived (re-serialised arguments) rather than read from the input."""

    def __init__(self, text: str) -> None:
        self.text = text

    def step(self, inp: Input, pos: int) -> Step[None]:
        inp.out.append(Text(self.text, pos))
        return None, pos
        yield pos  # pragma: no cover - makes this a generator


class Dispatch(Parser[tuple[str, Any]]):
    """Parse a key, then the parser registered for it; the value is `(key, value)`.

    The lookup is one dict access, whatever the size of the table. An unknown key fails at
    the key's start expecting one of the known keys, unless `default(key)` supplies a parser.
    """

    def __init__(
        self,
        key: Parser[str],
        table: Mapping[str, Parser[Any]],
        default: Callable[[str], Parser[Any]] | None = None,
    ) -> None:
        self.key = key
        self.table = table
        self.default = default
        shown = [quote(k) for k in sorted(table)[:6]]
        self.expected = (("one of " + ", ".join(shown) + (", …" if len(table) > 6 else "")),)

    def step(self, inp: Input, pos: int) -> Step[tuple[str, Any]]:
        key, end = yield from self.key.step(inp, pos)
        parser = self.table.get(key)
        if parser is None:
            if self.default is None:
                raise Backtrack(pos, self.expected)
            parser = self.default(key)
        value, end = yield from parser.step(inp, end)
        return (key, value), end


def dispatch(
    key: Parser[str],
    table: Mapping[str, Parser[Any]],
    default: Callable[[str], Parser[Any]] | None = None,
) -> Parser[tuple[str, Any]]:
    """Choose the parser to run next by a parsed key (see `Dispatch`)."""
    return Dispatch(key, table, default)
