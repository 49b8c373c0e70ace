"""The parser protocol, the resumable `Run`, and the sequencing combinators.

A parser's `step(inp, pos)` is a generator: it `yield`s the lowest offset it may still read
whenever it needs more input than has arrived, returns `(value, end)` on a match, and raises
`Backtrack` (no match) or `Committed` (no match after a `cut`). `yield from` composes parsers,
so a suspended parse resumes exactly where it stopped. A parser never yields once
`inp.eof` is set: at end of input every construct decides.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from ..shortcuts.cache import Cache
from ..shortcuts.glance import EMPTY, WAITING, Glance, before_value, failing
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
from .stream import APPENDED, RELEASE, Input, Item, new_text, running

if TYPE_CHECKING:
    from .choice import Alt

T = TypeVar("T")
U = TypeVar("U")
S = TypeVar("S")
T_co = TypeVar("T_co", covariant=True)

Step = Generator[int, None, tuple[T, int]]


class Parser(Generic[T_co]):
    """Base class: subclasses implement `step`; everything else is derived sugar."""

    def step(self, inp: Input, pos: int) -> Step[T_co]:
        raise NotImplementedError

    def glance(self, window: str) -> Glance | None:
        """What this parser does at a position where the input starts with `window`, when
        those characters decide it whatever follows (see `Glance`), or None: it may read
        further, or is not analysed. Worked out once per window (a small cache, the
        grammar's, or the run's once it has learned something: see `Learned`; None
        meanwhile: a recursive grammar's cycle is undecided). An empty window (a sequence
        glancing past the characters there are) is `WAITING` for a parser that `waits`:
        the characters after it decide, so a choice waits for them rather than run it."""
        if not window:
            return WAITING if self.waits() else None
        learned = running.learned
        if learned is None:
            memo: Cache[str, Glance | None] | None = self.__dict__.get("_glances")
            if memo is None:
                memo = self.__dict__["_glances"] = Cache(_GLANCES)
        else:
            memo = learned.cache(self, "_glances", _GLANCES)
        found: Glance | None = memo.get(window, _UNSEEN)  # one lookup: a thread may clear it
        if found is not _UNSEEN:
            return found
        pending, key = running.pending, (id(self), window)
        if key in pending:
            return None
        pending.add(key)
        try:
            glance = self._glance(window)
        finally:
            pending.discard(key)
        return memo.keep(window, glance)

    def _glance(self, window: str) -> Glance | None:
        """`glance` without the cache: subclasses whose outcome a few characters can
        decide say so."""
        return None

    def reach(self) -> int:
        """How many characters are worth a `glance` (at least 1): as many as the
        literals it starts with have."""
        reach: int | None = self.__dict__.get("_reached")
        if reach is None:
            pending, key = running.pending, (id(self), None)
            if key in pending:
                return 1  # meanwhile, for a recursive grammar
            pending.add(key)
            try:
                reach = min(max(self._reach(), 1), _REACH)
            finally:
                pending.discard(key)
            self.__dict__["_reached"] = reach
        return reach

    def _reach(self) -> int:
        return 1

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        """Where the input starts with `window`: parsers starting where this one starts
        whose failure there, all of them, makes this one fail there too, for a caller that
        asks each (`settled`) where the glance leaves this parser undecided; or None (the
        default): none known. From the grammar alone, like `glance` (a caller may keep the
        answer per window)."""
        return None

    def settled(self, inp: Input, pos: int) -> bool | None:
        """Whether this parser fails at `pos`, told without running it in the grammar
        (emitting nothing, opening no choice): True or False, or None while the input that
        has arrived does not tell yet. The default, False, tells nothing; `NestedObjects`
        reads the object there with the scan its `step` then reuses."""
        return False

    def waits(self) -> bool:
        """True when, with no input at its position yet, it can only wait for some: it
        decides, emits and commits nothing before a character arrives (or the input ends).
        A choice then waits for that character before planning its branches."""
        return False

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
        from .choice import Alt

        return Alt(self, other)

    def many(self) -> Parser[list[T_co]]:
        from .choice import Many

        return Many(self)

    def optional(self) -> Parser[T_co | None]:
        from .choice import optional

        return optional(self)


_UNSEEN: Any = object()
_GLANCES = 256
"""Windows whose outcome a parser keeps (a cache: cleared when full)."""
_REACH = 96
"""The longest window glanced at."""


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
        """Parse `text` next; the status. When the innermost parser can take `text` without
        a resume (`input.fast`), it does: the suspended tree is not touched. With a `sink`,
        text so taken while no choice is open and no item waits in `out` is final: it goes
        to `sink` instead of `out` (and its `(text, start)`, the fields of a `Text`, to
        `log`), and `feed` returns what `sink` returned; otherwise, with a sink, None (the
        items are in `out`, the status in `status`)."""
        inp = self._inp
        fast = inp.fast  # None unless the status is NEED_MORE (`_advance` and `finish` see to it)
        if fast is not None and text:
            taken = fast.absorb(inp, text)
            if taken is not None:  # by the innermost parser, without a resume
                piece = taken[0]
                if piece:
                    if inp.out is inp.root and not inp.root and sink is not None:
                        self.log.append(taken)
                        return sink(piece)
                    inp.out.append(new_text(taken))
                elif taken is APPENDED:  # the text is in: the parser decides
                    self._advance()
                    return self.status if sink is None else None
                return NEED_MORE if sink is None else None
        elif self._finished:
            raise UsageError("feed() after finish(): the run has ended")
        elif self.status is FAILED:
            raise UsageError(f"feed() after the parse failed: {self.error}")
        inp.append(text)
        if text and self.status is NEED_MORE:
            self._advance()
        return self.status if sink is None else None

    def resume(self, text: str) -> Status:
        """`feed` without the absorber's shortcut: the suspended tree resumes on `text` (the
        reference the shortcut is checked against). Only while the status is `NEED_MORE`."""
        self._inp.append(text)
        self._advance()
        return self.status

    def finish(self) -> Status:
        """Mark the end of input: every open construct decides now."""
        if self._finished:
            raise UsageError("finish() called twice")
        self._finished = True
        self._inp.eof = True
        self._inp.fast = None
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
        outer = running.learned  # what the run learned, for the glances it computes
        if inp.learned is not outer:
            running.learned = inp.learned
        try:
            keep = self._steps.send(None)
        except StopIteration as stop:
            self.value, self.end = stop.value
            self.status = DONE
            inp.fast = None
        except ParseFailure as failure:
            self.status = FAILED
            self.error = self._error(failure)
            inp.fast = None
        else:
            if inp.eof:
                raise RuntimeError("a parser asked for more input after the end of input")
            if keep - inp.base >= RELEASE:
                inp.release(keep)
        finally:
            if running.learned is not outer:
                running.learned = outer

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
    """A parser around one `parser`, which starts where it starts: as many characters are
    worth a glance, and it waits where that one waits."""

    parser: Parser[Any]

    def _reach(self) -> int:
        return self.parser.reach()

    def waits(self) -> bool:
        return self.parser.waits()


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

    def _glance(self, window: str) -> Glance | None:
        outcome = EMPTY
        for parser in self.parsers:
            glance = parser.glance(window[outcome.at :])
            if glance is None:
                return None
            outcome = outcome.then(glance)
            if glance.expected is not None or glance.waits:
                break
        return outcome

    def _reach(self) -> int:
        return sum(parser.reach() for parser in self.parsers)

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        return self.parsers[0].deciders(window) if self.parsers else None

    def waits(self) -> bool:
        return bool(self.parsers) and self.parsers[0].waits()


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

    def _glance(self, window: str) -> Glance | None:
        return self.parser.glance(window)


class Bind(Wrapper[U]):
    def __init__(self, parser: Parser[Any], fn: Callable[[Any], Parser[U]]) -> None:
        self.parser = parser
        self.fn = fn

    def step(self, inp: Input, pos: int) -> Step[U]:
        value, end = yield from self.parser.step(inp, pos)
        return (yield from self.fn(value).step(inp, end))

    def _glance(self, window: str) -> Glance | None:
        return before_value(self.parser.glance(window))

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        return self.parser.deciders(window)


def built_once(build: Callable[[T], Parser[U]]) -> Callable[[T], Parser[U]]:
    """`build`, whose parser for a value is built once and kept (a small cache, cleared
    when full), for a `bind` whose values recur, such as tool names: the parser built for
    a name, and what its caches learn (glances, choice plans, marker outcomes), then serve
    every call of that name in every run of the grammar, instead of a new parser with
    empty caches per call. `build` must be pure (the grammar's own); an unhashable value
    is built anew each time."""
    built: Cache[Any, Parser[U]] = Cache(_BUILT)

    def once(value: T) -> Parser[U]:
        try:
            parser = built.get(value)
        except TypeError:  # unhashable
            return build(value)
        if parser is None:
            parser = built.keep(value, build(value))
        return parser

    return once


_BUILT = 64
"""Values whose parser `built_once` keeps."""


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

    def _glance(self, window: str) -> Glance | None:
        glance = self.parser.glance(window)
        return None if glance is None else glance.named(self.description)


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

    def _glance(self, window: str) -> Glance | None:
        return None if self.parser is None else self.parser.glance(window)

    def _reach(self) -> int:
        return 1 if self.parser is None else self.parser.reach()

    def waits(self) -> bool:
        return self.parser is not None and self.parser.waits()


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


class EndOfInput(Parser[None]):
    """Matches only at the end of input; needs more while the stream is open."""

    def step(self, inp: Input, pos: int) -> Step[None]:
        while pos >= inp.end and not inp.eof:
            yield pos
        if pos < inp.end:
            raise Backtrack(pos, ("end of input",))
        return None, pos

    def _glance(self, window: str) -> Glance | None:
        return failing(("end of input",))

    def waits(self) -> bool:
        return True


end_of_input = EndOfInput()
