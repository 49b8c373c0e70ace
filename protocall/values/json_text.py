"""A JSON string read as text: its decoded characters stream as they arrive (`json_text`).

Where a JSON string *is* the visible text (llama.cpp's generic format writes the answer as
`{"response": "…"}`), what a reader sees is the decoded string, not its JSON spelling: the
pieces are the characters, escapes decoded, each exposed only once complete (an escape
with its last character, a surrogate pair with both halves), so they add up to the decoded
string whatever the chunking.
"""

from __future__ import annotations

from ..combinators.parser import Parser, Step
from ..combinators.result import Backtrack
from ..combinators.stream import Input, Text
from .json import RAW_CONTROL, Invalid, decode, escape_end, matcher

_plain_run = matcher(r'[^"\\\x00-\x1f]*')
_SIMPLE = {f"\\{char}": decode(f'"\\{char}"') for char in '"\\/bfnrt'}
"""The two-character escapes, decoded."""
_OPENING = ('a JSON string `"…"`',)
_CLOSING = ("the string's closing `\"`",)


class JsonText(Parser[str]):
    """A JSON string whose decoded characters are emitted as `Text` items as they arrive
    (plain runs at once, each escape once complete); its value is the decoded string.

    Fails where no `"` opens it, at a raw control character, at an invalid escape, and, at
    the end of input, at the end (expecting the closing quote, or the rest of an escape);
    the characters before the failure have been emitted. Needs more while it is open."""

    def step(self, inp: Input, pos: int) -> Step[str]:
        while pos >= inp.end and not inp.eof:
            yield pos
        if inp.text(pos, pos + 1) != '"':
            raise Backtrack(pos, _OPENING)
        pieces: list[str] = []
        at = pos + 1
        while True:
            buf, base = inp.buf, inp.base
            i, n = at - base, len(buf)
            while i < n:
                run = _plain_run(buf, i, n).end()
                if run > i:
                    pieces.append(buf[i:run])
                    inp.out.append(Text(pieces[-1], base + i))
                    i = run
                if i == n:
                    break
                char = buf[i]
                if char == '"':
                    return "".join(pieces), base + i + 1
                if char != "\\":
                    raise Backtrack(base + i, RAW_CONTROL)
                try:
                    end = escape_end(buf, i, n, inp.eof)
                except Invalid as invalid:
                    raise Backtrack(base + invalid.position, invalid.expected) from None
                if end < 0:
                    break  # the escape is still arriving
                escape = buf[i:end]
                pieces.append(_SIMPLE.get(escape) or decode(f'"{escape}"'))
                inp.out.append(Text(pieces[-1], base + i))
                i = end
            at = base + i
            if inp.eof:
                raise Backtrack(inp.end, _CLOSING)
            yield at


def json_text() -> Parser[str]:
    """A JSON string streamed as its decoded text (see `JsonText`)."""
    return JsonText()
