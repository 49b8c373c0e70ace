"""The leaves' shortcuts: their glances, and steps that leave an absorber while they wait
(a literal or marker still arriving, a token still growing); `markers` keeps its outcome
per window."""

from __future__ import annotations

import functools
import re
from typing import Any

from ..combinators.parser import Step, Success
from ..combinators.primitives import Fail, Literal, Markers, Regex
from ..combinators.result import Backtrack
from ..combinators.stream import Input
from .absorbers import PartialMarker, TokenWait
from .cache import Cache
from .glance import EMPTY, WAITING, Glance, Record, failing, later
from .registry import analysis, install

_RUN = re.compile(r"(?:\[\^?(?:[^\]\\]|\\.)+\]|\\[sSwWdD]|\\\W|[^\\\[\]().*+?^$|{}])[*+]")
"""A pattern that is one character class, or one character, repeated."""


def literal_step(self: Literal, inp: Input, pos: int) -> Step[str]:
    """`Literal.step`, buffering the rest of the literal without a resume."""
    while (end := self.read(inp, pos)) is None:
        inp.fast = PartialMarker((self.text,), pos)
        yield pos
        inp.fast = None
    return self.text, end


def _literal_glance(self: Literal, window: str) -> Glance | None:
    text = self.text
    if window.startswith(text):
        return Glance(len(text), None)
    same = 0
    while same < len(window) and window[same] == text[same]:
        same += 1
    return WAITING if same == len(window) else failing(self.expected, same)


class _Decided(Markers):
    """The attributes the shortcuts give it (for the type checker only)."""

    decided: Cache[str, Any]  # by window: a full window's outcome, or an open stream's


def markers_step(self: _Decided, inp: Input, pos: int) -> Step[str]:
    """`Markers.step`, its outcome kept per window, buffering the rest of the marker it
    waits on without a resume."""
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


def _markers_glance(self: Markers, window: str) -> Glance | None:
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


class _Growing(Regex):
    """The attributes the shortcuts give it (for the type checker only)."""

    class_run: bool  # one character class repeated (see `TokenWait`)


def regex_step(self: _Growing, inp: Input, pos: int) -> Step[Any]:
    """`Regex.step`, taking more of a token still growing without a resume: for a pattern
    that is one character class repeated (`[a-z_]+`, `\\s*`) that costs the new text only,
    for any other the token is matched again from its start."""
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


def _regex_glance(self: _Growing, window: str) -> Glance | None:
    match = self.pattern.match(window)
    if match is None:  # a token-like pattern matches no longer text either
        return failing(self.expected)
    if not self.class_run:  # where the match ends, what follows the window may decide
        return None
    return Glance(match.end(), None) if match.end() < len(window) else WAITING


def _true(self: Any) -> bool:
    return True


install(Literal, "step", literal_step)
analysis(Literal, "_glance", _literal_glance)
analysis(Literal, "_reach", lambda self: len(self.text))
analysis(Literal, "waits", _true)
install(Markers, "step", markers_step)
install(Markers, "decided", functools.cached_property(lambda self: Cache(64)))
analysis(Markers, "_glance", _markers_glance)
analysis(Markers, "_reach", lambda self: self.longest)
analysis(Markers, "waits", _true)
install(Regex, "step", regex_step)
analysis(
    Regex,
    "class_run",
    functools.cached_property(lambda self: _RUN.fullmatch(self.pattern.pattern) is not None),
)
analysis(Regex, "_glance", _regex_glance)
analysis(Regex, "waits", _true)
analysis(Success, "_glance", lambda self, window: EMPTY)
analysis(Fail, "_glance", lambda self, window: failing(self.expected))
