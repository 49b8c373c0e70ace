"""The shared input of a parse: a sliding text buffer, the choice stack and the output.

Positions are absolute stream offsets. The buffer holds the text from `base` on; text before
the lowest position anything may still read (an undecided choice, or the innermost parser's
own position) is dropped, so memory stays bounded by the undecided region.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from .result import Backtrack

if TYPE_CHECKING:
    from .result import ParseFailure


class Open(NamedTuple):
    """A tagged node starts at `start`."""

    tag: str
    start: int


class Text(NamedTuple):
    """Streamed text of the innermost open node, from stream offset `start`."""

    text: str
    start: int


class Close(NamedTuple):
    """The innermost open node, tagged `tag`, ends at `end` with parse value `value`."""

    tag: str
    end: int
    value: Any


Item = Open | Text | Close

new_text: Callable[[tuple[str, int]], Text] = functools.partial(tuple.__new__, Text)
"""`Text` from its `(text, start)` fields, without `NamedTuple.__new__`'s Python-level call
(the hot paths build one per delta)."""
new_open: Callable[[tuple[str, int]], Open] = functools.partial(tuple.__new__, Open)
"""`Open` from its `(tag, start)` fields, as `new_text` (a tag builds one per node)."""
new_close: Callable[[tuple[str, int, Any]], Close] = functools.partial(tuple.__new__, Close)
"""`Close` from its `(tag, end, value)` fields, as `new_text`."""

Far = tuple[int, tuple[str, ...], list[str]]
"""The furthest failure's position, expectations and context list (see `Input.far`)."""


RELEASE = 256
"""Characters of decided text a buffer keeps before it drops them (a parser releases from
there on, not on every delta: dropping copies the rest of the buffer)."""


class Choice:
    """An undecided backtrack point: its start must stay in the buffer, its output is held.

    A `barrier` (opened by `recover`) never backtracks once committed; while it is open the
    raw text from its start is kept, even after the buffer drops it, for the error report.
    `shared` counts the choices opened inside it that are this one (see `open_choice`).
    """

    __slots__ = ("barrier", "committed", "out", "shared", "start")

    def __init__(self, start: int, barrier: bool = False) -> None:
        self.start = start
        self.out: list[Item] = []
        self.committed = False
        self.barrier = barrier
        self.shared = 0


class Input:
    """Buffer, end-of-stream flag, choice stack and output list shared by a parser tree.

    `fast`, `learned` and `local` are the run's state for the shortcuts
    (`protocall.shortcuts`): the absorber the suspended parser left, what the run learned
    about its input, the state parsers keep for the run (by parser). The core leaves them
    alone, so that the grammar itself holds no run's state. `max_depth` is the run's own
    bound on how deep values nest (None: the value parsers' own bounds hold), which a
    session sets (see `protocall.values.depth`)."""

    __slots__ = (
        "_captures",
        "_dropped",
        "_line_start",
        "_lines",
        "base",
        "buf",
        "choices",
        "eof",
        "far",
        "fast",
        "learned",
        "local",
        "max_depth",
        "out",
        "root",
        "transcript",
    )

    def __init__(self) -> None:
        self.buf = ""
        self.base = 0
        self.eof = False
        self.fast: Any = None
        self.root: list[Item] = []
        self.out: list[Item] = self.root
        self.choices: list[Choice] = []
        # The furthest failure, kept as its fields: (position, expected, context list).
        self.far: Far | None = None
        self._lines = 1
        self._line_start = 0
        self._captures = 0
        self._dropped: list[str] = []
        # Where dropped text goes when a consumer keeps the whole stream (see `release`).
        self.transcript: list[str] | None = None
        self.learned: Any = None
        self.local: dict[Any, Any] = {}
        self.max_depth: int | None = None

    @property
    def end(self) -> int:
        """Stream offset just past the last character received."""
        return self.base + len(self.buf)

    def text(self, start: int, end: int) -> str:
        """Text between two offsets that are still in the buffer."""
        return self.buf[start - self.base : end - self.base]

    # -- choices -------------------------------------------------------------------------

    def open_choice(self, start: int, barrier: bool = False) -> Choice:
        """A new innermost choice from `start`; or the innermost one, undecided, when it
        starts there too and holds nothing yet (a choice in a choice, as a repetition's
        alternatives): it then holds, drops and commits exactly what a new one would."""
        choices = self.choices
        if choices and not barrier:
            inner = choices[-1]
            if inner.start == start and not (inner.out or inner.committed or inner.barrier):
                inner.shared += 1
                return inner
        choice = Choice(start, barrier)
        if barrier:
            if not self._captures:
                self._dropped.clear()
            self._captures += 1
        self.choices.append(choice)
        self.out = choice.out
        return choice

    def close_choice(self, choice: Choice, keep_output: bool) -> None:
        """Pop `choice` (the innermost); flush its held output to the parent or drop it."""
        if choice.shared:  # it stays open for the choice it is
            choice.shared -= 1
            if not keep_output and not choice.committed:
                choice.out.clear()
            return
        popped = self.choices.pop()
        assert popped is choice
        parent = self.choices[-1].out if self.choices else self.root
        if choice.barrier:
            self._captures -= 1
        if keep_output and choice.out is not parent:
            parent.extend(choice.out)
        self.out = parent

    @property
    def furthest(self) -> ParseFailure | None:
        """The furthest failure the choices backtracked over (the input was viable up to
        its position), with the expectations of every failure recorded there, or None."""
        far = self.far
        if far is None:
            return None
        failure = Backtrack(far[0], far[1])
        failure.context = far[2]
        return failure

    def abandon(self, failure: ParseFailure) -> None:
        """Remember a failure a choice backtracked over: a parse that fails short of its
        position reports the error there. The failure is detached (`ParseFailure.detach`):
        the choice may keep it to raise later."""
        failure.detach()
        self.record(failure.position, failure.expected, failure.context)

    def record(self, at: int, expected: tuple[str, ...], context: Any) -> None:
        """`abandon` of a failure at `at` expecting `expected` inside `context` (a list,
        shared, or a tuple to copy): the furthest failure is the later one; at the same
        position, it expects what both expect (in order, once), with the first's context."""
        far = self.far
        if far is None or far[0] < at:
            if len(expected) > 1:
                expected = tuple(dict.fromkeys(expected))
            self.far = (at, expected, context if type(context) is list else list(context))
        elif far[0] == at and far[1] != expected:
            known = far[1]
            if not all(item in known for item in expected):
                self.far = (at, tuple(dict.fromkeys(known + expected)), far[2])

    def cut(self) -> None:
        """Commit every open choice: none of them may backtrack any more, and the output
        they held becomes final. (Committed choices always form the bottom of the stack.)"""
        for choice in self.choices:
            if not choice.committed:
                self.root.extend(choice.out)
                choice.out = self.root
                choice.committed = True
        self.out = self.root

    # -- buffer --------------------------------------------------------------------------

    def append(self, text: str) -> None:
        """Add `text` to the buffer, in place when nothing else refers to it (CPython then
        grows the string instead of copying it: a long undecided region, which stays
        buffered, costs each delta its own length, not the region's)."""
        buf = self.buf
        self.buf = ""
        buf += text
        self.buf = buf

    def release(self, keep: int) -> None:
        """Drop buffered text before `keep` and before every undecided choice's start (to
        `transcript`, when a consumer keeps the whole stream there)."""
        if keep - self.base < RELEASE:
            return
        for choice in self.choices:
            if not choice.committed:
                keep = min(keep, choice.start)
                break
        drop = keep - self.base
        if drop < RELEASE or drop < len(self.buf) // 2:
            return
        gone = self.buf[:drop]
        if self.transcript is not None:
            self.transcript.append(gone)
        newlines = gone.count("\n")
        if newlines:
            self._lines += newlines
            self._line_start = self.base + gone.rfind("\n") + 1
        if self._captures:
            self._dropped.append(gone)
        else:
            self._dropped.clear()
        self.buf = self.buf[drop:]
        self.base = keep

    def raw(self, start: int, end: int) -> str:
        """Text from `start` (an open barrier's start or later) to `end`, dropped or not."""
        if start >= self.base:
            return self.text(start, end)
        dropped = "".join(self._dropped)
        dropped_from = self.base - len(dropped)
        if end <= self.base:  # all of it dropped
            return dropped[start - dropped_from : end - dropped_from]
        return dropped[start - dropped_from :] + self.text(self.base, end)

    def line_column(self, position: int) -> tuple[int, int]:
        """1-based line and column of a stream offset (exact while it is buffered)."""
        if position < self.base:
            return self._lines, 1
        before = self.buf[: position - self.base]
        newlines = before.count("\n")
        if newlines:
            return self._lines + newlines, len(before) - before.rfind("\n")
        return self._lines, position - self._line_start + 1
