"""Outcomes of a parse: the status of a run, failures, and the error users see."""

from __future__ import annotations

import enum
from collections.abc import Iterable

from typing_extensions import Self


class Status(enum.Enum):
    """Where a resumable run stands after a `feed` or `finish`."""

    NEED_MORE = "need more"
    DONE = "done"
    FAILED = "failed"


NEED_MORE = Status.NEED_MORE
DONE = Status.DONE
FAILED = Status.FAILED


class UsageError(Exception):
    """The caller misused the API (fed a finished run, asked for a value that is not there)."""


class ParseFailure(Exception):
    """Raised inside the parser tree; never escapes a `Run`.

    `position` is the first stream offset where no continuation could be valid, `expected`
    the descriptions of what would have been valid there, `context` the tags that were open,
    innermost first (each enclosing `tag` adds its name on the way out).
    """

    def __init__(self, position: int, expected: Iterable[str]) -> None:
        super().__init__(position)
        self.position = position
        expected = tuple(expected)
        self.expected = tuple(dict.fromkeys(expected)) if len(expected) > 1 else expected
        self.context: list[str] = []

    def detach(self) -> Self:
        """Drop what the raise attached: the traceback (the frames it crossed, whose locals
        hold earlier failures) and the exception it was raised while handling (with its own
        traceback). A failure kept after its raise (for error reports, in a result) is
        detached, or it would keep every failure before it alive: memory, and garbage
        collection time, growing with the input."""
        self.__traceback__ = None
        self.__context__ = None
        self.__cause__ = None
        return self

    def merge(self, other: Self) -> Self:
        """The furthest of two failures; at the same position, their expectations combined
        (this failure itself when it expects all `other` does)."""
        if other.position > self.position:
            return other
        if other.position == self.position and other.expected != self.expected:
            expected = self.expected
            if all(item in expected for item in other.expected):
                return self
            merged = type(self)(self.position, expected + other.expected)
            merged.context = self.context
            return merged
        return self


class Backtrack(ParseFailure):
    """No match here: an enclosing alternative may try another branch."""


class Committed(ParseFailure):
    """A failure after a `cut`: no enclosing alternative may backtrack over it."""


def describe_expected(expected: tuple[str, ...]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    if not expected:
        return "nothing"
    if len(expected) == 1:
        return expected[0]
    return ", ".join(expected[:-1]) + " or " + expected[-1]


class ParseError(Exception):
    """A failed parse as the user sees it: where, what was expected, what arrived."""

    def __init__(
        self,
        position: int,
        line: int,
        column: int,
        expected: str,
        got: str,
        context: tuple[str, ...] = (),
        committed: bool = False,
    ) -> None:
        self.position = position
        self.line = line
        self.column = column
        self.expected = expected
        self.got = got
        self.context = context
        self.committed = committed
        super().__init__(str(self))

    def __str__(self) -> str:
        inside = f" (inside {' > '.join(self.context)})" if self.context else ""
        return f"at {self.line}:{self.column}{inside}: expected {self.expected}, got {self.got}"

    @property
    def at_end_of_input(self) -> bool:
        """True when the input ended while a construct was still open (a truncation)."""
        return self.got == END_OF_INPUT


END_OF_INPUT = "end of input"
