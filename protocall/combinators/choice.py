"""Ordered choice, repetition and commitment.

While a choice is undecided it keeps its start in the buffer and holds the output of the
branch it is trying; a failed branch's output is discarded, a successful one's flushed. The
last branch of an `alt` needs no backtrack point, so its output flows straight through.
"""

from __future__ import annotations

from typing import Any, TypeVar

from .parser import Parser, Step
from .primitives import Success
from .result import Backtrack, Committed, ParseFailure
from .stream import Choice, Input

T = TypeVar("T")


def _commit_failure(failure: Backtrack) -> Committed:
    committed = Committed(failure.position, failure.expected)
    committed.context = failure.context
    return committed


class Alt(Parser[T]):
    """The first branch that matches (PEG ordered choice).

    It needs more while the branch it is trying does. A branch that fails before any `cut`
    lets the next one try from the same start; after a `cut` its failure is `Committed` and no
    other branch is tried. If all fail, the furthest failure is reported, with the
    expectations of every branch that reached that far.
    """

    def __init__(self, *parsers: Parser[Any]) -> None:
        if not parsers:
            raise ValueError("alt() needs at least one parser")
        self.parsers: tuple[Parser[Any], ...] = parsers

    def __or__(self, other: Parser[Any]) -> Alt[Any]:
        return Alt(*self.parsers, other)

    def step(self, inp: Input, pos: int) -> Step[T]:
        best: Backtrack | None = None
        *tried, last = self.parsers
        for parser in tried:
            choice = inp.open_choice(pos)
            try:
                result = yield from parser.step(inp, pos)
            except Backtrack as failure:
                inp.close_choice(choice, keep_output=False)
                if choice.committed:
                    raise _commit_failure(failure) from None
                inp.abandon(failure)
                best = failure if best is None else best.merge(failure)
                continue
            except Committed:
                inp.close_choice(choice, keep_output=False)
                raise
            inp.close_choice(choice, keep_output=True)
            return result
        try:
            return (yield from last.step(inp, pos))
        except Backtrack as failure:
            raise (failure if best is None else best.merge(failure)) from None


def alt(*parsers: Parser[Any]) -> Parser[Any]:
    """Try `parsers` in order; the first that matches wins (see `Alt`)."""
    return Alt(*parsers)


class Many(Parser[list[T]]):
    """Zero or more repetitions, as many as match.

    Each repetition is an undecided choice until it matches or cuts; a repetition that fails
    before a cut ends the loop there (its output dropped). A repetition that matches nothing
    ends the loop too, so `many` never spins. Needs more while a repetition does.
    """

    def __init__(self, parser: Parser[T], minimum: int = 0) -> None:
        self.parser = parser
        self.minimum = minimum

    def step(self, inp: Input, pos: int) -> Step[list[T]]:
        values: list[T] = []
        while True:
            choice = inp.open_choice(pos)
            try:
                value, end = yield from self.parser.step(inp, pos)
            except Backtrack as failure:
                inp.close_choice(choice, keep_output=False)
                if choice.committed or len(values) < self.minimum:
                    raise _commit_failure(failure) if choice.committed else failure from None
                inp.abandon(failure)
                return values, pos
            except Committed:
                inp.close_choice(choice, keep_output=False)
                raise
            inp.close_choice(choice, keep_output=True)
            values.append(value)
            if end == pos:
                return values, pos
            pos = end


def many(parser: Parser[T], minimum: int = 0) -> Parser[list[T]]:
    """Repeat `parser` while it matches; at least `minimum` times (see `Many`)."""
    return Many(parser, minimum)


def optional(parser: Parser[T], default: Any = None) -> Parser[Any]:
    """`parser`, or nothing (giving `default`) if it fails before a cut."""
    return Alt(parser, Success(default))


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


def _forget(inp: Input, choice: Choice, furthest: ParseFailure | None) -> None:
    """End a lookahead: drop its choice and output, and the failures it recorded.

    (Not in a `finally`: a generator closed by garbage collection must not touch the
    choice stack, which other closed generators leave in no particular order.)"""
    inp.close_choice(choice, keep_output=False)
    inp.furthest = furthest


class Peek(Parser[T]):
    """Lookahead: match `parser` here, then give its value without consuming or emitting.

    Needs more while `parser` does; fails where it fails. `parser` must not `cut`.
    """

    def __init__(self, parser: Parser[T]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[T]:
        choice, furthest = inp.open_choice(pos), inp.furthest
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


class NotFollowedBy(Parser[None]):
    """Negative lookahead: succeed, consuming nothing, where `parser` would fail.

    Needs more while `parser` is undecided; `parser` must not `cut`.
    """

    def __init__(self, parser: Parser[Any], description: str) -> None:
        self.parser = parser
        self.expected = (description,)

    def step(self, inp: Input, pos: int) -> Step[None]:
        choice, furthest = inp.open_choice(pos), inp.furthest
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
