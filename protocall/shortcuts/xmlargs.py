"""The XML-style arguments' shortcuts: waits that take the common delta without resuming the
parser (a marker still arriving, a key or attributes still growing, more of a value), and
the layouts' compiled terminators kept per layout.

Each wait does what the plain one in `protocall.values.xmlargs` does with the deltas it
takes (they only buffer, or stream more of the value as the resumed scan would); the others
resume the parser. `registry.disabled()` turns them off.
"""

from __future__ import annotations

import re

from ..combinators.stream import Input
from ..values.xmlargs import (
    ATTRIBUTE,
    ATTRIBUTE_PREFIX,
    Layout,
    Resumable,
    Terminators,
    ValueText,
    XmlArguments,
)
from .absorbers import APPENDED, PartialMarker, Scanning, TokenWait, held_prefix, marker_starts
from .cache import Cache
from .registry import install

# Complete attributes, then the start of one: what a tag still waiting for its close may be.
_ATTRIBUTES_SO_FAR = re.compile(rf"(?:{ATTRIBUTE.pattern})*(?P<tail>{ATTRIBUTE_PREFIX.pattern})")


class _AttributesWait:
    """A tag's attributes still arriving, from `start` (they emit nothing until the tag
    closes): input that keeps them complete attributes then the start of one is only
    buffered. Each delta is matched from the last, unfinished attribute on, and one inside
    a quoted value that brings no quote is taken at once, so a long value costs its length
    once."""

    __slots__ = ("quoted", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.quoted = False

    def absorb(self, inp: Input, more: str) -> tuple[str, int] | None:
        if self.quoted and '"' not in more:
            inp.append(more)
            return "", self.start
        inp.append(more)
        buf = inp.buf
        match = _ATTRIBUTES_SO_FAR.match(buf, self.start - inp.base)
        if match is None or match.end() < len(buf):
            return APPENDED
        self.start = inp.base + match.start("tail")
        self.quoted = '"' in match.group("tail")
        return "", self.start


def _wait_marker(
    self: XmlArguments, inp: Input, options: tuple[str, ...], pos: int, keep: int
) -> Resumable[None]:
    inp.fast = PartialMarker(options, pos)
    yield keep
    inp.fast = None


def _wait_key(self: XmlArguments, inp: Input, pos: int, keep: int) -> Resumable[None]:
    inp.fast = TokenWait(self.terminators.key_run, pos, run=True)
    yield keep
    inp.fast = None


def _wait_attributes(self: XmlArguments, inp: Input, cursor: int, keep: int) -> Resumable[None]:
    # While attribute text reaches the end, `key_close` cannot have started (so the wait
    # is a token wait) unless it starts like an attribute name.
    if _ATTRIBUTE_NAME_START.match(self.layout.key_close) is None:
        inp.fast = _AttributesWait(cursor)
    yield keep
    inp.fast = None


_ATTRIBUTE_NAME_START = re.compile("[A-Za-z_]")


def _wait_value(self: XmlArguments, inp: Input, state: ValueText) -> Resumable[None]:
    inp.fast = state if isinstance(state, Scanning) else None
    yield state.emitted
    inp.fast = None


_Absorbing = tuple[tuple[re.Pattern[str], str | None], re.Pattern[str]]
"""A layout's `marker_starts` and held tail (see `_absorbing`)."""


def _value_text(self: XmlArguments, start: int, streamed: bool) -> ValueText:
    """A `Scanning` (which reads and keeps the text as `ValueText` does): the absorber
    `_wait_value` leaves, taking plain deltas and those that keep a tail held."""
    starts, held = _absorbing(self.layout, self.terminators)
    marks = self.terminators
    scanning = Scanning(
        starts,
        start,
        emit=streamed,
        escape=True,
        held=held,
        scan=(marks.find, marks.scan),
        framing=self.layout.framing_newlines,
    )
    return scanning


def _absorbing(
    layout: Layout, marks: Terminators
) -> tuple[tuple[re.Pattern[str], str | None], re.Pattern[str]]:
    """What can start a terminator, or the framing newline held before one (or at the end);
    and a held tail (a terminator prefix, after the framing newline) that input keeps held."""
    found = _ABSORBING.get(layout)
    if found is None:
        framing = layout.framing_newlines
        starts = marker_starts(frozenset([*marks.kinds, *["\n<"] * framing]))
        found = _ABSORBING.keep(layout, (starts, held_prefix(marks.kinds, newline=framing)))
    return found


_ABSORBING: Cache[Layout, _Absorbing] = Cache(256)
_TERMINATORS: Cache[Layout, Terminators] = Cache(256)


def _compile(layout: Layout) -> Terminators:
    """The layout's terminators, compiled once per layout (grammars, and so argument
    parsers, are built per session and per tool)."""
    found = _TERMINATORS.get(layout)
    return found if found is not None else _TERMINATORS.keep(layout, Terminators(layout))


install(XmlArguments, "compile", staticmethod(_compile))
install(XmlArguments, "value_text", _value_text)
install(XmlArguments, "wait_marker", _wait_marker)
install(XmlArguments, "wait_key", _wait_key)
install(XmlArguments, "wait_attributes", _wait_attributes)
install(XmlArguments, "wait_value", _wait_value)
