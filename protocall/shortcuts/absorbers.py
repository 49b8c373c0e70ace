"""Absorbers: how a suspended parser takes the common delta without a resume.

A parser waiting for more input may leave, in `Input.fast`, an absorber for the delta
that would only make it wait again (a marker still arriving, a token still growing, text
in which no marker can start). `Run.feed` (the shortcut in `run.py`) offers it the delta
first; the parser tree is resumed only when the absorber cannot tell.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import Any, Protocol

from ..combinators.stream import RELEASE, Input
from ..combinators.text import JOIN, Gathered, longest_first, proper_prefixes


class Absorber(Protocol):
    """A suspended parser's shortcut for the common delta: `absorb(inp, text)` appends the
    non-empty `text` to the buffer and does exactly what resuming the parser would do with
    it, except that the one text piece it emits is returned, as `(text, start)` (the fields
    of a `Text`; the text may be empty: nothing emitted), for the caller to append. It
    returns None, changing nothing, when the parser must be resumed to decide, or
    `APPENDED` when it appended `text` and the parser must be resumed to decide."""

    def absorb(self, inp: Input, text: str) -> tuple[str, int] | None: ...


APPENDED = ("", -1)
"""What an absorber returns that put the text in the buffer but leaves the parser to decide
what it does with it (see `Absorber`)."""


class PartialMarker:
    """A parser waiting at `pos` until it can tell which of `texts` starts there (a
    `literal`, the undecided text of `markers`, a choice of markers): while the text from
    `pos` is a proper prefix of one of them and none is complete, more input is only
    buffered, without resuming the parser tree."""

    __slots__ = ("held", "pos")

    def __init__(self, texts: tuple[str, ...], pos: int) -> None:
        self.held = _held(texts)
        self.pos = pos

    def absorb(self, inp: Input, more: str) -> tuple[str, int] | None:
        if self.held.fullmatch(inp.buf[self.pos - inp.base :] + more) is None:
            return None
        inp.append(more)
        return "", self.pos


def held_prefix(markers: Iterable[str], newline: bool = False) -> re.Pattern[str]:
    """A regex whose `fullmatch` tells a held tail that is still only a proper prefix of
    one of `markers`, none of them complete at its start (with `newline`, after an optional
    leading newline too: a framing newline held with the prefix)."""
    ordered = longest_first(markers)
    prefix = f"(?!{ordered})(?:{proper_prefixes(sorted(markers)) or '(?!)'})"
    return re.compile(f"(?!{ordered})\\n?{prefix}" if newline else prefix)


_held = functools.lru_cache(maxsize=1024)(held_prefix)


class HeldTail:
    """`held_prefix` of an `until`'s markers, told by the two regexes its scan compiled
    (`find`, the markers; `scan`, a marker or a proper prefix of one that ends the text):
    the tail is held where no marker starts it and the whole of it is a proper prefix.
    Nothing more to compile per marker set."""

    __slots__ = ("find", "scan")

    def __init__(self, find: re.Pattern[str], scan: re.Pattern[str]) -> None:
        self.find = find
        self.scan = scan

    def fullmatch(self, tail: str) -> bool:
        return self.find.match(tail) is None and self.scan.fullmatch(tail) is not None


class TokenWait:
    """A `regex` waiting at `pos` while its match reaches the end of the input: more input
    over which the match still reaches the end is only buffered, without resuming the
    parser tree (the token is still growing, so the parser would wait again). For a `run`
    (one character class or character repeated: `[a-z_]+`, `\\s*`, `` `+ ``) only the new
    input is matched, so a token costs its length once however many deltas bring it."""

    __slots__ = ("pattern", "pos", "run")

    def __init__(self, pattern: re.Pattern[str], pos: int, run: bool = False) -> None:
        self.pattern = pattern
        self.pos = pos
        self.run = run

    def absorb(self, inp: Input, more: str) -> tuple[str, int] | None:
        if self.run:
            if self.pattern.fullmatch(more) is None:
                return None
            inp.append(more)
            return "", self.pos
        inp.append(more)
        buf = inp.buf
        match = self.pattern.match(buf, self.pos - inp.base)
        if match is None or match.end() < len(buf):
            return APPENDED
        return "", self.pos


@functools.lru_cache(maxsize=1024)
def marker_starts(markers: frozenset[str]) -> tuple[re.Pattern[str], str | None]:
    """How a `Scanning` tells that a delta may hold the start of one of `markers`: a regex
    that finds a marker's first two characters, or its first one at the end of the delta
    (or a one-character marker); and the first character all markers share, if they share
    one that is not whitespace, whose substring test (cheaper, coarser) replaces the regex."""
    alternatives = []
    for first in sorted({marker[0] for marker in markers}):
        seconds = "".join(sorted({m[1] for m in markers if m[0] == first and len(m) > 1}))
        if first in markers:
            alternatives.append(re.escape(first))
        else:
            alternatives.append(f"{re.escape(first)}(?:[{re.escape(seconds)}]|\\Z)")
    firsts = {marker[0] for marker in markers}
    starter = firsts.pop() if len(firsts) == 1 else None
    return re.compile(
        "|".join(alternatives)
    ), None if starter is None or starter.isspace() else starter


class Scanning(Gathered):
    """A text scan (an `until`, an XML argument value) suspended with all its text so far
    emitted: input in which none of the markers it seeks can start (`starts`, as given by
    `marker_starts`) is emitted at once, without resuming the parser tree (the common
    delta). With the scan's patterns (`scan`: the markers, and the search for a marker or a
    prefix of one that ends the input) it also takes input in which a marker may start but
    none is complete: emitted up to the prefix of one that ends it (and, with `framing`, a
    newline before that prefix, or at the end), the rest held back. Emitted text is the
    input itself, or with `escape` its JSON string escaping (without quotes); nothing with
    `emit=False`. Suspended with a tail held back, it takes input that keeps the tail held
    (`held`: `held_prefix`, or a `HeldTail`), emitting nothing, and, without `framing`, input
    that rules the tail out: the tail and it are then scanned as one delta, as above.
    With `until`, the `Until` whose scan it is, a text marker complete in the input is
    decided as the resumed scan would (`text.marker_is_text`, the delta put in the buffer
    first, so that the guard's deciders read it): scanned over as text, held back with
    what follows it while the characters that decide have not arrived, or left to the
    parser (`APPENDED`); so is, while the check is on, the text at `emitted` (right after
    such a marker, where the scan checks the guard). The check is on while `starter`, otherwise
    the first character all markers share (`shared_first`) if any, is "": the empty
    string is in every delta, so each takes the scanning path, and the common path tests
    nothing more.

    The text so far is `Gathered` (a long span costs about its own size in memory)."""

    __slots__ = (
        "emit",
        "emitted",
        "escape",
        "framing",
        "held",
        "scan",
        "shared_first",
        "starter",
        "starters",
        "until",
    )

    def __init__(
        self,
        starts: tuple[re.Pattern[str], str | None],
        pos: int,
        *,
        emit: bool = True,
        escape: bool = False,
        held: re.Pattern[str] | HeldTail,
        scan: tuple[re.Pattern[str], re.Pattern[str]],
        framing: bool = False,
        until: Any = None,
    ) -> None:
        self.starters, self.shared_first = starts  # see `marker_starts`
        self.starter = self.shared_first
        self.until = until
        self.held = held
        self.scan = scan
        self.framing = framing
        self.emit = emit
        self.escape = escape
        self.emitted = pos
        super().__init__()

    def absorb(self, inp: Input, text: str) -> tuple[str, int] | None:
        emitted = self.emitted
        starter = self.starter
        if emitted != inp.base + len(inp.buf) or (
            starter in text if starter is not None else self.starters.search(text) is not None
        ):  # a held tail, the check on (`starter` is ""), or a marker's start in the delta
            arrived = text
            tail = inp.buf[emitted - inp.base :]  # held back, if any
            if tail:
                text = tail + text
                held = None if starter == "" else self._hold(inp, text, arrived)
                if held is not None or self.framing:
                    return held
            inp.append(arrived)  # first: a text marker's guard may read the input
            cut = self._cut(inp, text)
            if cut is None:
                return APPENDED
            text = text[:cut]  # the rest is held back
        else:
            inp.append(text)
        self.pieces.append(text)
        self.emitted = end = emitted + len(text)
        if end - inp.base >= RELEASE:  # every 64 four-character deltas or so
            self._release(inp, end)
        if not self.emit:
            return "", emitted
        return (encode_basestring(text)[1:-1] if self.escape else text), emitted

    def _release(self, inp: Input, end: int) -> None:
        inp.release(end)
        if len(self.pieces) >= JOIN:
            self.chunks.append("".join(self.pieces))
            self.pieces.clear()

    def _cut(self, inp: Input, text: str) -> int | None:
        """How much of `text`, the input's buffer from `emitted` on (all it has not emitted),
        a resumed scan would emit now: all of it, or up to the marker prefix that ends it;
        None when a marker is complete in it, for the parser to decide. It scans over the
        text markers (see `until`) as text."""
        find, scan = self.scan
        until = self.until
        offset = self.emitted - inp.base  # where `text` starts in the buffer
        checked = -1  # where the guard was found to fail: a marker there is text
        if self.starter == "":
            assert until is not None
            verdict = until.marker_is_text(inp, offset)
            if not verdict:
                return None if verdict is False else 0
            self.starter, checked = self.shared_first, 0
        match = scan.search(text)
        while match is not None and (
            match.end() < len(text) or find.fullmatch(match.group()) is not None
        ):
            if until is None or match.group() not in until.text_markers:
                return None
            start = match.start()
            verdict = True if start == checked else until.marker_is_text(inp, offset + start)
            if verdict is None:
                break  # held from the marker
            end = match.end()
            after = until.marker_is_text(inp, offset + end) if verdict else False
            if after is False:
                return None
            if after is None:  # the check after it waits, as it would in the scan
                self.starter = ""
                return end
            checked = end
            match = scan.search(text, end)
        cut = len(text) if match is None else match.start()
        if self.framing and cut and text[cut - 1] == "\n":
            cut -= 1
        return cut

    def _hold(self, inp: Input, whole: str, text: str) -> tuple[str, int] | None:
        """With a tail held back: take `text` when `whole`, the tail and it, is still held
        (else, without `framing`, `absorb` scans it as one delta)."""
        if not self.held.fullmatch(whole):
            return None
        inp.append(text)
        return "", self.emitted
