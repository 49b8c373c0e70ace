"""Streaming text up to a marker, with hold-back of partial markers."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import Any

from ..shortcuts.cache import Cache
from ..shortcuts.glance import EMPTY, WAITING, Glance, failing
from .parser import Parser, Step, quote
from .result import Backtrack
from .stream import APPENDED, RELEASE, Input, new_text, running


def proper_prefixes(markers: Iterable[str]) -> str:
    """A regex matching exactly the non-empty proper prefixes of `markers` (trie-shaped, so
    matching one start position costs at most the length of the longest marker)."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for marker in markers:
        node = trie
        for char in marker:
            node = node.setdefault(char, {})

    def branches(node: dict) -> str:  # type: ignore[type-arg]
        alts = []
        for char, child in node.items():
            if child:  # a leaf completes a marker, which is not a proper prefix
                inner = branches(child)
                alts.append(re.escape(char) + (f"(?:{inner})?" if inner else ""))
        return "|".join(alts)

    return branches(trie)


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


def longest_first(markers: Iterable[str]) -> str:
    """A regex matching any of `markers`, the longest that matches where several do."""
    return "|".join(map(re.escape, sorted(markers, key=lambda m: (-len(m), m))))


def held_prefix(markers: Iterable[str], newline: bool = False) -> re.Pattern[str]:
    """A regex whose `fullmatch` tells a held tail that is still only a proper prefix of
    one of `markers`, none of them complete at its start (with `newline`, after an optional
    leading newline too: a framing newline held with the prefix)."""
    ordered = longest_first(markers)
    prefix = f"(?!{ordered})(?:{proper_prefixes(sorted(markers)) or '(?!)'})"
    return re.compile(f"(?!{ordered})\\n?{prefix}" if newline else prefix)


@functools.lru_cache(maxsize=1024)
def _patterns(markers: frozenset[str]) -> tuple[re.Pattern[str], ...]:
    """The regexes for a marker set, compiled once per set (grammars are built per session):
    the markers; while the stream is open, the earliest complete marker or the earliest
    proper marker prefix that reaches the end of the buffer (to hold back); a held tail
    that stays held (see `held_prefix`)."""
    ordered = longest_first(markers)
    prefixes = proper_prefixes(sorted(markers))
    scan = f"{ordered}|(?:{prefixes})\\Z" if prefixes else ordered
    return re.compile(ordered), re.compile(scan), held_prefix(markers)


class Until(Parser[str]):
    """Text up to, not including, the earliest of `markers`; the value is that text.

    Streams: the text that can no longer be the start of a marker is emitted as soon as it
    arrives, as one `Text` item per delta (unless `emit=False`): all that one delta decides
    (or one resume, or a parse in one piece), plain markers included; a tail that is a
    proper prefix of a marker (`Hi <tool_ca`) is held back until the next input completes
    or rules it out.
    Each character is searched once, plus at most the held tail. At end of input the held
    tail is released and the text so far is the value, or, with `required=True`, it fails
    expecting one of the markers. With `nonempty=True` it fails, consuming nothing, where the
    text would be empty. With `commit=True` it cuts as soon as it has consumed text, so a
    text branch of a choice streams instead of being held until the marker arrives.

    With `plain=(parser, texts)`, a marker of `texts` found where `parser` fails, as its
    `glance` at the characters there decides, is text, emitted with the text around it,
    and the scan goes on after it (so a marker prefix repeated, or an opener that heads no
    call, costs the scan, not a way out of it and back per repetition). While the glance
    waits for more characters, so does the scan, holding the marker; where the glance
    leaves `parser` undecided, the scan stops at the marker, as at any other, for the
    grammar to run `parser` there, unless the parsers its failure rests on tell, without
    running in the grammar, that they all fail there (`Parser.deciders` and `settled`: a
    bare call proof's JSON scan reads the object that starts there), when the marker is
    text too; while they wait for more input to tell, so does the scan (holding the
    marker). The plain markers are part of the value, the text scanned. Its `glance` at a
    plain marker is the guard's: a choice skips the scan where the guard matches there,
    and waits with it for the characters that decide.
    """

    def __init__(
        self,
        *markers: str,
        emit: bool = True,
        required: bool = False,
        nonempty: bool = False,
        commit: bool = False,
        plain: tuple[Parser[Any], Iterable[str]] | None = None,
    ) -> None:
        if not markers or not all(markers):
            raise ValueError("until() needs one or more non-empty markers")
        self.markers = markers
        self.guard: Parser[Any] | None = None if plain is None else plain[0]
        self.plain = frozenset(() if plain is None else plain[1])
        self.reach_guard = 0  # the guard's reach, known once it is first needed
        # by window: what the guard's glance decides there, else the guard's deciders
        self.windows: Cache[str, bool | tuple[Parser[Any], ...] | None] = Cache(_WINDOWS)
        self.find, self.scan, self.held = _patterns(frozenset(markers))
        self.starts = marker_starts(frozenset(markers))
        self.emit = emit
        self.required = required
        self.nonempty = nonempty
        self.commit = commit
        self.expected = tuple(quote(m) for m in markers)

    def step(self, inp: Input, pos: int) -> Step[str]:
        find, scan_open, emit = self.find, self.scan, self.emit
        plain = None if self.guard is None else self
        state = Scanning(
            self.starts, pos, emit=emit, held=self.held, scan=(find, scan_open), plain=plain
        )
        shown = pos  # the text before is in `Text` items; up to `state.emitted` it is decided
        while True:
            inp.fast = None
            checked = -1  # where this pass found the guard to fail: a marker there is text
            if state.starter == "":  # after a plain marker, as a choice there would try the guard
                check = state.emitted
                verdict = self.plain_at(inp, check - inp.base, inp.eof)
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
            if found and match is not None and match.group() in self.plain:
                verdict = True if limit == checked else self.plain_at(inp, limit - base, eof)
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

    def plain_at(self, inp: Input, at: int, eof: bool = False) -> bool | None:
        """Whether the marker found at `at` of `inp`'s buffer is text (see `plain`), and
        after one whether the scan goes on: True where the guard's glance at the characters
        there fails before the end of the input received (`eof`: all of it), None while it
        waits for more of them (as a choice would before running the guard), False
        otherwise. Where the glance is undecided, the guard's deciders tell (see
        `_settled`). What a window decides, or the deciders it leaves, is kept per window."""
        guard, reach = self.guard, self.reach_guard
        assert guard is not None
        text = inp.buf
        if at == len(text):
            return eof or None
        if not reach:
            reach = self.reach_guard = guard.reach()
        window = text[at : at + reach]
        learned = inp.learned
        windows = self.windows if learned is None else learned.cache(self, "windows", _WINDOWS)
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
        return self._settled(inp, inp.base + at, known)

    def _settled(
        self, inp: Input, at: int, deciders: tuple[Parser[Any], ...] | None
    ) -> bool | None:
        """Where the guard's glance is undecided: True where the parsers its failure rests
        on (`deciders`) all tell that they fail at `at` (`Parser.settled`), None while one
        waits for more input to tell, False otherwise."""
        if not deciders:
            return False
        verdict: bool | None = True
        for parser in deciders:
            settled = parser.settled(inp, at)
            if settled is False:
                return False
            if settled is None:
                verdict = None
        return verdict

    def _glance(self, window: str) -> Glance | None:
        found = self.find.match(window)
        if found is None:  # text, or a marker whose start is all the window holds
            return WAITING if self.held.fullmatch(window) else None
        if found.group() in self.plain:  # as `plain_at` decides: text, wait, or a marker
            assert self.guard is not None
            reach = self.guard.reach()
            glance = self.guard.glance(window[:reach])
            if glance is not None and glance.waits and len(window) < reach:
                return WAITING
            if glance is not None and not glance.waits and glance.fails:
                return None  # text: the scan goes on after it
            if glance is None and self.guard.deciders(window[:reach]):
                return None  # text where they tell the guard fails (`_settled`)
        return failing(("text",)) if self.nonempty else EMPTY  # a marker right here

    def _reach(self) -> int:
        longest = max(map(len, self.markers))
        return longest if self.guard is None else max(longest, self.guard.reach())

    def waits(self) -> bool:
        return True


class Scanning:
    """A text scan (an `until`, an XML argument value) suspended with all its text so far
    emitted: input in which none of the markers it seeks can start (`starts`, as given by
    `marker_starts`) is emitted at once, without resuming the parser tree (the common
    delta). With the scan's patterns (`scan`: the markers, and the search for a marker or a
    prefix of one that ends the input) it also takes input in which a marker may start but
    none is complete: emitted up to the prefix of one that ends it (and, with `framing`, a
    newline before that prefix, or at the end), the rest held back. Emitted text is the
    input itself, or with `escape` its JSON string escaping (without quotes); nothing with
    `emit=False`. Suspended with a tail held back, it takes input that keeps the tail held
    (`held`, as given by `held_prefix`), emitting nothing, and, without `framing`, input
    that rules the tail out: the tail and it are then scanned as one delta, as above.
    With `plain`, the `Until` whose scan it is, a plain marker complete in the input is
    decided as the resumed scan would (`Until.plain_at`, the delta put in the buffer
    first, so that the guard's deciders read it): scanned over as text, held back with
    what follows it while the characters that decide have not arrived, or left to the
    parser (`APPENDED`); so is, while the check is on, the text at `emitted` (right after
    such a marker, where the scan checks the guard). The check is on while `starter`, otherwise
    the first character all markers share (`shared_first`) if any, is "": the empty
    string is in every delta, so each takes the scanning path, and the common path tests
    nothing more.

    The text so far is kept as a few joined chunks plus the latest pieces, so a long span
    costs about its own size in memory, not a string object per delta."""

    __slots__ = (
        "chunks",
        "emit",
        "emitted",
        "escape",
        "framing",
        "held",
        "pieces",
        "plain",
        "scan",
        "shared_first",
        "starter",
        "starters",
    )

    def __init__(
        self,
        starts: tuple[re.Pattern[str], str | None],
        pos: int,
        *,
        emit: bool = True,
        escape: bool = False,
        held: re.Pattern[str],
        scan: tuple[re.Pattern[str], re.Pattern[str]],
        framing: bool = False,
        plain: Until | None = None,
    ) -> None:
        self.starters, self.shared_first = starts  # see `marker_starts`
        self.starter = self.shared_first
        self.plain = plain
        self.held = held
        self.scan = scan
        self.framing = framing
        self.emit = emit
        self.escape = escape
        self.emitted = pos
        self.chunks: list[str] = []
        self.pieces: list[str] = []

    def add(self, piece: str) -> None:
        pieces = self.pieces
        pieces.append(piece)
        if len(pieces) >= _JOIN:
            self.chunks.append("".join(pieces))
            pieces.clear()

    def text(self) -> str:
        return "".join(self.chunks) + "".join(self.pieces)

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
            inp.append(arrived)  # first: a plain marker's guard may read the input
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
        if len(self.pieces) >= _JOIN:
            self.chunks.append("".join(self.pieces))
            self.pieces.clear()

    def _cut(self, inp: Input, text: str) -> int | None:
        """How much of `text`, the input's buffer from `emitted` on (all it has not emitted),
        a resumed scan would emit now: all of it, or up to the marker prefix that ends it;
        None when a marker is complete in it, for the parser to decide. It scans over the
        plain markers (see `plain`) as text."""
        find, scan = self.scan
        plain = self.plain
        offset = self.emitted - inp.base  # where `text` starts in the buffer
        checked = -1  # where the guard was found to fail: a marker there is text
        if self.starter == "":
            assert plain is not None
            verdict = plain.plain_at(inp, offset)
            if not verdict:
                return None if verdict is False else 0
            self.starter, checked = self.shared_first, 0
        match = scan.search(text)
        while match is not None and (
            match.end() < len(text) or find.fullmatch(match.group()) is not None
        ):
            if plain is None or match.group() not in plain.plain:
                return None
            start = match.start()
            verdict = True if start == checked else plain.plain_at(inp, offset + start)
            if verdict is None:
                break  # held from the marker
            end = match.end()
            after = plain.plain_at(inp, offset + end) if verdict else False
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
        if self.held.fullmatch(whole) is None:
            return None
        inp.append(text)
        return "", self.emitted


def _show(inp: Input, start: int, end: int, emit: bool) -> None:
    """Emit the text decided from `start` to `end` (in the buffer) as one `Text` item."""
    if end > start and emit:
        inp.out.append(new_text((inp.buf[start - inp.base : end - inp.base], start)))


_JOIN = 256  # pieces joined into one chunk
_WINDOWS = 256  # windows whose verdict or deciders a scan keeps (a cache: cleared when full)
_UNSEEN: Any = object()


def until(
    *markers: str,
    emit: bool = True,
    required: bool = False,
    nonempty: bool = False,
    commit: bool = False,
    plain: tuple[Parser[Any], Iterable[str]] | None = None,
) -> Parser[str]:
    """Text up to the earliest of `markers`, streamed with hold-back (see `Until`)."""
    return Until(
        *markers,
        emit=emit,
        required=required,
        nonempty=nonempty,
        commit=commit,
        plain=plain,
    )
