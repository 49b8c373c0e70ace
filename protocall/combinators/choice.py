"""Commitment, lookahead and separated runs (ordered choice and repetition are in
`parser`, beside the protocol whose `|`, `many` and `optional` build them)."""

from __future__ import annotations

from typing import Any, TypeVar

from .parser import Parser, Step, Wrapper
from .result import Backtrack, Committed, ParseFailure
from .stream import Choice, Far, Input
from .tags import Tag

T = TypeVar("T")


class SeparatedRuns(Wrapper[T]):
    """`tag(name, parser)`, one repetition of a loop over `alt(*rivals, tag(name, parser))`
    that reads runs of `parser` with `separator` (one of `rivals`) between them. On its own
    it reads the first run, and the loop reads the rest, one repetition for each separator
    and run. (A shortcut reads the separators and runs that the characters decide at once,
    so that a model stuck between text and an end-of-turn marker costs the text scan, not
    the loop: `protocall.shortcuts.choice`.) Needs more and fails as the tagged parser."""

    def __init__(
        self, name: str, parser: Parser[T], rivals: tuple[Parser[Any], ...], separator: Parser[Any]
    ) -> None:
        self.parser: Parser[T] = Tag(name, parser)  # a run
        self.rivals = rivals
        self.separator = separator

    def step(self, inp: Input, pos: int) -> Step[T]:
        return (yield from self.parser.step(inp, pos))


def separated_runs(
    name: str, parser: Parser[T], rivals: tuple[Parser[Any], ...], separator: Parser[Any]
) -> Parser[T]:
    """Runs of `parser` tagged `name` with `separator` between them, where a loop over
    `alt(*rivals, tag(name, parser))` would read them (see `SeparatedRuns`)."""
    return SeparatedRuns(name, parser, rivals, separator)


class Cut(Parser[None]):
    """Commit: every enclosing choice stops being undecided.

    Their held output becomes final and a later failure inside them is `Committed` (only a
    `recover` around the cut turns it back into a result). Matches nothing; never needs input.
    """

    def step(self, inp: Input, pos: int) -> Step[None]:
        inp.cut()
        return None, pos
        yield pos  # pragma: no cover - makes this a generator


cut = Cut()


def _forget(inp: Input, choice: Choice, furthest: Far | None) -> None:
    """End a lookahead: drop its choice and output, and the failures it recorded.

    (Not in a `finally`: a generator closed by garbage collection must not touch the
    choice stack, which other closed generators leave in no particular order.)"""
    inp.close_choice(choice, keep_output=False)
    inp.far = furthest


class Peek(Wrapper[T]):
    """Lookahead: match `parser` here, then give its value without consuming or emitting.

    Needs more while `parser` does; fails where it fails. `parser` must not `cut`.
    """

    def __init__(self, parser: Parser[T]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[T]:
        choice, furthest = inp.open_choice(pos), inp.far
        try:
            value, _ = yield from self.parser.step(inp, pos)
        except ParseFailure:
            _forget(inp, choice, furthest)
            raise
        _forget(inp, choice, furthest)
        return value, pos


def peek(parser: Parser[T]) -> Parser[T]:
    """Succeed without consuming where `parser` would match (see `Peek`)."""
    return Peek(parser)


class Quiet(Wrapper[T]):
    """`parser`, consuming what it matches but emitting nothing (a value a grammar reads
    only to step over it, such as a JSON member no reader wants).

    Holds `parser`'s output until it is decided and drops it; `parser` must not `cut`.
    Needs more while `parser` does; fails where it fails."""

    def __init__(self, parser: Parser[T]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[T]:
        choice = inp.open_choice(pos)
        try:
            value, end = yield from self.parser.step(inp, pos)
        except ParseFailure:
            inp.close_choice(choice, keep_output=False)
            raise
        inp.close_choice(choice, keep_output=False)
        return value, end


def quiet(parser: Parser[T]) -> Parser[T]:
    """Match `parser`, emitting nothing (see `Quiet`)."""
    return Quiet(parser)


class NotFollowedBy(Wrapper[None]):
    """Negative lookahead: succeed, consuming nothing, where `parser` would fail.

    Needs more while `parser` is undecided; `parser` must not `cut`.
    """

    def __init__(self, parser: Parser[Any], description: str) -> None:
        self.parser = parser
        self.expected = (description,)

    def step(self, inp: Input, pos: int) -> Step[None]:
        choice, furthest = inp.open_choice(pos), inp.far
        try:
            yield from self.parser.step(inp, pos)
        except Backtrack:
            _forget(inp, choice, furthest)
            return None, pos
        except Committed:
            _forget(inp, choice, furthest)
            raise
        _forget(inp, choice, furthest)
        raise Backtrack(pos, self.expected)


def not_followed_by(parser: Parser[Any], description: str = "something else") -> Parser[None]:
    """Succeed without consuming where `parser` would not match (see `NotFollowedBy`)."""
    return NotFollowedBy(parser, description)
