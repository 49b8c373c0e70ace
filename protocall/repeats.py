"""Runs of the session's item log that repeat, kept as one period.

A model stuck on a stop marker (`<|im_end|>` over and over, MiniMax-M2's `[e~[` between two
characters of text) gives the item log the same few entries again and again, each time a
few characters further on: a tuple per node and piece of text, about 200 bytes per
repetition. `blocks` cuts the entries the log seals into plain tuples and `Repeated` runs,
which read back as exactly the entries they stand for, so the tree, the indices into the
log and everything read from it stay what they were.

An entry is a tuple whose second field is its stream offset (see `session._ItemLog`); two
entries are the same but for where they stand when every other field is equal and is an
atom (a string, a number, None), so a run never shares a mutable value between nodes.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator, Sequence
from typing import Any

Entry = tuple[Any, ...]

LONGEST = 8
"""The most entries one period has (MiniMax-M2's repeated stop takes five)."""
LEAST = 32
"""The fewest entries a run is worth keeping as a period (fewer stay tuples)."""
_ATOMS = (str, int, float, bool, type(None))


class Repeated(Sequence[Entry]):
    """`times` periods of `period`, the k-th `k * stride` characters after the first."""

    __slots__ = ("period", "stride", "times")

    def __init__(self, period: tuple[Entry, ...], stride: int, times: int) -> None:
        self.period = period
        self.stride = stride
        self.times = times

    def __len__(self) -> int:
        return len(self.period) * self.times

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("entry index out of range")
        return self._entry(index)

    def __iter__(self) -> Iterator[Entry]:
        return (self._entry(i) for i in range(len(self)))

    def _entry(self, index: int) -> Entry:
        times, at = divmod(index, len(self.period))
        entry = self.period[at]
        return (entry[0], entry[1] + times * self.stride, *entry[2:])


def blocks(entries: list[Entry], size: int) -> Iterator[Sequence[Entry]]:
    """`entries` in order, as tuples of at most `size` entries and `Repeated` runs of at
    least `LEAST` entries. Only where the entries' first fields repeat at a distance of at
    most `LONGEST` over a run that long (found by C-level passes) are runs looked for."""
    start = 0
    end = len(entries)
    hot = _candidates(entries)
    at = hot.find(1)
    while 0 <= at < end:
        run = _run(entries, at)
        if run is None:
            at = hot.find(1, at + 1)
            continue
        period, stride, count = run
        for first in range(start, at, size):
            yield tuple(entries[first : min(first + size, at)])
        yield Repeated(tuple(entries[at : at + period]), stride, count)
        start = at + period * count
        at = hot.find(1, start)
    for first in range(start, end, size):
        yield tuple(entries[first : first + size])


def _candidates(entries: list[Entry]) -> bytearray:
    """1 at each entry where a run may start: its first field is that of the entry a
    period on, and so on for at least `LEAST` entries; else 0."""
    heads = list(map(_first, entries))
    hot = bytearray(len(entries))
    for period in range(1, LONGEST + 1):
        same = bytes(map(operator.eq, heads, heads[period:]))
        for found in re.finditer(b"\x01{%d,}" % (LEAST - period), same):
            hot[found.start() : found.end()] = b"\x01" * (found.end() - found.start())
    return hot


_first = operator.itemgetter(0)


def _run(entries: list[Entry], at: int) -> tuple[int, int, int] | None:
    """The shortest period of at most `LONGEST` entries that repeats from `at` over at
    least `LEAST` entries, with its stride and how many times it repeats; or None."""
    end = len(entries)
    first = entries[at]
    for period in range(1, LONGEST + 1):
        if at + max(2 * period, LEAST) > end:
            return None
        other = entries[at + period]
        if other[0] != first[0] or len(other) != len(first):
            continue
        stride = other[1] - first[1]
        if stride < 0:
            continue
        count = 1
        following = at + period
        while following + period <= end and all(
            _shifted(entries[following + k], entries[at + k], stride * count) for k in range(period)
        ):
            count += 1
            following += period
        if period * count >= LEAST:
            return period, stride, count
    return None


def _shifted(entry: Entry, model: Entry, by: int) -> bool:
    """Whether `entry` is `model`, `by` characters on, with atoms only."""
    return (
        len(entry) == len(model)
        and entry[1] == model[1] + by
        and entry[0] == model[0]
        and all(type(field) in _ATOMS for field in entry[2:])
        and entry[2:] == model[2:]
    )
