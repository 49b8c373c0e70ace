"""Leaf parsers: literals, token regexes, constant results."""

from __future__ import annotations

import functools
import re
from typing import Any, TypeVar

from ..shortcuts.cache import Cache
from ..shortcuts.glance import EMPTY, WAITING, Glance, Record, failing, later
from .parser import Parser, Step, quote
from .result import Backtrack
from .stream import APPENDED, Input
from .text import held_prefix

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
        text = self.text
        size = len(text)
        while True:
            start = pos - inp.base
            got = inp.buf[start : start + size]
            if got == text:
                return text, pos + size
            if not text.startswith(got):
                same = 0
                while got[same] == text[same]:
                    same += 1
                raise Backtrack(pos + same, self.expected)
            if inp.eof:
                raise Backtrack(pos + len(got), self.expected)
            inp.fast = PartialMarker((text,), pos)
            yield pos
            inp.fast = None

    def _glance(self, window: str) -> Glance | None:
        text = self.text
        if window.startswith(text):
            return Glance(len(text), None)
        same = 0
        while same < len(window) and window[same] == text[same]:
            same += 1
        return WAITING if same == len(window) else failing(self.expected, same)

    def _reach(self) -> int:
        return len(self.text)

    def waits(self) -> bool:
        return True


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


_held = functools.lru_cache(maxsize=1024)(held_prefix)
_RUN = re.compile(r"(?:\[\^?(?:[^\]\\]|\\.)+\]|\\[sSwWdD]|\\\W|[^\\\[\]().*+?^$|{}])[*+]")
"""A pattern that is one character class, or one character, repeated."""


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
        self.quoted = {text: quote(text) for text in texts}
        self.all_quoted = tuple(map(quote, texts))
        self.longest = max(map(len, texts))
        # window -> outcome: a full window's, or, while the input goes on, a shorter one's
        self.decided: Cache[str, Outcome] = Cache(64)
        # Per first character of the input, the texts whose outcome can matter: those up to
        # the first that starts with it, then only those that start with it (any other fails
        # at `pos`, behind the furthest failure, past `pos` from there on), and the last
        # text, whose turn records the failures before it.
        self.by_first: dict[str, tuple[str, ...]] = {}
        for char in dict.fromkeys(text[0] for text in texts):
            first = next(i for i, text in enumerate(texts) if text[0] == char)
            tried = [*texts[:first], *(text for text in texts if text[0] == char)]
            if texts[-1][0] != char:
                tried.append(texts[-1])
            self.by_first[char] = tuple(tried)

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
        longest, decided = self.longest, self.decided
        while True:
            start = pos - inp.base
            window = inp.buf[start : start + longest]
            if len(window) == longest or not inp.eof:  # depends on the window only: memoised
                outcome = decided.get(window)
                if outcome is None:
                    outcome = decided.keep(window, self.outcome(window, inp.eof))
            else:
                outcome = self.outcome(window, inp.eof)
            records, result = outcome
            for offset, expected in records:
                inp.abandon(Backtrack(pos + offset, expected))
            if isinstance(result, str):
                return result, pos + len(result)
            failure, waiting = result
            if waiting is None:
                assert failure is not None
                raise Backtrack(pos + failure[0], failure[1])
            inp.fast = PartialMarker((waiting,), pos)
            yield pos
            inp.fast = None

    def _glance(self, window: str) -> Glance | None:
        records, result = self.outcome(window[: self.longest], False)
        record = None
        for offset, expected in records:
            record = later(record, Record(offset, tuple(dict.fromkeys(expected)), ()))
        if isinstance(result, str):
            return Glance(len(result), None, (), record)
        failure, _ = result
        if failure is None:  # waiting on a text the window is a prefix of
            return WAITING
        return Glance(failure[0], tuple(dict.fromkeys(failure[1])), (), record)

    def _reach(self) -> int:
        return self.longest

    def waits(self) -> bool:
        return True


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
    Only linear-time patterns (no nested unbounded repetition) should be used. While its
    match reaches the end of the input, more of the token is taken without resuming the
    parser tree; for a pattern that is one character class repeated (`[a-z_]+`, `\\s*`) that
    costs the new text only, for any other the token is matched again from its start.
    """

    def __init__(self, pattern: str | re.Pattern[str], group: int | str = 0) -> None:
        self.pattern = re.compile(pattern) if isinstance(pattern, str) else pattern
        self.group = group
        self.class_run = _RUN.fullmatch(self.pattern.pattern) is not None  # see `TokenWait`
        self.expected = (f"/{self.pattern.pattern}/",)

    def step(self, inp: Input, pos: int) -> Step[Any]:
        while True:
            match = self.pattern.match(inp.buf, pos - inp.base)
            if match is not None and (match.end() < len(inp.buf) or inp.eof):
                return match.group(self.group), match.end() + inp.base
            if match is None and (pos < inp.end or inp.eof):
                raise Backtrack(pos, self.expected)
            match = None  # it refers to the buffer, which `Input.append` may then extend in place
            inp.fast = TokenWait(self.pattern, pos, self.class_run)
            yield pos
            inp.fast = None

    def _glance(self, window: str) -> Glance | None:
        match = self.pattern.match(window)
        if match is None:  # a token-like pattern matches no longer text either
            return failing(self.expected)
        if not self.class_run:  # where the match ends, what follows the window may decide
            return None
        return Glance(match.end(), None) if match.end() < len(window) else WAITING

    def waits(self) -> bool:
        return True


def regex(pattern: str | re.Pattern[str], group: int | str = 0) -> Parser[Any]:
    """Match a token-like `pattern` here; its value is `group` of the match (see `Regex`)."""
    return Regex(pattern, group)


class Success(Parser[T]):
    """Match nothing; give `value`. Never needs input."""

    def __init__(self, value: T) -> None:
        self.value = value

    def step(self, inp: Input, pos: int) -> Step[T]:
        return self.value, pos
        yield pos  # pragma: no cover - makes this a generator

    def _glance(self, window: str) -> Glance | None:
        return EMPTY


def success(value: T) -> Parser[T]:
    return Success(value)


class Fail(Parser[Any]):
    """Never match; expect `description`."""

    def __init__(self, description: str) -> None:
        self.expected = (description,)

    def step(self, inp: Input, pos: int) -> Step[Any]:
        raise Backtrack(pos, self.expected)
        yield pos  # pragma: no cover - makes this a generator

    def _glance(self, window: str) -> Glance | None:
        return failing(self.expected)


def fail(description: str) -> Parser[Any]:
    return Fail(description)


whitespace = regex(r"\s*").desc("whitespace")
"""Any run of whitespace, possibly empty (needs more while the run reaches the end)."""
