"""What a parser does where a few characters decide it: the shortcut `alt` takes.

A model stuck in a loop makes a choice try every branch at every repetition, and most
branches fail within their first few characters (a call head at a `<` that opens no call,
`<|tool_call>` at `<|<|`). `Parser.glance(window)` tells, from the grammar alone, what a
parser does at a position where the input starts with `window`, when those characters
decide it whatever follows them: it fails somewhere in them, or matches a part of them. A
choice then skips a branch that fails, recording the failure the branch would have
recorded and raising the one it would have raised (the same positions, expectations and
contexts, so errors read the same), without running it.

Failures recorded at several positions leave the same furthest failure as one record: the
furthest of them, with the expectations of all recorded there, in order, and the context
of the first recorded there. So a glance keeps that one record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..combinators.result import Backtrack, ParseFailure

if TYPE_CHECKING:
    from ..combinators.stream import Far, Input


class Record(NamedTuple):
    """A recorded failure at offset `at` expecting `expected`, with context `context`, or,
    when `context` is None, with the context list of the failure the parser raises."""

    at: int
    expected: tuple[str, ...]
    context: tuple[str, ...] | None


class Glance(NamedTuple):
    """A parser's outcome at a position whose first characters decide it: it records
    `record` (see `Record`; None: nothing) and raises a failure at offset `at` expecting
    `expected` inside `context` (innermost first), or, when `expected` is None, matches up
    to offset `at`."""

    at: int
    expected: tuple[str, ...] | None
    context: tuple[str, ...] = ()
    record: Record | None = None

    @property
    def fails(self) -> bool:
        return self.expected is not None

    @property
    def waits(self) -> bool:
        return self.at < 0 and self.expected is None

    def then(self, other: Glance) -> Glance:
        """This outcome (a match, whose record has a context of its own), then `other`'s
        where this one ends."""
        if other.waits:
            return other
        record = later(self.record, _moved(other.record, self.at))
        return other._replace(at=other.at + self.at, record=record)

    def tagged(self, name: str) -> Glance:
        """The outcome inside a node tagged `name`: a failure's context gains `name`."""
        if self.expected is None:
            return self
        return self._replace(context=(*self.context, name))

    def named(self, description: str) -> Glance:
        """The outcome under `desc(description)`: a failure expects the description."""
        if self.expected is None:
            return self
        return self._replace(expected=(description,))

    def forgotten(self) -> Glance:
        """The outcome of a lookahead: its records dropped, a match consuming nothing."""
        if self.waits:
            return self
        return Glance(self.at if self.fails else 0, self.expected, self.context)


def before_value(glance: Glance | None) -> Glance | None:
    """The outcome of a parser that continues with a parser chosen by `glance`'s value
    (`bind`, `dispatch`): decided only where that fails or waits."""
    return glance if glance is not None and (glance.fails or glance.waits) else None


def refused(pos: int, glance: Glance, context: list[str]) -> Backtrack:
    """The failure a parser that `glance` rules out at `pos` raises, inside `context` (as
    `refuse` gave it)."""
    failure = Backtrack(pos + glance.at, glance.expected or ())
    failure.context = context
    return failure


def refuse(inp: Input, pos: int, glance: Glance, record: bool = True) -> list[str]:
    """Do what a parser that `glance` rules out at `pos` would to the furthest failure:
    record the failures it records there (and the failure it raises, with `record`, as
    a choice that backtracks over it records it). Gives the context list of the failure
    it raises, which the furthest failure may share (`refused` builds that failure)."""
    context = list(glance.context)
    recorded = glance.record
    if recorded is not None:
        own = recorded.context
        inp.record(pos + recorded.at, recorded.expected, context if own is None else own)
    if record:
        inp.record(pos + glance.at, glance.expected or (), context)
    return context


def scratch_glance(raised: ParseFailure, far: Far | None) -> Glance:
    """The glance of a parser that raised `raised` on a scratch input, having recorded
    `far` there (a record whose context is the raised failure's is kept as None)."""
    record = None
    if far is not None:
        at, expected, context = far
        record = Record(at, expected, None if context is raised.context else tuple(context))
    return Glance(raised.position, raised.expected, tuple(raised.context), record)


def failing(expected: tuple[str, ...], at: int = 0) -> Glance:
    """A failure at offset `at` expecting `expected`, recording nothing."""
    return Glance(at, expected)


EMPTY = Glance(0, None)
"""A match of nothing, recording nothing."""
WAITING = Glance(-1, None)
"""The window is a proper prefix of what the parser needs: it would only wait for more
input (deciding, emitting and committing nothing meanwhile)."""


def choice(glances: list[Glance]) -> Glance:
    """The outcome of an ordered choice whose branches all fail but the last, whose outcome
    is the last glance: each failing branch's records, then its failure, are recorded;
    if the last fails as well, the furthest failure is raised (the first of those that got
    that far, with the expectations of all that did, as `Alt` merges them), whose context
    list is that first one's."""
    last = len(glances) - 1
    top = max(glance.at for glance in glances)
    raised = next(i for i, glance in enumerate(glances) if glance.at == top)
    if not glances[last].fails:
        raised = -1  # a match: every record has a context of its own
    record = None
    for index, glance in enumerate(glances):
        items = [glance.record]
        if index < last:
            items.append(Record(glance.at, glance.expected or (), None))
        for item in items:
            record = later(record, item if index == raised else _resolved(item, glance.context))
    if raised < 0:
        return Glance(glances[last].at, None, (), record)
    expected = _combined(*(glance.expected or () for glance in glances if glance.at == top))
    return Glance(top, expected, glances[raised].context, record)


def tried(glances: list[Glance]) -> Glance:
    """What trying branches that all fail does inside a choice, before its last branch:
    each branch's records, then its failure, are recorded; raised (should no later branch
    match), the furthest failure with the expectations of all that got that far."""
    return choice([*glances, Glance(-1, ())])


def repeated(glance: Glance) -> Glance:
    """The outcome of `many` (no minimum) whose first repetition fails with `glance`: that
    failure is recorded and the loop matches nothing."""
    if glance.expected is None:
        return glance
    return choice([glance, EMPTY])


def _moved(record: Record | None, offset: int) -> Record | None:
    return None if record is None else record._replace(at=record.at + offset)


def _resolved(record: Record | None, context: tuple[str, ...]) -> Record | None:
    """`record` with a context of its own (`context`, where it followed a failure's)."""
    if record is None or record.context is not None:
        return record
    return record._replace(context=context)


def later(first: Record | None, second: Record | None) -> Record | None:
    """The one record that `first` then `second` amount to (see the module docstring)."""
    if first is None or (second is not None and second.at > first.at):
        return second
    if second is None or second.at < first.at:
        return first
    return Record(first.at, _combined(first.expected, second.expected), first.context)


def _combined(*expectations: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for expected in expectations for item in expected))
