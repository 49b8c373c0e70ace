"""Runs of the session's item log that repeat, kept as one period.

A model stuck on a stop marker (`<|im_end|>` over and over, MiniMax-M2's `[e~[` between two
characters of text) gives the item log the same few entries again and again, each time a
few characters further on: a tuple per node and piece of text, about 200 bytes per
repetition. `blocks` cuts the entries the log seals into plain tuples and `Repeated` runs,
which read back as exactly the entries they stand for, so the tree, the indices into the
log and everything read from it stay what they were.

An entry is a tuple whose second field is its stream offset (see `session._ItemLog`); two
entries are the same but for where they stand when every other field is equal and is a
string or None, so a run stands for exactly the values it read (`1 == 1.0 == True`), and
never shares a mutable one between nodes.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator, Sequence
from typing import Any

Entry = tuple[Any, ...]

LONGEST = 6
"""The most entries one period has (MiniMax-M2's repeated stop takes five)."""
_COMMON = 60
"""A multiple of every period up to `LONGEST`: a run repeats at this distance too."""
LEAST = 32
"""The fewest entries a run is worth keeping as a period (fewer stay tuples)."""
_ATOMS = (str, type(None))


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
    least `LEAST` entries. Runs are looked for only where the entries' first fields repeat
    at the distance `_COMMON` (found by a C-level pass), so a run shorter than that is
    left as tuples."""
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
    """1 at each entry where a run may start: from there on, each entry's first field is
    that of the entry `_COMMON` on, for at least `LEAST` entries; else 0."""
    heads = list(map(_first, entries))
    hot = bytearray(len(entries))
    same = bytes(map(operator.eq, heads, heads[_COMMON:]))
    for found in re.finditer(b"\\x01{%d,}" % LEAST, same):
        hot[found.start() : found.end()] = b"\x01" * (found.end() - found.start())
    return hot


_first = operator.itemgetter(0)


def _run(entries: list[Entry], at: int) -> tuple[int, int, int] | None:
    """The shortest period of at most `LONGEST` entries that repeats from `at` over at
    least `LEAST` entries, with its stride and how many times it repeats; or None. An
    entry repeats the one a period before it when it is the same but `stride` characters
    on (see the module docstring)."""
    end = len(entries)
    first = entries[at]
    for period in range(1, LONGEST + 1):
        if at + max(2 * period, LEAST) > end:
            return None
        other = entries[at + period]
        stride = other[1] - first[1]
        if other[0] != first[0] or stride < 0 or not _atoms(entries[at : at + period]):
            continue
        following = _repeated_to(entries, at + period, period, stride)
        times = (following - at) // period
        if period * times >= LEAST:
            return period, stride, times
    return None


def _repeated_to(entries: list[Entry], start: int, period: int, stride: int) -> int:
    """Where the entries from `start` stop repeating the ones a period before them:
    checked by C-level passes over doubling stretches, entry by entry only in the
    stretch where they stop."""
    end, size = len(entries), LEAST
    while start < end:
        stop = min(start + size, end)
        now, before = entries[start:stop], entries[start - period : stop - period]
        if (
            list(map(_first, now)) == list(map(_first, before))
            and list(map(_tail, now)) == list(map(_tail, before))
            and list(map(operator.sub, map(_second, now), map(_second, before))).count(stride)
            == stop - start
        ):
            start, size = stop, 2 * size
            continue
        for entry, model in zip(now, before, strict=True):
            if entry[1] - model[1] != stride or entry[0] != model[0] or entry[2:] != model[2:]:
                return start
            start += 1
    return start


_second = operator.itemgetter(1)
_tail = operator.itemgetter(slice(2, None))


def _atoms(period: list[Entry]) -> bool:
    """Whether the entries' fields after the position are strings or None only."""
    return all(type(field) in _ATOMS for entry in period for field in entry[2:])
