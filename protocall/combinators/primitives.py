"""Leaf parsers: literals, token regexes, constant results."""

from __future__ import annotations

import functools
import re
from typing import Any, TypeVar

from .parser import Parser, Step, quote
from .result import Backtrack
from .stream import Input

T = TypeVar("T")


class Literal(Parser[str]):
    """Exactly `text`.

    At end of available input it needs more while what arrived is a prefix of `text`; it fails
    at the first character that differs (or at end of input), so the error points there.
    """

    def __init__(self, text: str) -> None:
        if not text:
            raise ValueError("literal() needs a non-empty string; use success() for nothing")
        self.text = text
        self.expected = (quote(text),)

    def step(self, inp: Input, pos: int) -> Step[str]:
        while (end := self.read(inp, pos)) is None:
            yield pos
        return self.text, end

    def read(self, inp: Input, pos: int) -> int | None:
        """Where the literal at `pos` ends, or None while what has arrived is a proper
        prefix of it; `Backtrack` at the first character that differs, or at the end of
        input inside it."""
        text = self.text
        start = pos - inp.base
        got = inp.buf[start : start + len(text)]
        if got == text:
            return pos + len(text)
        if not text.startswith(got):
            same = 0
            while got[same] == text[same]:
                same += 1
            raise Backtrack(pos + same, self.expected)
        if inp.eof:
            raise Backtrack(pos + len(got), self.expected)
        return None


def literal(text: str) -> Parser[str]:
    """Match `text` exactly; its value is `text`."""
    return Literal(text)


Outcome = tuple[
    tuple[tuple[int, tuple[str, ...]], ...],
    str | tuple[tuple[int, tuple[str, ...]] | None, str | None],
]
"""A `Markers` step's outcome (see `Markers.outcome`)."""


class Markers(Parser[str]):
    """The first of `texts`, in order, that the input starts with: exactly what an `alt` of
    their `literal`s matches, without a backtrack point per text. Needs more while the first
    text not yet ruled out could still match; fails, when every text is ruled out, at the
    furthest position one reached, expecting the texts that reached it."""

    def __init__(self, *texts: str) -> None:
        if not texts or not all(texts):
            raise ValueError("markers() needs one or more non-empty strings")
        self.texts = texts
        self.quoted, self.all_quoted, self.longest, self.by_first = _tables(texts)

    def outcome(self, window: str, eof: bool) -> Outcome:
        """What a step does on input starting with `window` (at least the longest text's
        length of it, unless the input ends or is not there yet): the failures it records
        (offset from the start, expected), then the text matched, the text it waits on
        (`None`, text) or the failure ((offset, expected), None)."""
        last = self.texts[-1]
        records: list[tuple[int, tuple[str, ...]]] = []
        # Where the texts ruled out so far failed (the furthest), and which got there.
        furthest, reached = -1, list[str]()
        texts = self.texts
        if window:
            texts = self.by_first.get(window[0], ())
            if not texts:  # every text fails at the start, as the loop would find
                if len(self.texts) > 1:
                    records.append((0, self.all_quoted[:-1]))
                return tuple(records), ((0, self.all_quoted), None)
        for text in texts:
            got = window[: len(text)]
            if got == text:
                if reached:  # as `alt` records the branches it backtracked over
                    records.append((furthest, tuple(reached)))
                return tuple(records), text
            if text.startswith(got) and not eof:
                if reached:
                    records.append((furthest, tuple(reached)))
                return tuple(records), (None, text)  # undecided: the texts after it wait
            if text is last and reached:
                records.append((furthest, tuple(reached)))
            same = 0
            while same < len(got) and got[same] == text[same]:
                same += 1
            if same > furthest:
                furthest, reached = same, [self.quoted[text]]
            elif same == furthest:
                reached.append(self.quoted[text])
        return tuple(records), ((furthest, tuple(reached)), None)

    def step(self, inp: Input, pos: int) -> Step[str]:
        while True:
            start = pos - inp.base
            records, result = self.outcome(inp.buf[start : start + self.longest], inp.eof)
            for offset, expected in records:
                inp.abandon(Backtrack(pos + offset, expected))
            if isinstance(result, str):
                return result, pos + len(result)
            failure, waiting = result
            if waiting is None:
                assert failure is not None
                raise Backtrack(pos + failure[0], failure[1])
            yield pos


@functools.lru_cache(maxsize=2048)
def _tables(
    texts: tuple[str, ...],
) -> tuple[dict[str, str], tuple[str, ...], int, dict[str, tuple[str, ...]]]:
    """A `Markers`' tables, worked out once per `texts` (formats compiled for new tool sets
    build the same marker sets again; the tables are never changed): each text quoted as
    errors show it, all of them quoted, the longest text's length, and per first character
    of the input the texts whose outcome can matter: those up to the first that starts
    with it, then only those that start with it (any other fails at `pos`, behind the
    furthest failure, past `pos` from there on), and the last text, whose turn records
    the failures before it."""
    by_first: dict[str, tuple[str, ...]] = {}
    for char in dict.fromkeys(text[0] for text in texts):
        first = next(i for i, text in enumerate(texts) if text[0] == char)
        tried = [*texts[:first], *(text for text in texts if text[0] == char)]
        if texts[-1][0] != char:
            tried.append(texts[-1])
        by_first[char] = tuple(tried)
    quoted = {text: quote(text) for text in texts}
    return quoted, tuple(map(quote, texts)), max(map(len, texts)), by_first


def markers(*texts: str) -> Parser[str]:
    """Any of several literal markers: the first, in order, that matches (see `Markers`)."""
    return Markers(*texts) if len(texts) > 1 else Literal(*texts)


class Regex(Parser[Any]):
    """A token regex anchored at the current position.

    A match that reaches the end of the available input needs more (it might grow). A pattern
    that does not match the available text fails at once, so patterns must be *token-like*:
    any text that starts a match must already match a prefix of it (`\\s*`, `[A-Za-z_]\\w*`,
    `\\d+`; not `-?\\d+`, which fails on a lone `-`: write `seq(optional(literal("-")), …)`).
    Structured text belongs in `seq` of literals and tokens, or in `until` spans.
    Only linear-time patterns (no nested unbounded repetition) should be used.
    """

    def __init__(self, pattern: str | re.Pattern[str], group: int | str = 0) -> None:
        self.pattern = re.compile(pattern) if isinstance(pattern, str) else pattern
        self.group = group
        self.expected = (f"/{self.pattern.pattern}/",)

    def step(self, inp: Input, pos: int) -> Step[Any]:
        while True:
            match = self.pattern.match(inp.buf, pos - inp.base)
            if match is not None and (match.end() < len(inp.buf) or inp.eof):
                return match.group(self.group), match.end() + inp.base
            if match is None and (pos < inp.end or inp.eof):
                raise Backtrack(pos, self.expected)
            match = None  # it refers to the buffer, which `Input.append` may then extend in place
            yield pos


def regex(pattern: str | re.Pattern[str], group: int | str = 0) -> Parser[Any]:
    """Match a token-like `pattern` here; its value is `group` of the match (see `Regex`)."""
    return Regex(pattern, group)


class Fail(Parser[Any]):
    """Never match; expect `description`."""

    def __init__(self, description: str) -> None:
        self.expected = (description,)

    def step(self, inp: Input, pos: int) -> Step[Any]:
        raise Backtrack(pos, self.expected)
        yield pos  # pragma: no cover - makes this a generator


def fail(description: str) -> Parser[Any]:
    return Fail(description)


whitespace = regex(r"\s*").desc("whitespace")
"""Any run of whitespace, possibly empty (needs more while the run reaches the end)."""
