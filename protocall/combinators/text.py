"""Streaming text up to a marker, with hold-back of partial markers."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from .parser import Parser, Step, quote
from .result import Backtrack
from .stream import Input, new_text


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


def longest_first(markers: Iterable[str]) -> str:
    """A regex matching any of `markers`, the longest that matches where several do."""
    return "|".join(map(re.escape, sorted(markers, key=lambda m: (-len(m), m))))


@functools.lru_cache(maxsize=1024)
def _patterns(markers: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The regexes for a marker set, compiled once per set (grammars are built per tool
    set): the markers; while the stream is open, the earliest complete marker or the
    earliest proper marker prefix that reaches the end of the buffer (to hold back)."""
    ordered = longest_first(markers)
    prefixes = proper_prefixes(sorted(markers))
    scan = f"{ordered}|(?:{prefixes})\\Z" if prefixes else ordered
    return re.compile(ordered), re.compile(scan)


class Gathered:
    """Text gathered piece by piece, kept as a few joined chunks plus the latest pieces: a
    long span costs about its own size in memory, not a string object per piece."""

    __slots__ = ("chunks", "pieces")

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.pieces: list[str] = []

    def add(self, piece: str) -> None:
        pieces = self.pieces
        pieces.append(piece)
        if len(pieces) >= JOIN:
            self.chunks.append("".join(pieces))
            pieces.clear()

    def text(self) -> str:
        return "".join(self.chunks) + "".join(self.pieces)


JOIN = 256
"""Pieces joined into one chunk."""


class Until(Parser[str]):
    """Text up to, not including, the earliest of `markers`; the value is that text.

    Streams: the text that can no longer be the start of a marker is emitted as soon as it
    arrives, as one `Text` item per resume (unless `emit=False`); a tail that is a proper
    prefix of a marker (`Hi <tool_ca`) is held back until the next input completes or rules
    it out. Each character is searched once, plus at most the held tail. At end of input
    the held tail is released and the text so far is the value, or, with `required=True`,
    it fails expecting one of the markers. With `nonempty=True` it fails, consuming
    nothing, where the text would be empty. With `commit=True` it cuts as soon as it has
    consumed text, so a text branch of a choice streams instead of being held until the
    marker arrives.

    `text_markers=(guard, texts)` names markers that are text where `guard` fails at them
    (an opener that heads no call): the scan stops at them as at any other marker, and the
    grammar around it tries `guard` there. (A shortcut reads such a marker as text at once
    where the guard's glance tells that it fails: `protocall.shortcuts.text`.)
    """

    def __init__(
        self,
        *markers: str,
        emit: bool = True,
        required: bool = False,
        nonempty: bool = False,
        commit: bool = False,
        text_markers: tuple[Parser[Any], Iterable[str]] | None = None,
    ) -> None:
        if not markers or not all(markers):
            raise ValueError("until() needs one or more non-empty markers")
        self.markers = markers
        self.guard: Parser[Any] | None = None if text_markers is None else text_markers[0]
        self.text_markers = frozenset(() if text_markers is None else text_markers[1])
        self.find, self.scan = _patterns(frozenset(markers))
        self.emit = emit
        self.required = required
        self.nonempty = nonempty
        self.commit = commit
        self.expected = tuple(quote(m) for m in markers)

    def step(self, inp: Input, pos: int) -> Step[str]:
        find, scan_open = self.find, self.scan
        emitted = pos  # the text before is in `Text` items; the rest is undecided
        gathered = Gathered()  # the text so far (the buffer drops what is emitted)
        while True:
            buf, base, eof = inp.buf, inp.base, inp.eof
            match = (find if eof else scan_open).search(buf, emitted - base)
            if match is None:
                limit, found = base + len(buf), False
            else:
                limit = base + match.start()
                found = eof or match.end() < len(buf) or find.fullmatch(match.group()) is not None
            if limit > emitted:
                if emitted == pos and self.commit:
                    inp.cut()
                piece = buf[emitted - base : limit - base]
                gathered.add(piece)
                if self.emit:
                    inp.out.append(new_text((piece, emitted)))
                emitted = limit
            if found or eof:
                if limit == pos and self.nonempty:
                    raise Backtrack(pos, ("text",))
                if not found and self.required:
                    raise Backtrack(limit, self.expected)
                return gathered.text(), limit
            yield emitted


def until(
    *markers: str,
    emit: bool = True,
    required: bool = False,
    nonempty: bool = False,
    commit: bool = False,
    text_markers: tuple[Parser[Any], Iterable[str]] | None = None,
) -> Parser[str]:
    """Text up to the earliest of `markers`, streamed with hold-back (see `Until`)."""
    return Until(
        *markers,
        emit=emit,
        required=required,
        nonempty=nonempty,
        commit=commit,
        text_markers=text_markers,
    )


class Rest(Parser[str]):
    """The rest of the input as text, streamed: what has arrived is emitted as one `Text`
    item per resume; the value, at end of input, is the whole text. Never fails; needs
    more until the input ends."""

    def step(self, inp: Input, pos: int) -> Step[str]:
        gathered = Gathered()
        while True:
            if inp.end > pos:
                piece = inp.text(pos, inp.end)
                gathered.add(piece)
                inp.out.append(new_text((piece, pos)))
                pos = inp.end
            if inp.eof:
                return gathered.text(), pos
            yield pos


def rest() -> Parser[str]:
    """The rest of the input as text, streamed (see `Rest`)."""
    return Rest()
