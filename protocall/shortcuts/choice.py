"""Choices that skip what their first characters rule out: `Alt`'s plans, `Many`'s skips,
`SeparatedRuns` reading ahead, `NotFollowedBy` decided at a glance.

A choice plans its branches per character at its start (`_plan`) and, where a few more
characters decide more branches, per window of them (`_decide`): a branch the glance rules
out is not run, but what it would record and raise is (`Input.refuse`, `glance.refused`),
so errors read the same. While the characters that decide have not arrived, the choice
waits for them (absorbing more input without a resume: `Undecided`).
"""

from __future__ import annotations

import functools
from collections.abc import Generator
from typing import Any

from ..combinators.choice import NotFollowedBy, Peek, SeparatedRuns
from ..combinators.parser import Alt, Many, Parser, Step, commit_failure
from ..combinators.result import Backtrack, Committed, ParseFailure
from ..combinators.stream import Input
from . import glance as glances
from .cache import Cache
from .glance import EMPTY, Glance, failing
from .parser import wrapped_deciders
from .registry import analysis, install

Plan = tuple[tuple[Any, int], ...]
"""A choice's steps before its last branch at one character: `(branch, 0)` runs the
branch; `(branch, width)` does too unless its `glance` at the `width` characters there
rules it out; `(glance, -1)` does what trying the consecutive branches the character
rules out would (`glance.tried`)."""

_WAIT: Plan = ((None, 0),)
"""A choice's plan where it waits for more characters before it tries any branch."""
MEMO = 256
"""Characters (or windows) whose shortcuts a choice keeps."""
_UNSEEN: Any = object()


class _Planned(Alt[Any]):
    """The attributes the shortcuts give an `Alt` (for the type checker only)."""

    parsers: tuple[Any, ...]  # as the core's, with the analyses installed
    tried: tuple[Any, ...]
    last: Any
    undecided: Plan  # every branch but the last, run
    plans: Cache[str, tuple[Plan, int]]  # by the character at the start
    windows: Cache[str, Plan]  # by the characters a plan glances at
    waiting: bool  # the first branch waits for a character


def alt_step(self: _Planned, inp: Input, pos: int) -> Step[Any]:
    """`Alt.step`, planned: the branches the characters at the start rule out are not run
    (see the module docstring)."""
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
        plans = self.plans if inp.learned is None else inp.learned.cache(self, "plans", MEMO)
        planned = plans.get(char)
        if planned is None:
            planned = plans.keep(char, _plan(self, char))
        plan, width = planned
        while width:  # glances at up to `width` characters: decided by them, once
            window = inp.buf[at : at + width]
            learned = inp.learned  # its caches are the run's once it has learned
            windows = self.windows if learned is None else learned.cache(self, "windows", MEMO)
            decided = windows.get(window)
            if decided is None:
                decided = windows.keep(window, _decide(plan, window))
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
            skipped.append((parser, glances.refuse(inp, pos, parser, record=False)))
            continue
        if width:  # a branch its first characters may rule out
            glance = parser.glance(inp.buf[pos - inp.base : pos - inp.base + width])
            if glance is not None and glance.waits:
                glance = yield from _glanced(parser, inp, pos, width)
            if glance is not None and glance.expected is not None:
                skipped.append((glance, glances.refuse(inp, pos, glance)))
                continue
        choice = inp.open_choice(pos)
        try:
            result: tuple[Any, int] = yield from parser.step(inp, pos)
        except Backtrack as failure:
            inp.close_choice(choice, keep_output=False)
            if choice.committed:
                raise commit_failure(failure) from None
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
        result = yield from self.last.step(inp, pos)
    except Backtrack as failure:
        if skipped:
            best = _merged(pos, best, skipped)
        raise (failure if best is None else best.merge(failure)) from None
    return result


def _plan(alt: _Planned, char: str) -> tuple[Plan, int]:
    """The steps before the last branch at `char` (see `Plan`), and the most
    characters they glance at (0: none)."""
    plan: list[tuple[Any, int]] = []
    ruled_out: list[Glance] = []
    for parser, _ in alt.undecided:
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


def _decide(plan: Plan, window: str) -> Plan:
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


def _alt_glance(self: Any, window: str) -> Glance | None:
    outcomes = []
    for parser in self.parsers:
        glance: Glance | None = parser.glance(window)
        if glance is None or glance.waits:
            return glance
        outcomes.append(glance)
        if not glance.fails:
            break
    return glances.choice(outcomes)


def _alt_deciders(self: Any, window: str) -> tuple[Parser[Any], ...] | None:
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


class Undecided:
    """A choice waiting at `pos` for the characters that decide its plan (its first branch
    would only wait, or every branch before the first undecided one is ruled out and that
    one's glance waits for more, see `_decide`): more input after which the choice
    would wait again is only buffered, without resuming the parser tree. It tells from the
    plans the choice made already (a window it has not planned for is left to the resume)."""

    __slots__ = ("alt", "pos")

    def __init__(self, alt: _Planned, pos: int) -> None:
        self.alt = alt
        self.pos = pos

    def absorb(self, inp: Input, text: str) -> tuple[str, int] | None:
        alt, pos = self.alt, self.pos
        start = pos - inp.base
        head = inp.buf[start:] + text  # all the input from `pos`: the choice waits on it
        learned = inp.learned  # its caches are the run's once it has learned
        plans = alt.plans if learned is None else learned.cache(alt, "plans", MEMO)
        planned = plans.get(head[0])
        if planned is None or len(head) >= planned[1]:
            return None
        windows = alt.windows if learned is None else learned.cache(alt, "windows", MEMO)
        if windows.get(head) is not _WAIT:
            return None
        inp.append(text)
        return "", pos


def _glanced(parser: Any, inp: Input, pos: int, width: int) -> Generator[int, None, Glance | None]:
    """`parser`'s glance at the `width` characters from `pos`; while it would only wait
    for more of them, this waits for them instead (running it would decide nothing). The
    glance is cached: calling it once more costs a lookup."""
    while True:
        at = pos - inp.base
        window = inp.buf[at : at + width]
        glance: Glance | None = parser.glance(window)
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
    def failure(parser: Any) -> Glance | None:
        glance = parser.glance(char)
        return glance if glance is not None and glance.fails else None

    return failure


def _failure_at_end(parser: Any) -> Glance | None:
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


class _Skipping(Many[Any]):
    """The attributes the shortcuts give it (for the type checker only)."""

    parser: Any
    skips: Cache[str, Glance | None]  # the repetition's failure by the character there
    waiting: bool  # the repetition waits for a character


def many_step(self: _Skipping, inp: Input, pos: int) -> Step[list[Any]]:
    """`Many.step`, where a repetition that the character at its start rules out, or that
    fails where the input has ended (`_failure_at_end`), is not run."""
    values: list[Any] = []
    keep, count = self.keep, 0
    while True:
        skips = self.skips if inp.learned is None else inp.learned.cache(self, "skips", MEMO)
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
                    raise glances.refused(pos, skip, glances.refuse(inp, pos, skip, record=False))
                glances.refuse(inp, pos, skip)
                return values, pos
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
        if keep:
            values.append(value)
        if end == pos:
            return values, pos
        pos = end


def _many_glance(self: Any, window: str) -> Glance | None:
    outcome, count = EMPTY, 0
    while True:
        glance: Glance | None = self.parser.glance(window[outcome.at :])
        if glance is None or glance.waits:
            return glance
        if glance.fails:
            return outcome.then(glance if count < self.minimum else glances.repeated(glance))
        outcome, count = outcome.then(glance), count + 1
        if glance.at == 0:
            return outcome


class _ReadingAhead(SeparatedRuns[Any]):
    """The attributes the shortcuts give it (for the type checker only)."""

    parser: Any
    rivals: tuple[Any, ...]
    separator: Any
    ahead: tuple[Any, ...]  # the rivals before the separator
    width: int  # the characters that decide whether the separator follows
    windows: Cache[str, bool]  # at a run's end: the separator follows
    skips: Cache[str, bool]  # the character after a separator: a run follows


def runs_step(self: _ReadingAhead, inp: Input, pos: int) -> Step[Any]:
    """`SeparatedRuns.step`, reading on: a separator follows where the characters at the
    run's end decide that the rivals before it fail and it matches (their glances); the
    next run, where the character after the separator rules out every rival. Elsewhere it
    ends, and the loop goes on there. The value is the last run's. A run after the first
    that fails before a cut ends it before that run (the loop then tries that position)."""
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
                raise commit_failure(failure) from None
            inp.abandon(failure)
            return value, start
        if choice is not None:
            inp.close_choice(choice, keep_output=True)
        at = end - inp.base
        window = inp.buf[at : at + self.width]
        learned = inp.learned  # its caches are the run's once it has learned
        windows = self.windows if learned is None else learned.cache(self, "windows", MEMO)
        follows = windows.get(window)
        if follows is None:
            follows = windows.keep(window, _separated(self, window))
        if not follows:
            return value, end
        _, start = yield from self.separator.step(inp, end)
        while (at := start - inp.base) == len(inp.buf):
            if inp.eof:
                return value, start
            yield start  # as the loop waits for the character
        char = inp.buf[at]
        learned = inp.learned
        skips = self.skips if learned is None else learned.cache(self, "skips", MEMO)
        free = skips.get(char)
        if free is None:
            free = skips.keep(char, all(_fails(rival.glance(char)) for rival in self.rivals))
        if not free:
            return value, start
        choice = inp.open_choice(start)


def _separated(self: _ReadingAhead, window: str) -> bool:
    """Whether the separator follows a run ending where the input starts with `window`."""
    glance = self.separator.glance(window[: self.separator.reach()])
    if glance is None or glance.fails or glance.waits:
        return False
    return all(_fails(rival.glance(window[: rival.reach()])) for rival in self.ahead)


def _fails(glance: Glance | None) -> bool:
    return glance is not None and glance.fails


def _peek_glance(self: Any, window: str) -> Glance | None:
    glance = self.parser.glance(window)
    return None if glance is None else glance.forgotten()


def not_followed_step(self: Any, inp: Input, pos: int) -> Step[None]:
    """`NotFollowedBy.step`, decided by the parser's glance where its first characters
    decide it (it waits for them meanwhile)."""
    parser, at = self.parser, pos - inp.base
    glance = parser.glance(inp.buf[at : at + parser.reach()])
    if glance is not None and glance.waits and not inp.eof:
        glance = yield from _glanced(parser, inp, pos, parser.reach())
    if glance is not None and not glance.waits:  # decided by the first characters
        if glance.expected is not None:
            return None, pos
        raise Backtrack(pos, self.expected)
    return (yield from NOT_FOLLOWED_BY(self, inp, pos))


def _not_followed_glance(self: Any, window: str) -> Glance | None:
    glance: Glance | None = self.parser.glance(window)  # what it records is forgotten
    if glance is None or glance.waits:
        return glance
    return EMPTY if glance.fails else failing(self.expected)


def _cached(fn: Any) -> functools.cached_property[Any]:
    return functools.cached_property(fn)


NOT_FOLLOWED_BY = NotFollowedBy.step

install(Alt, "step", alt_step)
install(Alt, "undecided", _cached(lambda self: tuple((parser, 0) for parser in self.tried)))
install(Alt, "plans", _cached(lambda self: Cache(MEMO)))
install(Alt, "windows", _cached(lambda self: Cache(MEMO)))
install(Alt, "waiting", _cached(lambda self: self.parsers[0].waits()))
analysis(Alt, "_glance", _alt_glance)
analysis(Alt, "_reach", lambda self: max(parser.reach() for parser in self.parsers))
analysis(Alt, "deciders", _alt_deciders)
analysis(Alt, "waits", lambda self: self.parsers[0].waits())

install(Many, "step", many_step)
install(Many, "skips", _cached(lambda self: Cache(MEMO)))
install(Many, "waiting", _cached(lambda self: self.parser.waits()))
analysis(Many, "_glance", _many_glance)

install(SeparatedRuns, "step", runs_step)
install(
    SeparatedRuns, "ahead", _cached(lambda self: self.rivals[: self.rivals.index(self.separator)])
)
install(
    SeparatedRuns,
    "width",
    _cached(lambda self: max(parser.reach() for parser in (*self.ahead, self.separator))),
)
install(SeparatedRuns, "windows", _cached(lambda self: Cache(MEMO)))
install(SeparatedRuns, "skips", _cached(lambda self: Cache(MEMO)))
install(
    SeparatedRuns, "_glance", lambda self, window: glances.before_value(self.parser.glance(window))
)

analysis(Peek, "_glance", _peek_glance)
analysis(Peek, "deciders", wrapped_deciders)
install(NotFollowedBy, "step", not_followed_step)
analysis(NotFollowedBy, "_glance", _not_followed_glance)
