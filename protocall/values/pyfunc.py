"""Pseudo-function calls: `name(a="x", b=3)` and lists `[f(a=1), g(b="y")]`.

The name is a dotted Python identifier (`get_weather`, `brave_search.call`; no whitespace
around the dots, whitespace allowed before `(`). Arguments are keyword arguments only, each
value a Python literal: strings with either quote, single or triple, optional `r`/`u`
prefix, every Python escape and implicit concatenation (`"a" "b"`); integers (decimal,
`0x`/`0o`/`0b`, underscores) and floats; `True`/`False`/`None` and the JSON spellings
`true`/`false`/`null`; a sign before a number; lists, tuples, dicts and sets, nested.
Values are what `ast.literal_eval` gives for the same text, except that they are always
JSON data: tuples become lists, a set the list of its distinct elements in the order
written, an escaped surrogate pair becomes its character (as in JSON). What JSON cannot
hold fails: non-string dict keys, bytes, complex numbers, floats that overflow to
infinity; so does what Python refuses: a list, dict or set in a set, a NUL character
written raw in a string (`\\x00` is one). An unknown escape such as `\\d` keeps its
backslash, as Python does.
Python keywords are accepted as argument names (`from="x"`), names are NFKC-normalised as
Python does; comments, backslash line continuations and signs before a parenthesis are not
accepted. Whitespace, newlines included, may surround every token inside the parentheses
and brackets; the parsers consume none before their first or after their last character.

Resumable, with the earliest error: every proper prefix of a valid call needs more (a
number or `Tru` at the end of the input waits for the character after it). A positional
argument fails where it starts (or, after a bare name, where `=` was expected), a repeated
keyword at its second occurrence, once its name is complete. At end of input whatever is
still open fails at the end, expecting what was missing.

Streaming: each call is an `Open(call_tag)` … `Close(call_tag, end, (name, arguments))`
node, emitted when its `(` arrives, holding a `name_tag` node (the name is never announced
before its `(`) and an `arguments_tag` node whose `Text` items are the arguments as
synthesised JSON object text in one fixed style, `{"a": "x", "b": 3}`: `{` at the `(`,
`"key": ` with the start of each value, a top-level string value as escaped JSON string
pieces as its text arrives (an escape once complete), any other value once complete, `}` at
the `)`. The pieces add up to exactly `json.dumps(arguments, ensure_ascii=False)`, except
that surrogates (from `\\u` escapes) are written as `\\udXXX` escapes; `json.loads` of the
text always equals the arguments. A failure inside a call names `arguments_tag` and
`call_tag` in its context, as `tag` does. Long string literals are skipped by regex runs;
no text is scanned twice (only a held token — a number, a name, an escape, a closing triple
quote — is looked at again).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Collection, Generator
from json.encoder import encode_basestring
from typing import Any, TypeVar

from ..combinators.parser import Parser, Step, quote
from ..combinators.primitives import regex
from ..combinators.result import Backtrack, ParseFailure
from ..combinators.stream import Close, Input, Open, Text, new_text
from .depth import Bound, nesting_bound

TOOL_CALL = "tool_call"
TOOL_NAME = "tool_name"
TOOL_ARGUMENTS = "tool_arguments"

T = TypeVar("T")
_Gen = Generator[int, None, T]

_WHITESPACE = re.compile(r"[ \t\f\r\n]*")
_WORD = re.compile(r"\w*")
_IDENTIFIER_START = re.compile(r"[^\W\d]")

_CALL = "a call `name(...)`"
_KEYWORD = "`name=value` (positional arguments are not accepted)"
_EQUALS = "`=` (positional arguments are not accepted; write `name=value`)"
_LITERAL = "a Python literal"
_HASHABLE = "a hashable literal (a set holds no list, dict or set)"
_SET_ITEM = "`,` (a set; a dict's keys are strings)"
_STRING_KEY = "a string key (JSON object keys are strings)"
_QUOTE = ("`'` or `\"`",)

_QUOTES = frozenset("'\"")
_PREFIXES = frozenset("rRuU")
_STRING_START = _QUOTES | _PREFIXES
_NUMBER_START = frozenset("0123456789.")
_SIGNS = frozenset("+-")
_CLOSERS = {"[": "]", "(": ")", "{": "}"}
_CONSTANTS = {
    "T": ("True", True),
    "t": ("true", True),
    "F": ("False", False),
    "f": ("false", False),
    "N": ("None", None),
    "n": ("null", None),
}


def _normalise(name: str) -> str:
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


# -- JSON text ----------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\\ud800-\udfff]')


def _escape_surrogates(text: str) -> str:
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _json(value: Any) -> str:
    """`value` as JSON text in the one style used throughout (lone surrogates escaped)."""
    return _escape_surrogates(json.dumps(value, ensure_ascii=False))


def _json_string_body(text: str) -> str:
    """`text` escaped for the inside of a JSON string, exactly as `_json` escapes it."""
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return _escape_surrogates(encode_basestring(text)[1:-1])


def _join_surrogate_pairs(text: str) -> str:
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


# -- tokens -------------------------------------------------------------------------------


def _next(inp: Input, pos: int) -> _Gen[tuple[int, str]]:
    """Skip whitespace from `pos`: the position after it and the character there ("" at
    end of input). Needs more while the whitespace reaches the end of the input."""
    while True:
        buf = inp.buf
        i = _WHITESPACE.match(buf, pos - inp.base).end()  # type: ignore[union-attr]
        pos = inp.base + i
        if i < len(buf):
            return pos, buf[i]
        if inp.eof:
            return pos, ""
        yield pos


def _char(inp: Input, pos: int, keep: int | None = None) -> _Gen[str]:
    """The character at `pos` ("" at end of input), once it has arrived; while waiting, the
    text from `keep` (by default `pos`) on stays readable."""
    while pos >= inp.end:
        if inp.eof:
            return ""
        yield pos if keep is None else keep
    return inp.buf[pos - inp.base]


def _identifier(inp: Input, pos: int) -> _Gen[tuple[str, int]]:
    """The identifier whose first character is at `pos`; needs more while it reaches the end."""
    scan = pos + 1
    while True:
        buf, base = inp.buf, inp.base
        end = _WORD.match(buf, scan - base).end()  # type: ignore[union-attr]
        if end < len(buf) or inp.eof:
            return _normalise(buf[pos - base : end]), base + end
        scan = base + end
        yield pos


def _dotted_name(inp: Input, pos: int) -> _Gen[tuple[str, int]]:
    parts = []
    while True:
        part, end = yield from _identifier(inp, pos)
        parts.append(part)
        if (yield from _char(inp, end)) != ".":
            return ".".join(parts), end
        pos = end + 1
        if _IDENTIFIER_START.match((yield from _char(inp, pos))) is None:
            raise Backtrack(pos, ("an identifier",))


def _constant(inp: Input, pos: int, word: str, value: Any) -> _Gen[tuple[Any, int]]:
    """`word` at `pos`; fails at its first differing character."""
    while True:
        start = pos - inp.base
        got = inp.buf[start : start + len(word)]
        if got == word:
            return value, pos + len(word)
        if not word.startswith(got) or inp.eof:
            same = 0
            while same < len(got) and got[same] == word[same]:
                same += 1
            raise Backtrack(pos + same, (quote(word),))
        yield pos


# -- numbers: an automaton over Python's number syntax, digit runs skipped by regex ---------

(
    _START,
    _ZERO,  # `0`: may still become `0x…`, `0.5`, `0e1`, `00`
    _ZEROS,
    _ZEROS_UNDERSCORE,
    _LEADING,  # `007`: only valid as the start of a float (`007.5`, `007e1`)
    _LEADING_UNDERSCORE,
    _INT,
    _INT_UNDERSCORE,
    _DOT,  # a leading `.`
    _POINT,  # `1.`
    _FRACTION,
    _FRACTION_UNDERSCORE,
    _EXPONENT_MARK,
    _EXPONENT_SIGN,
    _EXPONENT,
    _EXPONENT_UNDERSCORE,
    _HEX_MARK,
    _HEX,
    _HEX_UNDERSCORE,
    _OCTAL_MARK,
    _OCTAL,
    _OCTAL_UNDERSCORE,
    _BINARY_MARK,
    _BINARY,
    _BINARY_UNDERSCORE,
) = range(25)

_DIGITS = "0123456789"
_NONZERO = "123456789"
_HEX_DIGITS = _DIGITS + "abcdefABCDEF"
_FLOAT_TAIL = {".": _POINT, "eE": _EXPONENT_MARK}


def _moves(*groups: dict[str, int]) -> dict[str, int]:
    return {char: state for group in groups for chars, state in group.items() for char in chars}


_NUMBER_MOVES: dict[int, dict[str, int]] = {
    _START: _moves({"0": _ZERO, _NONZERO: _INT, ".": _DOT}),
    _ZERO: _moves(
        {"0": _ZEROS, "_": _ZEROS_UNDERSCORE, _NONZERO: _LEADING, "xX": _HEX_MARK},
        {"oO": _OCTAL_MARK, "bB": _BINARY_MARK},
        _FLOAT_TAIL,
    ),
    _ZEROS: _moves({"0": _ZEROS, "_": _ZEROS_UNDERSCORE, _NONZERO: _LEADING}, _FLOAT_TAIL),
    _ZEROS_UNDERSCORE: _moves({"0": _ZEROS, _NONZERO: _LEADING}),
    _LEADING: _moves({_DIGITS: _LEADING, "_": _LEADING_UNDERSCORE}, _FLOAT_TAIL),
    _LEADING_UNDERSCORE: _moves({_DIGITS: _LEADING}),
    _INT: _moves({_DIGITS: _INT, "_": _INT_UNDERSCORE}, _FLOAT_TAIL),
    _INT_UNDERSCORE: _moves({_DIGITS: _INT}),
    _DOT: _moves({_DIGITS: _FRACTION}),
    _POINT: _moves({_DIGITS: _FRACTION, "eE": _EXPONENT_MARK}),
    _FRACTION: _moves({_DIGITS: _FRACTION, "_": _FRACTION_UNDERSCORE, "eE": _EXPONENT_MARK}),
    _FRACTION_UNDERSCORE: _moves({_DIGITS: _FRACTION}),
    _EXPONENT_MARK: _moves({"+-": _EXPONENT_SIGN, _DIGITS: _EXPONENT}),
    _EXPONENT_SIGN: _moves({_DIGITS: _EXPONENT}),
    _EXPONENT: _moves({_DIGITS: _EXPONENT, "_": _EXPONENT_UNDERSCORE}),
    _EXPONENT_UNDERSCORE: _moves({_DIGITS: _EXPONENT}),
    _HEX_MARK: _moves({_HEX_DIGITS: _HEX, "_": _HEX_UNDERSCORE}),
    _HEX: _moves({_HEX_DIGITS: _HEX, "_": _HEX_UNDERSCORE}),
    _HEX_UNDERSCORE: _moves({_HEX_DIGITS: _HEX}),
    _OCTAL_MARK: _moves({"01234567": _OCTAL, "_": _OCTAL_UNDERSCORE}),
    _OCTAL: _moves({"01234567": _OCTAL, "_": _OCTAL_UNDERSCORE}),
    _OCTAL_UNDERSCORE: _moves({"01234567": _OCTAL}),
    _BINARY_MARK: _moves({"01": _BINARY, "_": _BINARY_UNDERSCORE}),
    _BINARY: _moves({"01": _BINARY, "_": _BINARY_UNDERSCORE}),
    _BINARY_UNDERSCORE: _moves({"01": _BINARY}),
}
_NUMBER_RUNS = {
    state: re.compile(pattern)
    for state, pattern in (
        (_INT, "[0-9]*"),
        (_LEADING, "[0-9]*"),
        (_FRACTION, "[0-9]*"),
        (_EXPONENT, "[0-9]*"),
        (_ZEROS, "0*"),
        (_HEX, "[0-9a-fA-F]*"),
        (_OCTAL, "[0-7]*"),
        (_BINARY, "[01]*"),
    )
}
_INTEGERS = frozenset((_ZERO, _ZEROS, _INT, _HEX, _OCTAL, _BINARY))
_FLOATS = frozenset((_POINT, _FRACTION, _EXPONENT))
_NUMBER_EXPECTED = {
    _LEADING: ("a digit, `.` or an exponent (a decimal integer has no leading zeros)",),
    _EXPONENT_MARK: ("a digit", "`+`", "`-`"),
    _HEX_MARK: ("a hex digit",),
    _HEX_UNDERSCORE: ("a hex digit",),
    _OCTAL_MARK: ("an octal digit",),
    _OCTAL_UNDERSCORE: ("an octal digit",),
    _BINARY_MARK: ("a binary digit",),
    _BINARY_UNDERSCORE: ("a binary digit",),
}


def _scan_number(buf: str, i: int, state: int) -> tuple[int, int, bool]:
    """Advance the automaton over `buf[i:]`: `(position, state, stopped)`, where `stopped`
    means `buf[position]` cannot continue the number."""
    n = len(buf)
    while i < n:
        following = _NUMBER_MOVES[state].get(buf[i])
        if following is None:
            return i, state, True
        state = following
        i += 1
        run = _NUMBER_RUNS.get(state)
        if run is not None:
            i = run.match(buf, i).end()  # type: ignore[union-attr]
    return i, state, False


def _number(inp: Input, pos: int) -> _Gen[tuple[Any, int]]:
    """An unsigned number at `pos`; needs more while it reaches the end of the input."""
    state = _START
    scan = pos
    while True:
        buf, base = inp.buf, inp.base
        i, state, stopped = _scan_number(buf, scan - base, state)
        if stopped or inp.eof:
            break
        scan = base + i
        yield pos
    if state not in _INTEGERS and state not in _FLOATS:
        raise Backtrack(base + i, _NUMBER_EXPECTED.get(state, ("a digit",)))
    text = buf[pos - base : i]
    if state in _FLOATS:
        value: Any = float(text)
        if math.isinf(value):
            raise Backtrack(pos, ("a finite number (this one overflows a float)",))
        return value, base + i
    try:
        return int(text, 0), base + i
    except ValueError:
        raise Backtrack(pos, ("an integer with fewer digits (beyond Python's limit)",)) from None


# -- strings ------------------------------------------------------------------------------

_STRING_RUNS = {
    ('"', False): re.compile(r'[^"\\\n\r\x00]*'),
    ("'", False): re.compile(r"[^'\\\n\r\x00]*"),
    ('"', True): re.compile(r'[^"\\\r\x00]*'),
    ("'", True): re.compile(r"[^'\\\r\x00]*"),
}
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\n": "",  # a line continuation
}
_OCTAL_RUN = re.compile("[0-7]*")
_HEX_RUN = re.compile("[0-9a-fA-F]*")
_HEX_LENGTHS = {"x": 2, "u": 4, "U": 8}
_NAME_RUN = re.compile(r"[A-Za-z0-9 \-]*")
_LONGEST_NAME = 128  # longer than any Unicode character name
_NUL = ("a character other than NUL",)


def _escape(buf: str, i: int, base: int, raw: bool, final: bool) -> tuple[str, int] | None:
    """The escape at `buf[i] == "\\"`: its decoded text and end (relative), or None while
    it is incomplete at the end of `buf` (`final`: no more input will come)."""
    n = len(buf)
    if i + 1 == n:
        if final:
            raise Backtrack(base + n, ("an escaped character",))
        return None
    char = buf[i + 1]
    if char == "\r":  # a line break after a backslash: CR LF counts as one
        if i + 2 == n and not final:
            return None
        return ("\\\n" if raw else ""), (i + 3 if buf.startswith("\n", i + 2) else i + 2)
    if char == "\x00":
        raise Backtrack(base + i + 1, _NUL)
    if raw:
        return "\\" + char, i + 2
    simple = _SIMPLE_ESCAPES.get(char)
    if simple is not None:
        return simple, i + 2
    if "0" <= char <= "7":
        end = _OCTAL_RUN.match(buf, i + 1, i + 4).end()  # type: ignore[union-attr]
        if end == n and end < i + 4 and not final:
            return None
        return chr(int(buf[i + 1 : end], 8)), end
    length = _HEX_LENGTHS.get(char)
    if length is not None:
        return _hex_escape(buf, i + 2, length, base, final)
    if char == "N":
        return _named_escape(buf, i + 2, base, final)
    return "\\" + char, i + 2  # an unknown escape keeps its backslash


def _hex_escape(
    buf: str, start: int, length: int, base: int, final: bool
) -> tuple[str, int] | None:
    end = _HEX_RUN.match(buf, start, start + length).end()  # type: ignore[union-attr]
    digits = buf[start:end]
    for k in range(len(digits) if length == 8 else 0):
        if int(digits[: k + 1].ljust(length, "0"), 16) > 0x10FFFF:
            raise Backtrack(base + start + k, ("a code point at most U+10FFFF",))
    if end < start + length:
        if end == len(buf) and not final:
            return None
        raise Backtrack(base + end, ("a hex digit",))
    return chr(int(digits, 16)), end


def _named_escape(buf: str, brace: int, base: int, final: bool) -> tuple[str, int] | None:
    n = len(buf)
    if brace == n:
        if final:
            raise Backtrack(base + n, ("`{`",))
        return None
    if buf[brace] != "{":
        raise Backtrack(base + brace, ("`{`",))
    limit = brace + 1 + _LONGEST_NAME
    end = _NAME_RUN.match(buf, brace + 1, limit).end()  # type: ignore[union-attr]
    if end == n and end < limit and not final:
        return None
    if end == n or buf[end] != "}":
        raise Backtrack(base + end, ("a Unicode character name and `}`",))
    try:
        char = unicodedata.lookup(buf[brace + 1 : end])
    except KeyError:
        char = ""
    if len(char) != 1:
        raise Backtrack(base + brace + 1, ("a known Unicode character name",))
    return char, end + 1


def _opening(inp: Input, pos: int) -> _Gen[tuple[bool, str, bool, int, bool]]:
    """The opening of the string literal at `pos`: `(raw, quote, triple, at, empty)`, where
    `at` is where the body starts, or for an empty literal (`""`) where the literal ends."""
    char = inp.buf[pos - inp.base]
    raw = char in "rR"
    if char in _PREFIXES:
        pos += 1
        char = yield from _char(inp, pos)
        if char not in _QUOTES:
            raise Backtrack(pos, _QUOTE)
    while True:  # one quote, two (an empty string) or three (a triple-quoted string)?
        i = pos - inp.base
        following = inp.buf[i + 1 : i + 3]
        if len(following) == 2 or inp.eof or following[:1] not in ("", char):
            break
        yield pos
    if following == char * 2:
        return raw, char, True, pos + 3, False
    if following[:1] == char:
        return raw, char, False, pos + 2, True
    return raw, char, False, pos + 1, False


def _strings(inp: Input, pos: int, emit: bool) -> _Gen[tuple[str, int, str]]:
    """One or more adjacent string literals (implicit concatenation) at `pos`: the decoded
    text, then the position and character after the whitespace that follows them. With
    `emit`, the decoded text streams as escaped JSON string pieces as it arrives."""
    parts: list[str] = []
    while True:
        raw, char, triple, scan, empty = yield from _opening(inp, pos)
        end = scan if empty else -1
        run = _STRING_RUNS[char, triple].match
        closing = char * 3 if triple else char
        while end < 0:
            buf, base, final = inp.buf, inp.base, inp.eof
            n = len(buf)
            i = scan - base
            stop = run(buf, i).end()  # type: ignore[union-attr]
            if stop == n and not final:  # the hot path: plain text up to the end
                if stop > i:
                    piece = buf[i:]
                    parts.append(piece)
                    if emit:
                        if _NEEDS_ESCAPE.search(piece) is not None:
                            piece = _json_string_body(piece)
                        inp.out.append(new_text((piece, scan)))
                    scan = base + n
                yield scan
                continue
            emitted = len(parts)
            try:
                while True:
                    if stop > i:
                        parts.append(buf[i:stop])
                        i = stop
                    if i == n:
                        break
                    found = buf[i]
                    if found == char:
                        if not triple or buf.startswith(closing, i):
                            end = base + i + len(closing)
                            break
                        doubled = buf.startswith(char, i + 1)
                        if (i + 1 == n or (doubled and i + 2 == n)) and not final:
                            break  # may be the start of the closing quotes
                        quotes = 2 if doubled else 1
                        parts.append(char * quotes)
                        i += quotes
                    elif found == "\\":
                        simple = None if raw else _SIMPLE_ESCAPES.get(buf[i + 1 : i + 2])
                        if simple is not None:  # the common case, inline
                            parts.append(simple)
                            i += 2
                        else:
                            escaped = _escape(buf, i, base, raw, final)
                            if escaped is None:
                                break
                            text, i = escaped
                            parts.append(text)
                    elif found == "\r" and triple:  # CR and CR LF read as LF, as Python does
                        if i + 1 == n and not final:
                            break
                        parts.append("\n")
                        i += 2 if buf.startswith("\n", i + 1) else 1
                    elif found == "\x00":
                        raise Backtrack(base + i, _NUL)
                    else:
                        expected = f"{quote(char)} (escape newlines in a one-line string)"
                        raise Backtrack(base + i, (expected,))
                    stop = run(buf, i).end()  # type: ignore[union-attr]
            finally:  # also before a failure: what was read before it streams, as in deltas
                if emit and len(parts) > emitted:
                    piece = _json_string_body("".join(parts[emitted:]))
                    inp.out.append(new_text((piece, scan)))
            if end < 0:
                if final:
                    raise Backtrack(base + n, (quote(closing),))
                scan = base + i
                yield scan
        pos, char = yield from _next(inp, end)
        if char in _PREFIXES and (yield from _char(inp, pos + 1, keep=pos)) not in _QUOTES:
            raise Backtrack(pos + 1, _QUOTE)
        if char not in _STRING_START:
            return _join_surrogate_pairs("".join(parts)), pos, char


# -- values -------------------------------------------------------------------------------


def _value(
    inp: Input,
    pos: int,
    char: str,
    depth: int,
    bound: Bound,
    expected: tuple[str, ...],
    hashable: bool = False,
) -> _Gen[tuple[Any, int, str]]:
    """The literal starting with `char` at `pos`: its value, then the position and character
    after the whitespace that follows it (`hashable`: no list, dict or set). Anything else
    fails at `pos`, expecting `expected`."""
    if char in _STRING_START:
        return (yield from _strings(inp, pos, False))
    if char in _CLOSERS:
        return (yield from _container(inp, pos, char, depth, bound, hashable))
    value: Any
    if char in _NUMBER_START:
        value, end = yield from _number(inp, pos)
    elif char in _SIGNS:
        pos, following = yield from _next(inp, pos + 1)
        if following not in _NUMBER_START:
            raise Backtrack(pos, ("a number",))
        value, end = yield from _number(inp, pos)
        value = -value if char == "-" else value
    elif char in _CONSTANTS:
        value, end = yield from _constant(inp, pos, *_CONSTANTS[char])
    else:
        raise Backtrack(pos, expected)
    pos, char = yield from _next(inp, end)
    return value, pos, char


def _container(
    inp: Input, pos: int, opener: str, depth: int, bound: Bound, hashable: bool = False
) -> _Gen[tuple[Any, int, str]]:
    """A list, tuple, parenthesised literal, dict or set at `pos`, inside `depth` levels
    (the call's parentheses the first); tuples become lists, a set the list of its distinct
    elements in the order written (each `hashable`: no list, dict or set inside). A `{`
    holds a dict where its first item is a string followed by `:`, else a set. With
    `hashable` only a tuple or parenthesised literal is allowed."""
    if depth == bound[0]:
        raise Backtrack(pos, bound[1])
    if hashable and opener != "(":
        raise Backtrack(pos, (_HASHABLE,))
    closer = _CLOSERS[opener]
    at_item = (_STRING_KEY if opener == "{" else _LITERAL, quote(closer))
    after_item = ("`,`", quote(closer))
    items: list[Any] = []
    entries: dict[str, Any] | None = {} if opener == "{" else None
    commas = 0
    pos, char = yield from _next(inp, pos + 1)
    while char != closer:
        if entries is not None and (entries or not items) and char in _STRING_START:
            key, pos, char = yield from _strings(inp, pos, False)
            if char == ":" or entries:  # a dict's key, or its first a set's element
                if char != ":":
                    raise Backtrack(pos, ("`:`",))
                pos, char = yield from _next(inp, pos + 1)
                entries[key], pos, char = yield from _value(
                    inp, pos, char, depth + 1, bound, (_LITERAL,)
                )
            else:
                entries, items = None, [key]
        elif entries:
            raise Backtrack(pos, at_item)
        else:
            member = opener == "{" or hashable
            value, pos, char = yield from _value(
                inp, pos, char, depth + 1, bound, at_item, hashable=member
            )
            if entries is not None and char == ":":
                raise Backtrack(pos, (_SET_ITEM, quote(closer)))
            entries = None
            items.append(value)
        if char == ",":
            commas += 1
            pos, char = yield from _next(inp, pos + 1)
        elif char != closer:
            raise Backtrack(pos, after_item)
    pos, char = yield from _next(inp, pos + 1)
    if entries is not None:
        return entries, pos, char
    if opener == "{":
        return _distinct(items), pos, char
    if opener == "(" and len(items) == 1 and not commas:
        return items[0], pos, char
    return items, pos, char


def _distinct(items: list[Any]) -> list[Any]:
    """A set's elements, each first occurrence in order (equal as Python's set finds them:
    `1`, `1.0` and `True` are one)."""
    seen: set[Any] = set()
    kept = []
    for item in items:
        key = _frozen(item)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _frozen(value: Any) -> Any:
    """A set element as Python holds it: a tuple (read as a list) as a tuple."""
    return tuple(map(_frozen, value)) if isinstance(value, list) else value


# -- calls --------------------------------------------------------------------------------


def _call(
    inp: Input, pos: int, tags: tuple[str, str, str], bound: Bound
) -> _Gen[tuple[tuple[str, dict[str, Any]], int]]:
    """The call whose name starts at `pos` (its first character has arrived), its keyword
    arguments streamed as JSON text, nesting within `bound` levels (its parentheses the
    first)."""
    call_tag, name_tag, arguments_tag = tags
    name, name_end = yield from _dotted_name(inp, pos)
    paren, char = yield from _next(inp, name_end)
    if char != "(":
        raise Backtrack(paren, ("`(`",))
    inp.out += (
        Open(call_tag, pos),
        Open(name_tag, pos),
        Close(name_tag, name_end, name),
        Open(arguments_tag, paren),
        Text("{", paren),
    )
    arguments: dict[str, Any] = {}
    try:
        pos, char = yield from _next(inp, paren + 1)
        while char != ")":
            if _IDENTIFIER_START.match(char) is None:
                raise Backtrack(pos, (_KEYWORD, "`)`"))
            key, key_end = yield from _identifier(inp, pos)
            if key in arguments:
                raise Backtrack(pos, (f"a keyword other than {quote(key)} (repeated keyword)",))
            equals, char = yield from _next(inp, key_end)
            if char != "=":
                raise Backtrack(equals, (_EQUALS,))
            lead = (", " if arguments else "") + encode_basestring(key) + ": "
            start, char = yield from _next(inp, equals + 1)
            if char in _STRING_START:
                inp.out.append(Text(lead + '"', pos))
                value, pos, char = yield from _strings(inp, start, True)
                inp.out.append(Text('"', pos))
            else:
                value, pos, char = yield from _value(inp, start, char, 1, bound, (_LITERAL,))
                inp.out.append(Text(lead + _json(value), start))
            arguments[key] = value
            if char == ",":
                pos, char = yield from _next(inp, pos + 1)
            elif char != ")":
                raise Backtrack(pos, ("`,`", "`)`"))
    except ParseFailure as failure:
        failure.context += (arguments_tag, call_tag)
        raise
    end = pos + 1
    inp.out += (
        Text("}", pos),
        Close(arguments_tag, end, arguments),
        Close(call_tag, end, (name, arguments)),
    )
    return (name, arguments), end


class _CallParser(Parser[T]):
    def __init__(self, tags: tuple[str, str, str], max_depth: int) -> None:
        if max_depth < 1:
            raise ValueError("max_depth must be positive")
        self.tags = tags
        self.max_depth = max_depth
        # In levels counted from the call's parentheses, as the run's bound counts them.
        self.own: Bound = (max_depth + 1, (f"a literal nested at most {max_depth} deep",))


class PythonCall(_CallParser[tuple[str, dict[str, Any]]]):
    """One call `name(k=v, ...)` (see the module docstring); the value is `(name, arguments)`.

    Needs more while the text so far is a proper prefix of a call; fails at the first
    character no call could have there; at end of input an unfinished call fails at the end.
    """

    def step(self, inp: Input, pos: int) -> Step[tuple[str, dict[str, Any]]]:
        if _IDENTIFIER_START.match((yield from _char(inp, pos))) is None:
            raise Backtrack(pos, (_CALL,))
        return (yield from _call(inp, pos, self.tags, nesting_bound(inp, self.own)))


class PythonCalls(_CallParser[list[tuple[str, dict[str, Any]]]]):
    """A list of calls `[f(...), g(...)]`: the empty list and a trailing comma are allowed,
    as in Python. The value is the list of `(name, arguments)`; end of input as `PythonCall`.
    """

    def step(self, inp: Input, pos: int) -> Step[list[tuple[str, dict[str, Any]]]]:
        if (yield from _char(inp, pos)) != "[":
            raise Backtrack(pos, ("`[`",))
        calls = []
        bound = nesting_bound(inp, self.own)
        pos, char = yield from _next(inp, pos + 1)
        while char != "]":
            if _IDENTIFIER_START.match(char) is None:
                raise Backtrack(pos, (_CALL, "`]`"))
            call, end = yield from _call(inp, pos, self.tags, bound)
            calls.append(call)
            pos, char = yield from _next(inp, end)
            if char == ",":
                pos, char = yield from _next(inp, pos + 1)
            elif char != "]":
                raise Backtrack(pos, ("`,`", "`]`"))
        return calls, pos + 1


class PythonName(Parser[str]):
    """A callee's name, as a list of calls names it: a dotted Python name (see the module
    docstring) whose last part may follow `-`-joined words (`read-file`, as MCP tools are
    named; `python_call` reads the call from that last part on), at most `limit`
    characters (a longer one fails after `limit` of them, expecting at most that many);
    with `names`, only one of them. The value is the name as written.

    Needs more while the name reaches the end of the input. Fails at its start where no
    name starts (expecting `a tool name`), and at its end where the characters there are no
    such name or not one of `names`."""

    def __init__(self, names: Collection[str] | None, limit: int) -> None:
        self.pattern = re.compile(rf"[^\W\d][\w.-]{{0,{limit - 1}}}")
        self.limit = limit
        self.token = regex(self.pattern).desc("a tool name")
        self.names = names
        self.declared = None if names is None else f"a declared tool name ({len(names)} declared)"

    def step(self, inp: Input, pos: int) -> Step[str]:
        name, end = yield from self.token.step(inp, pos)
        if end - pos == self.limit:
            while end == inp.end and not inp.eof:
                yield pos
            if self.pattern.match(inp.buf, end - inp.base, end - inp.base + 1) is not None:
                raise Backtrack(end, (f"a tool name of at most {self.limit} characters",))
        expected = self.refused(name)
        if expected is not None:
            raise Backtrack(end, (expected,))
        return name, end

    def refused(self, name: str) -> str | None:
        """What a name `name` fails expecting, or None: it is one."""
        if _PYTHON_NAME.fullmatch(name.rpartition("-")[2]) is None:
            return "a tool name"
        if self.names is not None and name not in self.names:
            return self.declared
        return None


_PYTHON_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def python_name(names: Collection[str] | None = None, *, limit: int = 256) -> Parser[str]:
    """A callee's name in a list of pseudo-function calls, one of `names` when given (see
    `PythonName`)."""
    return PythonName(names, limit)


def python_call(
    *,
    call_tag: str = TOOL_CALL,
    name_tag: str = TOOL_NAME,
    arguments_tag: str = TOOL_ARGUMENTS,
    max_depth: int = 100,
) -> Parser[tuple[str, dict[str, Any]]]:
    """One pseudo-function call `name(a="x", b=3)`; `(name, arguments)` (see `PythonCall`)."""
    return PythonCall((call_tag, name_tag, arguments_tag), max_depth)


def python_calls(
    *,
    call_tag: str = TOOL_CALL,
    name_tag: str = TOOL_NAME,
    arguments_tag: str = TOOL_ARGUMENTS,
    max_depth: int = 100,
) -> Parser[list[tuple[str, dict[str, Any]]]]:
    """A list of pseudo-function calls `[f(a=1), g(b="y")]` (see `PythonCalls`)."""
    return PythonCalls((call_tag, name_tag, arguments_tag), max_depth)
