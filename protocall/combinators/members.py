"""A member of a list judged on its own (`judged`): where it fails after a cut, its raw text
through the bracket that closes it is one `error` node, and the list goes on after it.

A member is bracketed text: a head of name characters and whitespace (`get_weather`, or
none), an opening bracket, and anything up to the bracket that closes it, brackets inside
strings not counted (`"…"` and `'…'` with backslash escapes, and with `triple_quotes`
Python's `'''…'''` and `\"\"\"…\"\"\"`). That is all a failed member must be for the list to
go on: `{"name": "f", "argumentz": {}}` and `g(a=float("nan"))` each fail as a call and are
still whole members. A member never reaches past one of the list's `bounds` (its section
end, a stop, a begin where the section has no end) outside a string: the text up to it is
no member, and the list fails there at once rather than scanning on to the end of the
output.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .parser import Parser, Step, Wrapper
from .quoted import body_end
from .recovery import error_node
from .result import Backtrack, ParseFailure
from .stream import Input

_CLOSING = {"(": ")", "[": "]", "{": "}"}
_HEAD = re.compile(r"[\w.\-]*\s*")
_PLAIN = re.compile(r"[^\"'()\[\]{}\\]+")


class Mismatch(Exception):
    """The text is no member: a character that cannot stand where it does."""

    def __init__(self, at: int, expected: str) -> None:
        self.at = at
        self.expected = expected


class Bounds:
    """Markers no member reaches past outside a string (see the module docstring)."""

    def __init__(self, markers: Sequence[str]) -> None:
        self.markers = tuple(marker for marker in markers if marker)
        firsts = "".join(sorted({marker[0] for marker in self.markers}))
        self.plain = re.compile(rf"[^\"'()\[\]{{}}\\{re.escape(firsts)}]+") if firsts else _PLAIN

    def at(self, text: str, at: int, final: bool) -> bool | None:
        """Whether one of the markers starts at `at`; None while `text` ends inside one
        that may still arrive (not `final`)."""
        if any(text.startswith(marker, at) for marker in self.markers):
            return True
        left = len(text) - at
        if final or all(len(marker) <= left for marker in self.markers):
            return False
        rest = text[at:]  # shorter than a marker
        return None if any(marker.startswith(rest) for marker in self.markers) else False


NO_BOUNDS = Bounds(())


class Nesting:
    """How far a scan of a member has got: whether its first bracket has opened, the
    closers it waits for (innermost last), the quote of the string it is in (or "")."""

    __slots__ = ("bounds", "closers", "opened", "quote", "triple")

    def __init__(self, triple_quotes: bool, bounds: Bounds = NO_BOUNDS) -> None:
        self.triple = triple_quotes
        self.bounds = bounds
        self.opened = False
        self.closers: list[str] = []
        self.quote = ""

    def scan(self, text: str, at: int, final: bool) -> tuple[int, bool]:
        """Read `text` from `at`: `(end, True)` where the member's last closer ends, or
        `(resume, False)` where it needs more (`final`: no more will come; a string quote
        then is what it is). A `Mismatch` where no member could go on."""
        size = len(text)
        while at < size:
            if self.quote:
                at = self._string(text, at, final)
                if self.quote:
                    return at, False
                continue
            if not self.opened:
                at = _HEAD.match(text, at).end()  # type: ignore[union-attr]  # matches ""
                if at == size:
                    break
                if text[at] not in _CLOSING:
                    raise Mismatch(at, "an opening bracket")
                self.opened = True
            plain = self.bounds.plain.match(text, at)
            if plain is not None:
                at = plain.end()
                continue
            char = text[at]
            if self.bounds.markers:
                bound = self.bounds.at(text, at, final)
                if bound is None:
                    return at, False
                if bound:
                    raise Mismatch(at, "the member's end before the section goes on")
            if char in _CLOSING:
                self.closers.append(_CLOSING[char])
            elif char in ")]}":
                expected = self.closers.pop()
                if char != expected:
                    raise Mismatch(at, f"`{expected}`")
                if not self.closers:
                    return at + 1, True
            elif char == "\\":
                raise Mismatch(at, "no backslash outside a string")
            elif char not in "'\"":
                pass  # the first character of a bound that is not one here
            else:
                tripled = char * 3
                if self.triple and text.startswith(tripled, at):
                    self.quote = tripled
                    at += 2
                elif self.triple and not final and tripled.startswith(text[at:]):
                    return at, False  # `'` or `''` at the end: a triple quote may follow
                else:
                    self.quote = char
            at += 1
        return at, False

    def _string(self, text: str, at: int, final: bool) -> int:
        """Past the string's closing quote (the string then closed), or where to resume."""
        quote = self.quote
        end = body_end(quote, text, at)
        if text.startswith(quote, end):
            self.quote = ""
            return end + len(quote)
        if text.startswith("\n", end):  # in a one-line string: no member goes on so
            raise Mismatch(end, f"`{quote}` (a one-line string ends on its line)")
        if len(quote) == 3 and not final:  # a quote or two at the end may begin the closer
            while end > at and text[end - 1] == quote[0]:
                end -= 1
        return end


class Rest(Parser[None]):
    """The rest of a member from a scan's state (`Nesting` after its text so far): through
    its last closer. Needs more until then; fails at a `Mismatch` or the end of input."""

    def __init__(self, prefix: str, triple_quotes: bool, bounds: Bounds) -> None:
        self.prefix = prefix
        self.triple = triple_quotes
        self.bounds = bounds
        self.expected = ("the rest of the member",)

    def step(self, inp: Input, pos: int) -> Step[None]:
        nesting = Nesting(self.triple, self.bounds)
        try:
            resume, done = nesting.scan(self.prefix, 0, final=False)
            start = pos  # kept while it scans: where the list resyncs if the member fails
            pos -= len(self.prefix) - resume  # a quote or two it stopped before
            if done or pos < inp.base:  # closed before the failure, or read no more
                raise Backtrack(pos, self.expected)
            while True:
                at, done = nesting.scan(inp.buf, pos - inp.base, inp.eof)
                pos = at + inp.base
                if done:
                    return None, pos
                if inp.eof:
                    raise Backtrack(pos, self.expected)
                yield start
        except Mismatch as mismatch:
            raise Backtrack(mismatch.at + inp.base, (mismatch.expected,)) from None


class Judged(Wrapper[Any]):
    """`parser` on one member; a failure after a cut, where the member's text is a whole
    member (see the module docstring), is an `error` node of its raw text through its last
    closer. Any other failure passes through (the list's to judge). Needs more while
    `parser` does, and after a failure until the member's end has arrived."""

    def __init__(self, parser: Parser[Any], triple_quotes: bool, bounds: Bounds) -> None:
        self.parser = parser
        self.triple = triple_quotes
        self.bounds = bounds

    def step(self, inp: Input, pos: int) -> Step[Any]:
        barrier = inp.open_choice(pos, barrier=True)
        try:
            result = yield from self.parser.step(inp, pos)
        except ParseFailure as failure:
            if not barrier.committed and isinstance(failure, Backtrack):
                inp.close_choice(barrier, keep_output=False)
                raise
            failure.detach()
            at = min(max(failure.position, pos, inp.base), inp.end)
            try:
                _, end = yield from Rest(inp.raw(pos, at), self.triple, self.bounds).step(inp, at)
            except ParseFailure:
                inp.close_choice(barrier, keep_output=True)
                raise failure from None
            raw = inp.raw(pos, end)
            inp.close_choice(barrier, keep_output=True)
            return error_node(inp, failure, raw, pos, end), end
        inp.close_choice(barrier, keep_output=True)
        return result


def judged(
    parser: Parser[Any], bounds: Sequence[str], *, triple_quotes: bool = False
) -> Parser[Any]:
    """`parser` on one member of a list, judged on its own (see `Judged`), the list's
    `bounds` ending any member; `triple_quotes` for Python's strings."""
    return Judged(parser, triple_quotes, Bounds(bounds))
