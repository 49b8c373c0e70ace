"""The parser protocol, the resumable `Run`, and the composite combinators: sequence,
ordered choice, repetition, option.

A parser's `step(inp, pos)` is a generator: it `yield`s the lowest offset it may still read
whenever it needs more input than has arrived, returns `(value, end)` on a match, and raises
`Backtrack` (no match) or `Committed` (no match after a `cut`). `yield from` composes parsers,
so a suspended parse resumes exactly where it stopped. A parser never yields once
`inp.eof` is set: at end of input every construct decides.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar, overload

from .result import (
    DONE,
    END_OF_INPUT,
    FAILED,
    NEED_MORE,
    Backtrack,
    Committed,
    ParseError,
    ParseFailure,
    Status,
    UsageError,
    describe_expected,
)
from .stream import RELEASE, Input, Item

T = TypeVar("T")
U = TypeVar("U")
S = TypeVar("S")
T_co = TypeVar("T_co", covariant=True)

Step = Generator[int, None, tuple[T, int]]


class Parser(Generic[T_co]):
    """Base class: subclasses implement `step`; everything else is derived sugar."""

    def step(self, inp: Input, pos: int) -> Step[T_co]:
        raise NotImplementedError

    # -- running -------------------------------------------------------------------------

    def run(self) -> Run[T_co]:
        """A resumable run over input fed in pieces."""
        return Run(self)

    def parse(self, text: str) -> T_co:
        """Parse complete `text`, which must be consumed entirely; raise `ParseError`."""
        run = Run(Seq(self, end_of_input), text)
        run.finish()
        if run.error is not None:
            raise run.error
        value: T_co = run.value[0]
        return value

    # -- derived combinators -------------------------------------------------------------

    def map(self, fn: Callable[[T_co], U]) -> Parser[U]:
        """Transform the value."""
        return Map(self, fn)

    def bind(self, fn: Callable[[T_co], Parser[U]]) -> Parser[U]:
        """Choose the next parser from this one's value (parsy's `bind`)."""
        return Bind(self, fn)

    def result(self, value: U) -> Parser[U]:
        """Match like this parser, then give `value`."""
        return Map(self, lambda _: value)

    def desc(self, description: str) -> Parser[T_co]:
        """Name this parser in errors: a backtrackable failure inside it expects `description`."""
        return Desc(self, description)

    def then(self, other: Parser[U]) -> Parser[U]:
        """This, then `other`; `other`'s value."""
        return Seq(self, other).map(_last)

    def skip(self, other: Parser[Any]) -> Parser[T_co]:
        """This, then `other`; this parser's value."""
        return Seq(self, other).map(_first)

    def __rshift__(self, other: Parser[U]) -> Parser[U]:
        return self.then(other)

    def __lshift__(self, other: Parser[Any]) -> Parser[T_co]:
        return self.skip(other)

    def __or__(self, other: Parser[U]) -> Alt[T_co | U]:
        return Alt(self, other)

    def many(self) -> Parser[list[T_co]]:
        return Many(self)

    def optional(self) -> Parser[T_co | None]:
        return optional(self)


def _first(values: tuple[Any, ...]) -> Any:
    return values[0]


def _last(values: tuple[Any, ...]) -> Any:
    return values[-1]


class Run(Generic[T]):
    """A resumable parse over `text` and whatever is fed next. `feed` and `finish` return the
    `Status` (also kept as `status`); emitted items are `take`n, or read from `out`, the list
    they are appended to, which a consumer that wants no copy clears itself.

    Feeding resumes the suspended parser tree where it stopped: nothing is re-parsed and no
    text is scanned twice beyond what a parser holds back. After `DONE`, further input is kept
    as the `rest`; after `finish()` or `FAILED`, feeding is a `UsageError`.

    `log` is where `feed` records the text it hands to a sink: a consumer that keeps every
    item in order passes the list it extends with `out`.
    """

    def __init__(self, parser: Parser[T], text: str = "", log: list[Any] | None = None) -> None:
        self._inp = Input()
        self._inp.buf = text
        self.out: list[Item] = self._inp.root
        self.log: list[Any] = [] if log is None else log
        self.input = self._inp  # buffer, offsets and `transcript`, for a consumer to read
        self._steps: Step[T] = parser.step(self._inp, 0)
        self._finished = False
        self.status: Status = NEED_MORE
        self.value: Any = None
        self.end: int | None = None
        self.error: ParseError | None = None
        self._advance()

    @overload
    def feed(self, text: str) -> Status: ...

    @overload
    def feed(self, text: str, sink: Callable[[str], S]) -> S | None: ...

    def feed(self, text: str, sink: Callable[[str], S] | None = None) -> Status | S | None:
        """Parse `text` next; the status. With a `sink`, None: the items are in `out`, the
        status in `status` (a shortcut may hand `sink` text that is final instead, and
        return what it returned: see `protocall.shortcuts.run`)."""
        if self._finished:
            raise UsageError("feed() after finish(): the run has ended")
        if self.status is FAILED:
            raise UsageError(f"feed() after the parse failed: {self.error}")
        self._inp.append(text)
        if text and self.status is NEED_MORE:
            self._advance()
        return self.status if sink is None else None

    def resume(self, text: str) -> Status:
        """The suspended tree resumes on `text` (what `feed` does, without any shortcut:
        the reference a shortcut is checked against). Only while the status is
        `NEED_MORE`."""
        self._inp.append(text)
        self._advance()
        return self.status

    def finish(self) -> Status:
        """Mark the end of input: every open construct decides now."""
        if self._finished:
            raise UsageError("finish() called twice")
        self._finished = True
        self._inp.eof = True
        if self.status is NEED_MORE:
            self._advance()
        return self.status

    def take(self) -> list[Item]:
        """Items emitted for committed input since the last call (never retracted)."""
        items = self.out[:]
        self.out.clear()
        return items

    @property
    def rest(self) -> str:
        """Input received after the end of a `DONE` match."""
        if self.end is None:
            raise UsageError("rest is only defined once the run is done")
        return self._inp.text(self.end, self._inp.end)

    @property
    def offset(self) -> int:
        """Stream offset just past the input received so far."""
        return self._inp.end

    def _advance(self) -> None:
        inp = self._inp
        try:
            keep = self._steps.send(None)
        except StopIteration as stop:
            self.value, self.end = stop.value
            self.status = DONE
        except ParseFailure as failure:
            self.status = FAILED
            self.error = self._error(failure)
        else:
            if inp.eof:
                raise RuntimeError("a parser asked for more input after the end of input")
            if keep - inp.base >= RELEASE:
                inp.release(keep)

    def _error(self, failure: ParseFailure) -> ParseError:
        """The error users see: at the furthest position any branch reached (the input was
        viable up to there), expecting what every failure at that position expected."""
        inp = self._inp
        furthest = failure if inp.furthest is None else inp.furthest.merge(failure)
        context = (furthest if furthest.position > failure.position else failure).context
        line, column = inp.line_column(furthest.position)
        return ParseError(
            furthest.position,
            line,
            column,
            describe_expected(furthest.expected),
            excerpt(inp, furthest.position),
            tuple(reversed(context)),
            isinstance(failure, Committed),
        )


def excerpt(inp: Input, position: int, width: int = 24) -> str:
    """What arrived at `position`, quoted, for error messages."""
    if position >= inp.end:
        return END_OF_INPUT
    text = inp.text(max(position, inp.base), min(position + width, inp.end))
    more = "…" if position + width < inp.end else ""
    return quote(text) + more


def quote(text: str) -> str:
    """Backquoted text with control characters escaped, as errors show markers."""
    shown = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return f"`{shown}`"


class Wrapper(Parser[T_co]):
    """A parser around one `parser`, which starts where it starts."""

    parser: Parser[Any]


class Seq(Parser[tuple[Any, ...]]):
    """Each parser in turn; the tuple of their values."""

    def __init__(self, *parsers: Parser[Any]) -> None:
        self.parsers = parsers

    def step(self, inp: Input, pos: int) -> Step[tuple[Any, ...]]:
        values = []
        for parser in self.parsers:
            value, pos = yield from parser.step(inp, pos)
            values.append(value)
        return tuple(values), pos


def seq(*parsers: Parser[Any]) -> Parser[tuple[Any, ...]]:
    """Match `parsers` one after another; give the tuple of their values."""
    return Seq(*parsers)


class Map(Wrapper[U]):
    def __init__(self, parser: Parser[Any], fn: Callable[[Any], U]) -> None:
        self.parser = parser
        self.fn = fn

    def step(self, inp: Input, pos: int) -> Step[U]:
        value, end = yield from self.parser.step(inp, pos)
        return self.fn(value), end


class Bind(Wrapper[U]):
    def __init__(self, parser: Parser[Any], fn: Callable[[Any], Parser[U]]) -> None:
        self.parser = parser
        self.fn = fn

    def step(self, inp: Input, pos: int) -> Step[U]:
        value, end = yield from self.parser.step(inp, pos)
        return (yield from self.fn(value).step(inp, end))


class Desc(Wrapper[T]):
    def __init__(self, parser: Parser[T], description: str) -> None:
        self.parser = parser
        self.description = description

    def step(self, inp: Input, pos: int) -> Step[T]:
        try:
            return (yield from self.parser.step(inp, pos))
        except Backtrack as failure:
            named = Backtrack(failure.position, (self.description,))
            named.context = failure.context
            raise named from None


class Forward(Parser[T]):
    """A parser defined later, for recursive grammars: `p = forward(); p.define(...)`."""

    def __init__(self) -> None:
        self.parser: Parser[T] | None = None

    def define(self, parser: Parser[T]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[T]:
        if self.parser is None:
            raise UsageError("forward() parser used before define()")
        return (yield from self.parser.step(inp, pos))


def forward() -> Forward[Any]:
    return Forward()


class Generate(Parser[T]):
    def __init__(self, fn: Callable[[], Generator[Parser[Any], Any, T]]) -> None:
        self.fn = fn
        self.__doc__ = fn.__doc__

    def step(self, inp: Input, pos: int) -> Step[T]:
        body = self.fn()
        value: Any = None
        try:
            while True:
                parser = body.send(value)
                value, pos = yield from parser.step(inp, pos)
        except StopIteration as stop:
            return stop.value, pos


def generate(fn: Callable[[], Generator[Parser[Any], Any, T]]) -> Parser[T]:
    """Write a sequential or recursive parser as a generator that `yield`s parsers and
    receives their values, like parsy's `@generate`; its `return` value is the result.

        @generate
        def call():
            name = yield tool_name
            yield literal(">")
            return name
    """
    return Generate(fn)


class Success(Parser[T]):
    """Match nothing; give `value`. Never needs input."""

    def __init__(self, value: T) -> None:
        self.value = value

    def step(self, inp: Input, pos: int) -> Step[T]:
        return self.value, pos
        yield pos  # pragma: no cover - makes this a generator


def success(value: T) -> Parser[T]:
    return Success(value)


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


def optional(parser: Parser[T], default: Any = None) -> Parser[Any]:
    """`parser`, or nothing (giving `default`) if it fails before a cut."""
    return Alt(parser, Success(default))


class EndOfInput(Parser[None]):
    """Matches only at the end of input; needs more while the stream is open."""

    def step(self, inp: Input, pos: int) -> Step[None]:
        while pos >= inp.end and not inp.eof:
            yield pos
        if pos < inp.end:
            raise Backtrack(pos, ("end of input",))
        return None, pos


end_of_input = EndOfInput()
