"""Ordered choice, repetition and commitment.

While a choice is undecided it keeps its start in the buffer and holds the output of the
branch it is trying; a failed branch's output is discarded, a successful one's flushed. The
last branch of an `alt` needs no backtrack point, so its output flows straight through.
"""

from __future__ import annotations

from typing import Any, TypeVar

from .parser import Parser, Step, Wrapper
from .primitives import Success
from .result import Backtrack, Committed, ParseFailure
from .stream import Choice, Far, Input
from .tags import Tag

T = TypeVar("T")


def commit_failure(failure: Backtrack) -> Committed:
    """`failure`, raised again after a `cut`: no enclosing choice may backtrack over it."""
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
        *tried, self.last = parsers
        self.tried = tuple(tried)

    def __or__(self, other: Parser[Any]) -> Alt[Any]:
        return Alt(*self.parsers, other)

    def step(self, inp: Input, pos: int) -> Step[T]:
        best: Backtrack | None = None
        for parser in self.tried:
            choice = inp.open_choice(pos)
            try:
                result: tuple[T, int] = yield from parser.step(inp, pos)
            except Backtrack as failure:
                inp.close_choice(choice, keep_output=False)
                if choice.committed:
                    raise commit_failure(failure) from None
                inp.abandon(failure)
                best = failure if best is None else best.merge(failure)
                continue
            except Committed:
                inp.close_choice(choice, keep_output=False)
                raise
            inp.close_choice(choice, keep_output=True)
            return result
        try:
            return (yield from self.last.step(inp, pos))
        except Backtrack as failure:
            raise (failure if best is None else best.merge(failure)) from None


def alt(*parsers: Parser[Any]) -> Parser[Any]:
    """Try `parsers` in order; the first that matches wins (see `Alt`)."""
    return Alt(*parsers)


class Many(Wrapper[list[T]]):
    """Zero or more repetitions, as many as match.

    Each repetition is an undecided choice until it matches or cuts; a repetition that fails
    before a cut ends the loop there (its output dropped). A repetition that matches nothing
    ends the loop too, so `many` never spins. Needs more while a repetition does.
    Without `keep`, the values are not kept: the value is an empty list.
    """

    def __init__(self, parser: Parser[T], minimum: int = 0, keep: bool = True) -> None:
        self.parser = parser
        self.minimum = minimum
        self.keep = keep

    def step(self, inp: Input, pos: int) -> Step[list[T]]:
        values: list[T] = []
        count = 0
        while True:
            choice = inp.open_choice(pos)
            try:
                value, end = yield from self.parser.step(inp, pos)
            except Backtrack as failure:
                inp.close_choice(choice, keep_output=False)
                if choice.committed or count < self.minimum:
                    raise commit_failure(failure) if choice.committed else failure from None
                inp.abandon(failure)
                return values, pos
            except Committed:
                inp.close_choice(choice, keep_output=False)
                raise
            inp.close_choice(choice, keep_output=True)
            count += 1
            if self.keep:
                values.append(value)
            if end == pos:
                return values, pos
            pos = end


def many(parser: Parser[T], minimum: int = 0) -> Parser[list[T]]:
    """Repeat `parser` while it matches; at least `minimum` times (see `Many`)."""
    return Many(parser, minimum)


def skip_many(parser: Parser[Any], minimum: int = 0) -> Parser[list[Any]]:
    """`many`, keeping none of the values (an empty list): a loop over a whole output,
    whose repetitions stream their items, keeps no list as long as the output."""
    return Many(parser, minimum, keep=False)


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
