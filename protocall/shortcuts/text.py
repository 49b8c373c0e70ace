"""The text scan's shortcuts: `until` emits each delta without a resume where no marker
can start in it (the `Scanning` absorber), and reads a text marker as text at once where
the guard's glance (or, where that is undecided, its deciders' `fails_at`) tells that the
guard fails there, instead of stopping for the grammar to try the guard."""

from __future__ import annotations

import functools
from typing import Any

from ..combinators.parser import Parser, Step
from ..combinators.result import Backtrack
from ..combinators.stream import Input, new_text
from ..combinators.tags import JsonEscaped, escaped
from ..combinators.text import Until
from .absorbers import HeldTail, Scanning, marker_starts
from .cache import Cache
from .glance import EMPTY, WAITING, Glance, failing
from .learned import running
from .registry import analysis, install

WINDOWS = 256
"""Windows whose verdict or deciders a scan keeps."""
_UNSEEN: Any = object()


class _Checking(Until):
    """The attributes the shortcuts give an `Until` (for the type checker only)."""

    guard: Any
    starts: Any  # see `marker_starts`
    held: HeldTail
    reach_guard: int  # the guard's reach
    windows: Cache[str, bool | tuple[Parser[Any], ...] | None]  # see `marker_is_text`
    marker_is_text: Any  # installed: see the function


def until_step(self: _Checking, inp: Input, pos: int) -> Step[str]:
    """`Until.step`, emitting each delta that needs no resume from its absorber
    (`Scanning`: all that one delta decides is one `Text` item, text markers included),
    and reading a text marker as text, the scan going on after it, where
    `marker_is_text` tells that the guard fails there: while the characters that decide
    have not arrived, the scan waits, holding the marker; where the guard is undecided,
    it stops there as the plain scan does."""
    find, scan_open, emit = self.find, self.scan, self.emit
    checks = None if self.guard is None else self
    state = Scanning(
        self.starts, pos, emit=emit, held=self.held, scan=(find, scan_open), until=checks
    )
    shown = pos  # the text before is in `Text` items; up to `state.emitted` it is decided
    while True:
        inp.fast = None
        checked = -1  # where this pass found the guard to fail: a marker there is text
        if state.starter == "":  # after a text marker, as a choice there would try the guard
            check = state.emitted
            verdict = self.marker_is_text(inp, check - inp.base, inp.eof)
            if verdict is False:
                _show(inp, shown, check, emit)
                return state.text(), check
            if verdict is None:
                _show(inp, shown, check, emit)
                inp.fast = state
                yield check
                shown = state.emitted  # what an absorber took, it emitted
                continue
            state.starter = state.shared_first
            checked = check
        emitted = state.emitted  # the search resumes there: what follows is undecided
        buf, base, eof = inp.buf, inp.base, inp.eof
        size = len(buf)
        match = (find if eof else scan_open).search(buf, emitted - base)
        if match is None:
            limit, found = base + size, False
        else:
            limit = base + match.start()
            found = eof or match.end() < size or find.fullmatch(match.group()) is not None
        if limit > emitted:
            if emitted == pos and self.commit:
                inp.cut()
            state.add(buf[emitted - base : limit - base])
            emitted = limit
        if found and match is not None and match.group() in self.text_markers:
            verdict = True if limit == checked else self.marker_is_text(inp, limit - base, eof)
            if verdict:
                if emitted == pos and self.commit:
                    inp.cut()
                marker = match.group()
                state.add(marker)
                state.emitted, state.starter = limit + len(marker), ""  # check next
                continue
            if verdict is None:  # the characters that decide have not arrived
                state.emitted = emitted
                _show(inp, shown, emitted, emit)
                inp.fast = state  # which rescans the marker with the next delta
                yield emitted
                shown = state.emitted
                continue
        _show(inp, shown, emitted, emit)
        if found or eof:
            if limit == pos and self.nonempty:
                raise Backtrack(pos, ("text",))
            if not found and self.required:
                raise Backtrack(limit, self.expected)
            return state.text(), limit
        state.emitted = emitted
        if emitted > pos or not self.commit:
            inp.fast = state
        yield emitted
        shown = state.emitted


def marker_is_text(self: _Checking, inp: Input, at: int, eof: bool = False) -> bool | None:
    """Whether the marker found at `at` of `inp`'s buffer is text (see `text_markers`), and
    after one whether the scan goes on: True where the guard's glance at the characters
    there fails before the end of the input received (`eof`: all of it), None while it
    waits for more of them (as a choice would before running the guard), False
    otherwise. Where the glance is undecided, the guard's deciders tell (see
    `_deciders_fail`). What a window decides, or the deciders it leaves, is kept per window."""
    guard, reach = self.guard, self.reach_guard
    assert guard is not None
    text = inp.buf
    if at == len(text):
        return eof or None
    window = text[at : at + reach]
    learned = inp.learned
    windows = self.windows if learned is None else learned.cache(self, "windows", WINDOWS)
    known = windows.get(window, _UNSEEN)
    if known is _UNSEEN:
        outer = running.learned  # an absorber asks outside the run's advance
        running.learned = learned
        try:
            glance = guard.glance(window)
            deciders = guard.deciders(window) if glance is None else None
        finally:
            running.learned = outer
        if glance is not None and glance.waits:
            return None if len(window) < reach and not eof else False
        # failing at the end of a finished stream, a region may be cut off, not text
        decided = glance is not None and glance.fails and glance.at < len(window)
        known = windows.keep(window, decided if glance is not None else deciders)
    if type(known) is bool:
        return known
    return _deciders_fail(self, inp, inp.base + at, known)


def _deciders_fail(self: Any, inp: Input, at: int, deciders: tuple[Any, ...] | None) -> bool | None:
    """Where the guard's glance is undecided: True where the parsers its failure rests
    on (`deciders`) all tell that they fail at `at` (`fails_at`), None while one
    waits for more input to tell, False otherwise."""
    if not deciders:
        return False
    verdict: bool | None = True
    for parser in deciders:
        fails = parser.fails_at(inp, at)
        if fails is False:
            return False
        if fails is None:
            verdict = None
    return verdict


def _until_glance(self: _Checking, window: str) -> Glance | None:
    found = self.find.match(window)
    if found is None:  # text, or a marker whose start is all the window holds
        return WAITING if self.held.fullmatch(window) else None
    if found.group() in self.text_markers:  # as `marker_is_text` decides: text, wait, or a marker
        assert self.guard is not None
        reach = self.guard.reach()
        glance = self.guard.glance(window[:reach])
        if glance is not None and glance.waits and len(window) < reach:
            return WAITING
        if glance is not None and not glance.waits and glance.fails:
            return None  # text: the scan goes on after it
        if glance is None and self.guard.deciders(window[:reach]):
            return None  # text where they tell the guard fails (`_deciders_fail`)
    return failing(("text",)) if self.nonempty else EMPTY  # a marker right here


def _until_reach(self: Any) -> int:
    longest = max(map(len, self.markers))
    return longest if self.guard is None else max(longest, self.guard.reach())


def _show(inp: Input, start: int, end: int, emit: bool) -> None:
    """Emit the text decided from `start` to `end` (in the buffer) as one `Text` item."""
    if end > start and emit:
        inp.out.append(new_text((inp.buf[start - inp.base : end - inp.base], start)))


def json_escaped_step(self: JsonEscaped[Any], inp: Input, pos: int) -> Step[Any]:
    """`JsonEscaped.step`, where the scan its parser leaves suspended (an `until`'s
    `Scanning`) escapes the deltas it emits without a resume, as the step escapes the rest."""
    return (yield from escaped(inp, self.parser.step(inp, pos), _escaping))


def _escaping(inp: Input) -> None:
    if isinstance(inp.fast, Scanning):
        inp.fast.escape = True


install(Until, "step", until_step)
install(JsonEscaped, "step", json_escaped_step)
install(
    Until, "starts", functools.cached_property(lambda self: marker_starts(frozenset(self.markers)))
)
install(Until, "held", functools.cached_property(lambda self: HeldTail(self.find, self.scan)))
install(Until, "reach_guard", functools.cached_property(lambda self: self.guard.reach()))
install(Until, "marker_is_text", marker_is_text)
install(Until, "windows", functools.cached_property(lambda self: Cache(WINDOWS)))
analysis(Until, "_glance", _until_glance)
analysis(Until, "_reach", _until_reach)
analysis(Until, "waits", lambda self: True)
