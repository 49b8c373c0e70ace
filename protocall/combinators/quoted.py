"""Quoted strings read as tokens: where a string's body ends (`body_end`), and a whole
string token that is never emitted (`string_token`).

Both scan each character once, with a search per run of backslashes: a repeated
alternation such as `(?:[^"\\]|\\.)*` would keep backtracking state for every character
(over 100 bytes each), and a token re-matched from its start at every delta is quadratic.
"""

from __future__ import annotations

import re

from .parser import Parser, Step
from .result import Backtrack
from .stream import Input

_STOPS = {
    '"': re.compile(r'[\\"\n]'),
    "'": re.compile(r"[\\'\n]"),
    '"""': re.compile(r'[\\"]'),
    "'''": re.compile(r"[\\']"),
}
"""What may end a string's body: a backslash, its quote, a raw newline in a one-line one."""
_BACKSLASHES = re.compile(r"\\+")


def body_end(quote: str, text: str, at: int) -> int:
    """Where the body of a string in `quote` (`"`, `'`, or one of Python's triple quotes)
    from `at` ends: at its closing quote, at a raw newline in a one-line string, or at the
    end of `text` (before a last backslash, which escapes what has not arrived)."""
    stops = _STOPS[quote]
    while (found := stops.search(text, at)) is not None:
        at = found.start()
        if text[at] == "\\":
            run = _BACKSLASHES.match(text, at).end()  # type: ignore[union-attr]  # at a `\`
            if (run - at) % 2 == 0:
                at = run  # escaped backslashes only
            elif run < len(text):
                at = run + 1  # and the character the last one escapes
            else:
                return run - 1
        elif len(quote) == 3 and not text.startswith(quote, at):
            at += 1  # a quote or two inside a triple-quoted string
        else:
            return at
    return len(text)


class StringToken(Parser[str]):
    """A one-line string in `quote` read whole, not emitted: its text from the opening
    quote through the closing one, or, where a raw newline or the end of input comes
    first, up to there without one (the caller judges such a token). Fails where no
    opening quote stands; needs more until the token ends."""

    def __init__(self, quote: str, description: str) -> None:
        self.quote = quote
        self.expected = (description,)

    def step(self, inp: Input, pos: int) -> Step[str]:
        while pos >= inp.end and not inp.eof:
            yield pos
        if not inp.text(pos, pos + 1) == self.quote:
            raise Backtrack(pos, self.expected)
        at = pos + 1
        while True:
            at = body_end(self.quote, inp.buf, at - inp.base) + inp.base
            stopped = inp.text(at, at + 1)  # the quote, a newline, a last `\` or nothing
            if stopped == self.quote:
                return inp.text(pos, at + 1), at + 1
            if stopped == "\n":
                return inp.text(pos, at), at
            if inp.eof:
                return inp.text(pos, inp.end), inp.end
            yield pos


def string_token(quote: str, description: str) -> Parser[str]:
    """A string token in `quote`, read whole and never emitted (see `StringToken`)."""
    return StringToken(quote, description)
