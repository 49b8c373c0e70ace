"""Ordered choice, repetition and commitment.

While a choice is undecided it keeps its start in the buffer and holds the output of the
branch it is trying; a failed branch's output is discarded, a successful one's flushed. The
last branch of an `alt` needs no backtrack point, so its output flows straight through.
"""

from __future__ import annotations

import functools
from collections.abc import Generator
from typing import Any, TypeVar

from ..shortcuts import glance as glances
from ..shortcuts.cache import Cache
from ..shortcuts.glance import EMPTY, Glance, failing
from .parser import Parser, Step, Wrapper
from .primitives import Success
from .result import Backtrack, Committed, ParseFailure
from .stream import Choice, Far, Input
from .tags import Tag

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
    expectations of every branch that reached that far. A branch that the character at the
    start rules out (see `Parser.glance`) is not run: what it would record and raise is.
    """

    def __init__(self, *parsers: Parser[Any]) -> None:
        if not parsers:
            raise ValueError("alt() needs at least one parser")
        self.parsers: tuple[Parser[Any], ...] = parsers
        *tried, self.last = parsers
        self.undecided: Plan = tuple((parser, 0) for parser in tried)
        self.plans: Cache[str, tuple[Plan, int]] = Cache(_MEMO)  # by the character at the start
        self.windows: Cache[str, Plan] = Cache(_MEMO)  # by the characters a plan glances at

    @functools.cached_property
    def waiting(self) -> bool:
        return self.parsers[0].waits()

    def __or__(self, other: Parser[Any]) -> Alt[Any]:
        return Alt(*self.parsers, other)

    def step(self, inp: Input, pos: int) -> Step[T]:
        best: Backtrack | None = None
        at = pos - inp.base
        if at == len(inp.buf) and not inp.eof and self.waiting:
            while pos == inp.end and not inp.eof:  # the first branch would only wait
                inp.fast = Undecided(self, pos)
                yield pos
                inp.fast = None
            at = pos - inp.base
        if at < len(inp.buf):
            char = inp.buf[at]
            plans = self.plans if inp.learned is None else inp.learned.cache(self, "plans", _MEMO)
            planned = plans.get(char)
            if planned is None:
                planned = plans.keep(char, self._plan(char))
            plan, width = planned
            while width:  # glances at up to `width` characters: decided by them, once
                window = inp.buf[at : at + width]
                learned = inp.learned  # its caches are the run's once it has learned
                windows = self.windows if learned is None else learned.cache(self, "windows", _MEMO)
                decided = windows.get(window)
                if decided is None:
                    decided = windows.keep(window, self._decide(plan, window))
                if decided is not _WAIT:
                    plan = decided
                    break
                if inp.eof:  # the glances decide at the end of input, as planned
                    break
                inp.fast = Undecided(self, pos)
                yield pos
                inp.fast = None
                at = pos - inp.base
        else:
            plan = self.undecided
        skipped: list[tuple[Glance, list[str]]] = []  # failures not built unless needed
        for parser, width in plan:
            if width < 0:  # branches the character rules out
                skipped.append((parser, inp.refuse(pos, parser, record=False)))
                continue
            if width:  # a branch its first characters may rule out
                glance = parser.glance(inp.buf[pos - inp.base : pos - inp.base + width])
                if glance is not None and glance.waits:
                    glance = yield from _glanced(parser, inp, pos, width)
                if glance is not None and glance.expected is not None:
                    skipped.append((glance, inp.refuse(pos, glance)))
                    continue
            choice = inp.open_choice(pos)
            try:
                result: tuple[T, int] = yield from parser.step(inp, pos)
            except Backtrack as failure:
                inp.close_choice(choice, keep_output=False)
                if choice.committed:
                    raise _commit_failure(failure) from None
                inp.abandon(failure)
                best = _merged(pos, best, skipped).merge(failure) if skipped or best else failure
                skipped = []
                continue
            except Committed:
                inp.close_choice(choice, keep_output=False)
                raise
            inp.close_choice(choice, keep_output=True)
            return result
        try:
            return (yield from self.last.step(inp, pos))
        except Backtrack as failure:
            if skipped:
                best = _merged(pos, best, skipped)
            raise (failure if best is None else best.merge(failure)) from None

    def _plan(self, char: str) -> tuple[Plan, int]:
        """The steps before the last branch at `char` (see `Plan`), and the most
        characters they glance at (0: none)."""
        plan: list[tuple[Any, int]] = []
        ruled_out: list[Glance] = []
        for parser, _ in self.undecided:
            glance = parser.glance(char)
            if glance is not None and glance.fails:
                ruled_out.append(glance)
                continue
            if ruled_out:
                plan.append((glances.tried(ruled_out), -1))
                ruled_out = []
            width = parser.reach() if glance is None or glance.waits else 0
            plan.append((parser, width if width > 1 else 0))
        if ruled_out:
            plan.append((glances.tried(ruled_out), -1))
        width = max(width for _, width in plan) if plan else 0
        return tuple(plan), width

    def _decide(self, plan: Plan, window: str) -> Plan:
        """`plan` where the input starts with `window` (as wide as it glances, or all the
        input there is): the branches `window` rules out are skipped like those the first
        character rules out (their records and failures taken as those of one `tried`
        glance: recording a `tried` glance's own failure changes nothing), up to a branch
        whose glance would wait for more input (it and the rest glance as planned); or
        `_WAIT` if every branch before that one is ruled out (waiting for its characters
        first, the choice records nothing meanwhile: nobody reads the records while it
        waits)."""
        decided: list[tuple[Any, int]] = []
        ruled_out: list[Glance] = []
        rest: Plan = ()
        for index, (parser, width) in enumerate(plan):
            undecided = 0
            if width:
                glance = parser if width < 0 else parser.glance(window[:width])
                if glance is not None and glance.waits:
                    if not decided and len(window) < width:
                        return _WAIT
                    rest = plan[index:]
                    break
                if glance is not None and glance.fails:
                    ruled_out.append(glance)
                    continue
                undecided = width if glance is None else 0  # glanced when run: it may learn
            if ruled_out:
                decided.append((glances.tried(ruled_out), -1))
                ruled_out = []
            decided.append((parser, undecided))
        if ruled_out:
            decided.append((glances.tried(ruled_out), -1))
        return (*decided, *rest)

    def _glance(self, window: str) -> Glance | None:
        outcomes = []
        for parser in self.parsers:
            glance = parser.glance(window)
            if glance is None or glance.waits:
                return glance
            outcomes.append(glance)
            if not glance.fails:
                break
        return glances.choice(outcomes)

    def _reach(self) -> int:
        return max(parser.reach() for parser in self.parsers)

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        """Those of every branch the window does not rule out (each must fail)."""
        found: list[Parser[Any]] = []
        for parser in self.parsers:
            glance = parser.glance(window)
            if glance is not None and glance.fails and glance.at < len(window):
                continue
            deciders = None if glance is not None else parser.deciders(window)
            if deciders is None:
                return None
            found += deciders
        return tuple(found)

    def waits(self) -> bool:
        return self.parsers[0].waits()


class Undecided:
    """A choice waiting at `pos` for the characters that decide its plan (its first branch
    would only wait, or every branch before the first undecided one is ruled out and that
    one's glance waits for more, see `Alt._decide`): more input after which the choice
    would wait again is only buffered, without resuming the parser tree. It tells from the
    plans the choice made already (a window it has not planned for is left to the resume)."""

    __slots__ = ("alt", "pos")

    def __init__(self, alt: Alt[Any], pos: int) -> None:
        self.alt = alt
        self.pos = pos

    def absorb(self, inp: Input, text: str) -> tuple[str, int] | None:
        alt, pos = self.alt, self.pos
        start = pos - inp.base
        head = inp.buf[start:] + text  # all the input from `pos`: the choice waits on it
        learned = inp.learned  # its caches are the run's once it has learned
        plans = alt.plans if learned is None else learned.cache(alt, "plans", _MEMO)
        planned = plans.get(head[0])
        if planned is None or len(head) >= planned[1]:
            return None
        windows = alt.windows if learned is None else learned.cache(alt, "windows", _MEMO)
        if windows.get(head) is not _WAIT:
            return None
        inp.append(text)
        return "", pos


Plan = tuple[tuple[Any, int], ...]
"""A choice's steps before its last branch at one character: `(branch, 0)` runs the
branch; `(branch, width)` does too unless its `glance` at the `width` characters there
rules it out; `(glance, -1)` does what trying the consecutive branches the character
rules out would (`glance.tried`)."""


def _glanced(
    parser: Parser[Any], inp: Input, pos: int, width: int
) -> Generator[int, None, Glance | None]:
    """`parser`'s glance at the `width` characters from `pos`; while it would only wait
    for more of them, this waits for them instead (running it would decide nothing). The
    glance is cached: calling it once more costs a lookup."""
    while True:
        at = pos - inp.base
        window = inp.buf[at : at + width]
        glance = parser.glance(window)
        if glance is None or not glance.waits or len(window) == width or inp.eof:
            return glance
        yield pos


def _merged(pos: int, best: Backtrack | None, skipped: list[tuple[Glance, list[str]]]) -> Backtrack:
    """`best` merged with the failures of the `skipped` branches, built now."""
    for glance, context in skipped:
        failure = glances.refused(pos, glance, context)
        best = failure if best is None else best.merge(failure)
    assert best is not None
    return best


def _failure_at(char: str) -> Any:
    def failure(parser: Parser[Any]) -> Glance | None:
        glance = parser.glance(char)
        return glance if glance is not None and glance.fails else None

    return failure


def _failure_at_end(parser: Parser[Any]) -> Glance | None:
    """How `parser` fails at a position where the input has ended, as its glance: worked
    out on a scratch input (it depends on nothing else: no input is there to read), so a
    loop at the end of the turn does not run every branch of its repetition once more.
    None where it matches there, or fails after a cut."""
    inp = Input()
    inp.eof = True
    choice = inp.open_choice(0)  # as the loop runs it
    try:
        next(parser.step(inp, 0))  # never yields: the input has ended
    except Backtrack as failure:
        return None if choice.committed else glances.scratch_glance(failure, inp.far)
    except (StopIteration, Committed):
        return None
    return None


_WAIT: Plan = ((None, 0),)
"""A choice's plan where it waits for more characters before it tries any branch."""
_MEMO = 256
"""Characters whose shortcuts a choice keeps (a cache: cleared when full)."""


def alt(*parsers: Parser[Any]) -> Parser[Any]:
    """Try `parsers` in order; the first that matches wins (see `Alt`)."""
    return Alt(*parsers)


class Many(Wrapper[list[T]]):
    """Zero or more repetitions, as many as match.

    Each repetition is an undecided choice until it matches or cuts; a repetition that fails
    before a cut ends the loop there (its output dropped). A repetition that matches nothing
    ends the loop too, so `many` never spins. Needs more while a repetition does. A
    repetition that the character at its start rules out (see `Parser.glance`), or that
    fails where the input has ended (`_failure_at_end`), is not run.
    Without `keep`, the values are not kept: the value is an empty list.
    """

    def __init__(self, parser: Parser[T], minimum: int = 0, keep: bool = True) -> None:
        self.parser = parser
        self.minimum = minimum
        self.keep = keep
        self.skips: Cache[str, Glance | None] = Cache(_MEMO)  # the repetition's failure by char

    @functools.cached_property
    def waiting(self) -> bool:
        return self.parser.waits()

    def step(self, inp: Input, pos: int) -> Step[list[T]]:
        values: list[T] = []
        keep, count = self.keep, 0
        while True:
            skips = self.skips if inp.learned is None else inp.learned.cache(self, "skips", _MEMO)
            at = pos - inp.base
            if at == len(inp.buf) and not inp.eof and self.waiting:
                while pos == inp.end and not inp.eof:  # the repetition would only wait
                    yield pos
                at = pos - inp.base
            if at < len(inp.buf) or inp.eof:
                char = inp.buf[at] if at < len(inp.buf) else ""  # "": the end of the input
                skip = skips.get(char, _UNSEEN)
                if skip is _UNSEEN:
                    failure = _failure_at(char) if char else _failure_at_end
                    skip = skips.keep(char, failure(self.parser))
                if skip is not None:
                    if count < self.minimum:
                        raise glances.refused(pos, skip, inp.refuse(pos, skip, record=False))
                    inp.refuse(pos, skip)
                    return values, pos
            choice = inp.open_choice(pos)
            try:
                value, end = yield from self.parser.step(inp, pos)
            except Backtrack as failure:
                inp.close_choice(choice, keep_output=False)
                if choice.committed or count < self.minimum:
                    raise _commit_failure(failure) if choice.committed else failure from None
                inp.abandon(failure)
                return values, pos
            except Committed:
                inp.close_choice(choice, keep_output=False)
                raise
            inp.close_choice(choice, keep_output=True)
            count += 1
            if keep:
                values.append(value)
            if end == pos:
                return values, pos
            pos = end

    def _glance(self, window: str) -> Glance | None:
        outcome, count = EMPTY, 0
        while True:
            glance = self.parser.glance(window[outcome.at :])
            if glance is None or glance.waits:
                return glance
            if glance.fails:
                return outcome.then(glance if count < self.minimum else glances.repeated(glance))
            outcome, count = outcome.then(glance), count + 1
            if glance.at == 0:
                return outcome


_UNSEEN: Any = object()


def many(parser: Parser[T], minimum: int = 0) -> Parser[list[T]]:
    """Repeat `parser` while it matches; at least `minimum` times (see `Many`)."""
    return Many(parser, minimum)


def skip_many(parser: Parser[Any], minimum: int = 0) -> Parser[list[Any]]:
    """`many`, keeping none of the values (an empty list): a loop over a whole output,
    whose repetitions stream their items, keeps no list as long as the output."""
    return Many(parser, minimum, keep=False)


class Runs(Wrapper[T]):
    """`tag(name, parser)`, then, where that run ends at `separator` and the character
    after it starts another, the separator and the next run, and so on: what a loop over
    `alt(*rivals, tag(name, parser))` does, `separator` being one of `rivals`, one
    repetition for the run and one for each separator and run after it. (A model stuck
    between text and an end-of-turn marker costs the text scan, not the loop.)

    A separator follows where the characters at the run's end decide that the rivals
    before it fail and it matches (their glances); the next run, where the character after
    the separator rules out every rival. Elsewhere it ends, and the loop goes on there.
    The value is the last run's. Needs more while a run, the separator or the character
    after it does; a run after the first that fails before a cut ends it before that run
    (the loop then tries that position itself)."""

    def __init__(
        self, name: str, parser: Parser[T], rivals: tuple[Parser[Any], ...], separator: Parser[Any]
    ) -> None:
        self.parser: Parser[T] = Tag(name, parser)  # a run
        self.rivals = rivals
        self.separator = separator
        self.ahead = rivals[: rivals.index(separator)]
        self.windows: Cache[str, bool] = Cache(_MEMO)  # at a run's end: the separator follows
        self.skips: Cache[str, bool] = Cache(_MEMO)  # after a separator: a run follows

    @functools.cached_property
    def width(self) -> int:
        return max(parser.reach() for parser in (*self.ahead, self.separator))

    def step(self, inp: Input, pos: int) -> Step[T]:
        tagged = self.parser
        start, choice = pos, None
        while True:
            try:
                value, end = yield from tagged.step(inp, start)
            except ParseFailure as failure:
                if choice is None:  # the first run fails as the tagged parser does
                    raise
                inp.close_choice(choice, keep_output=False)
                if not isinstance(failure, Backtrack):
                    raise
                if choice.committed:
                    raise _commit_failure(failure) from None
                inp.abandon(failure)
                return value, start
            if choice is not None:
                inp.close_choice(choice, keep_output=True)
            at = end - inp.base
            window = inp.buf[at : at + self.width]
            learned = inp.learned  # its caches are the run's once it has learned
            windows = self.windows if learned is None else learned.cache(self, "windows", _MEMO)
            follows = windows.get(window)
            if follows is None:
                follows = windows.keep(window, self._separated(window))
            if not follows:
                return value, end
            _, start = yield from self.separator.step(inp, end)
            while (at := start - inp.base) == len(inp.buf):
                if inp.eof:
                    return value, start
                yield start  # as the loop waits for the character
            char = inp.buf[at]
            learned = inp.learned
            skips = self.skips if learned is None else learned.cache(self, "skips", _MEMO)
            free = skips.get(char)
            if free is None:
                free = skips.keep(char, all(_fails(rival.glance(char)) for rival in self.rivals))
            if not free:
                return value, start
            choice = inp.open_choice(start)

    def _separated(self, window: str) -> bool:
        """Whether the separator follows a run ending where the input starts with `window`."""
        glance = self.separator.glance(window[: self.separator.reach()])
        if glance is None or glance.fails or glance.waits:
            return False
        return all(_fails(rival.glance(window[: rival.reach()])) for rival in self.ahead)

    def _glance(self, window: str) -> Glance | None:
        return glances.before_value(self.parser.glance(window))  # a match may go on


def _fails(glance: Glance | None) -> bool:
    return glance is not None and glance.fails


def runs(
    name: str, parser: Parser[T], rivals: tuple[Parser[Any], ...], separator: Parser[Any]
) -> Parser[T]:
    """Runs of `parser` tagged `name` with `separator` between them, where a loop over
    `alt(*rivals, tag(name, parser))` would read them (see `Runs`)."""
    return Runs(name, parser, rivals, separator)


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

    def _glance(self, window: str) -> Glance | None:
        glance = self.parser.glance(window)
        return None if glance is None else glance.forgotten()

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        return self.parser.deciders(window)


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
        parser, at = self.parser, pos - inp.base
        glance = parser.glance(inp.buf[at : at + parser.reach()])
        if glance is not None and glance.waits and not inp.eof:
            glance = yield from _glanced(parser, inp, pos, parser.reach())
        if glance is not None and not glance.waits:  # decided by the first characters
            if glance.expected is not None:
                return None, pos
            raise Backtrack(pos, self.expected)
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

    def _glance(self, window: str) -> Glance | None:
        glance = self.parser.glance(window)  # what it records is forgotten
        if glance is None or glance.waits:
            return glance
        return EMPTY if glance.fails else failing(self.expected)


def not_followed_by(parser: Parser[Any], description: str = "something else") -> Parser[None]:
    """Succeed without consuming where `parser` would not match (see `NotFollowedBy`)."""
    return NotFollowedBy(parser, description)
