"""Strict, resumable, incremental JSON (RFC 8259) that streams its raw text.

`JsonValue.step` reads the text token by token with an explicit container stack (`_Reader`),
from where it stopped on each delta: nothing is read twice, except a held token — a
literal, an escape, a surrogate pair — looked at again when more of it arrives. The raw
pieces are kept and the value decoded once at the end, by `orjson` where that is exact,
else by `json`: it is what `json.loads` gives. `partial_json` turns the text streamed so far
into the value so far.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any, cast

import orjson

from ..combinators.parser import Parser, Step, quote
from ..combinators.result import Backtrack
from ..combinators.stream import Input, Text
from .depth import Bound, nesting_bound

_Match = Callable[..., "re.Match[str]"]


def matcher(pattern: str) -> _Match:
    """`match` of a pattern that matches the empty string, so it never gives None."""
    return cast(_Match, re.compile(pattern).match)


_WHITESPACE = " \t\n\r"
_skip_whitespace = matcher(r"[ \t\n\r]*")
PLAIN = r'[^"\\\x00-\x1f]*'
"""A run of string characters that need no escape."""
_plain_run = matcher(PLAIN)
LOW_SURROGATE_PREFIX = r"(?:\\(?:u(?:[dD](?:[c-fC-F][0-9a-fA-F]?)?)?)?)?"
"""A proper prefix of a low-surrogate escape (possibly empty)."""
_low_surrogate = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}").match
_low_surrogate_prefix = re.compile(LOW_SURROGATE_PREFIX).fullmatch
_hex_run = matcher(r"[0-9a-fA-F]{0,4}")
_digits = matcher(r"[0-9]*")
LITERALS = {"t": "true", "f": "false", "n": "null"}
_ESCAPED = frozenset('"\\/bfnrt')
NUMBER_START = frozenset("-0123456789")
EXACT_DIGITS = 18
"""orjson turns integers beyond 64 bits into floats: longer integer tokens decode with `json`."""

# The number automaton: its states and, per state, the characters that move it on.
START, _MINUS, _ZERO, _INT, _DOT, _FRAC, _EXP_MARK, _EXP_SIGN, _EXP = range(9)
NUMBER_MOVES: tuple[dict[str, int], ...] = (
    {"-": _MINUS, "0": _ZERO, **dict.fromkeys("123456789", _INT)},
    {"0": _ZERO, **dict.fromkeys("123456789", _INT)},
    {".": _DOT, "e": _EXP_MARK, "E": _EXP_MARK},
    {".": _DOT, "e": _EXP_MARK, "E": _EXP_MARK, **dict.fromkeys("0123456789", _INT)},
    dict.fromkeys("0123456789", _FRAC),
    {"e": _EXP_MARK, "E": _EXP_MARK, **dict.fromkeys("0123456789", _FRAC)},
    {"+": _EXP_SIGN, "-": _EXP_SIGN, **dict.fromkeys("0123456789", _EXP)},
    dict.fromkeys("0123456789", _EXP),
    dict.fromkeys("0123456789", _EXP),
)
_DIGIT_RUNS = frozenset((_INT, _FRAC, _EXP))
COMPLETE_NUMBERS = frozenset((_ZERO, _INT, _FRAC, _EXP))
INTEGERS = frozenset((_ZERO, _INT))
NUMBER_EXPECTED = {
    _MINUS: ("a digit",),
    _DOT: ("a digit",),
    _EXP_MARK: ("a digit", "`+`", "`-`"),
    _EXP_SIGN: ("a digit",),
}

# Reader states: what the text at the scan position must be.
VALUE, FIRST_ITEM, FIRST_KEY, KEY, COLON, AFTER_VALUE = range(6)
STRING, NUMBER, LITERAL, TOP_OBJECT, TOP_STRING = range(6, 11)
HELD = frozenset((NUMBER, LITERAL))
"""The states of a token held back until complete (from `_Reader.token`)."""
EXPECTED = {
    VALUE: ("a JSON value",),
    FIRST_ITEM: ("a JSON value", "`]`"),
    FIRST_KEY: ("an object key", "`}`"),
    KEY: ("an object key",),
    COLON: ("`:`",),
    STRING: ('`"`',),
    TOP_OBJECT: ("a JSON object",),
    TOP_STRING: ("a JSON string",),
}
AFTER_ITEM = ("`,`", "`]`")
AFTER_MEMBER = ("`,`", "`}`")
RAW_CONTROL = ("a string character (control characters must be escaped)",)
_ESCAPE_CHAR = ('an escape character (one of `"\\/bfnrtu`)',)
_HEX_DIGIT = ("a hex digit",)


class Invalid(Exception):
    """No continuation of the text could be valid at `position` (relative to the buffer);
    the text before `clean` is validated and is emitted before the failure."""

    def __init__(self, position: int, clean: int, expected: tuple[str, ...]) -> None:
        self.position = position
        self.clean = clean
        self.expected = expected


def decode(text: str, exact: bool = False) -> Any:
    """`json.loads(text)` for valid JSON text: by `orjson` unless that would be inexact
    (`exact`: long integers) or it rejects the text (lone surrogates, numbers beyond float
    range)."""
    if not exact:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def escape_end(buf: str, i: int, n: int, final: bool) -> int:
    """End of the escape at `buf[i] == "\\"` within `buf[:n]`, or -1 while it is incomplete
    and more may come (`final` false). A high-surrogate `\\u` escape ends after the low
    surrogate that follows it, so a pair is never split; it is held while one may follow."""
    if i + 1 >= n:
        if final:
            raise Invalid(n, i, _ESCAPE_CHAR)
        return -1
    char = buf[i + 1]
    if char in _ESCAPED:
        return i + 2
    if char != "u":
        raise Invalid(i + 1, i, _ESCAPE_CHAR)
    end = _hex_run(buf, i + 2, n).end()
    if end < i + 6:
        if end < n or final:
            raise Invalid(end, i, _HEX_DIGIT)
        return -1
    if not 0xD800 <= int(buf[i + 2 : i + 6], 16) < 0xDC00:
        return i + 6
    if _low_surrogate(buf, i + 6, n):
        return i + 12
    if not final and _low_surrogate_prefix(buf, i + 6, n):
        return -1
    return i + 6


def add_key(stack: list[set[str] | None], key: str, closing_quote: int) -> None:
    """Record `key` in the innermost object; a second occurrence fails at its closing quote."""
    keys = stack[-1]
    assert keys is not None
    if key in keys:
        duplicate = f"a key other than {quote(key)} (duplicate key)"
        raise Invalid(closing_quote, closing_quote, (duplicate,))
    keys.add(key)


def scan_number(buf: str, i: int, n: int, state: int) -> tuple[int, int, bool]:
    """Run the number automaton from `state` over `buf[i:n]`: `(position, state, stopped)`,
    where `stopped` means `buf[position]` does not continue the number."""
    moves = NUMBER_MOVES
    while i < n:
        following = moves[state].get(buf[i])
        if following is None:
            return i, state, True
        state = following
        i += 1
        if state in _DIGIT_RUNS:
            i = _digits(buf, i, n).end()
    return i, state, False


def check_integer(buf: str, start: int, end: int) -> None:
    """Fail an integer too long for Python to convert (on which `json.loads` raises)."""
    limit: int = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if limit and end - start - (buf[start] == "-") > limit:
        raise Invalid(end, start, (f"a fraction or exponent (an integer of over {limit} digits)",))


def emit(inp: Input, raw: list[str], buf: str, base: int, start: int, end: int) -> int:
    """Stream the validated text from `start` to `end` (stream offsets); the new watermark."""
    if end > start:
        piece = buf[start - base : end - base]
        raw.append(piece)
        inp.out.append(Text(piece, start))
    return end


class JsonValue(Parser[Any]):
    """One JSON value (`kind`: "value", "object" or "string") at the current position.

    Surrounding whitespace is not consumed. Streams the raw text of the value as `Text`
    items, cut at clean token boundaries only: a number is held until the character after it
    (or the end of input) shows it is complete, `true`/`false`/`null` until complete, an
    escape until complete, a high-surrogate escape with the low surrogate that may follow;
    string bodies stream as they arrive. The pieces add up to the raw text exactly (on a
    failure, to the validated text before it).

    Needs more while the text so far is a proper prefix of a valid value; fails at the first
    character no valid value could have there, or, at end of input, at the end, expecting
    what was needed. A second occurrence of a key in one object fails at its closing quote;
    nesting deeper than `max_depth` (or the run's lower `max_depth`, unless `run_depth` is
    false: see `values.depth`) fails at the opening bracket, and a value longer than
    `max_size` characters at the first character beyond the limit.
    """

    def __init__(
        self, kind: str, max_depth: int, max_size: int | None, *, run_depth: bool = True
    ) -> None:
        if not 1 <= max_depth <= 500:
            raise ValueError("max_depth must be between 1 and 500 (the decoders' own bounds)")
        if max_size is not None and max_size < 1:
            raise ValueError("max_size must be positive")
        self.start_state = {"value": VALUE, "object": TOP_OBJECT, "string": TOP_STRING}[kind]
        self.max_depth = max_depth
        self.max_size = max_size
        self.run_depth = run_depth
        self.too_deep = (
            f"a value nested at most {max_depth} deep (nesting deeper than {max_depth})",
        )
        self.own: Bound = (max_depth, self.too_deep)
        self.too_long = (
            f"the value to end within {max_size} characters "
            f"(JSON text longer than {max_size} characters)",
        )

    def bound(self, inp: Input) -> Bound:
        """How deep a value read in `inp`'s run may nest (see `values.depth`)."""
        return nesting_bound(inp, self.own) if self.run_depth else self.own

    def step(self, inp: Input, pos: int) -> Step[Any]:
        reader = _Reader(self, pos, self.bound(inp))
        limit = None if self.max_size is None else pos + self.max_size
        raw: list[str] = []  # the emitted pieces, joined once for the final decode
        scan = emitted = pos
        while True:
            buf, base = inp.buf, inp.base
            n = size = len(buf)
            if limit is not None and limit - base < size:
                n = limit - base  # reading stops at the limit: a value crossing it fails there
            try:
                i = reader.read(buf, base, scan - base, n, inp.eof and n == size)
            except Invalid as invalid:
                emit(inp, raw, buf, base, emitted, base + invalid.clean)
                raise Backtrack(base + invalid.position, invalid.expected) from None
            if reader.done:
                emit(inp, raw, buf, base, emitted, base + i)
                return decode("".join(raw), reader.exact), base + i
            clean = reader.token if reader.state in HELD else base + i
            emitted = emit(inp, raw, buf, base, emitted, clean)
            if n < size:
                raise Backtrack(base + n, self.too_long)
            if inp.eof:
                raise Backtrack(base + n, reader.expected())
            scan = base + i
            yield reader.key_start if reader.state == STRING and reader.key_start >= 0 else emitted


class _Reader:
    """A JSON text being read: what the text at the reading position must be (`state`),
    the containers open around it (per container its keys, or None for an array), the key
    being read (from `key_start`; -1 while a string is a value), the number or literal held
    back (from `token`) and whether the value needs the exact decoder (a long integer).

    `read` takes one token after another, each from a function of the state, until the
    value is done or a token makes no progress: it needs the text after the buffer."""

    __slots__ = (
        "bound",
        "exact",
        "key_start",
        "literal",
        "number",
        "stack",
        "state",
        "token",
    )

    def __init__(self, parser: JsonValue, pos: int, bound: Bound) -> None:
        self.bound = bound  # how deep it may nest, and what a bracket past that expects
        self.state = parser.start_state
        self.stack: list[set[str] | None] = []
        self.key_start = -1
        self.token = pos
        self.number = START
        self.literal = ""
        self.exact = False

    @property
    def done(self) -> bool:
        return self.state == AFTER_VALUE and not self.stack

    def expected(self) -> tuple[str, ...]:
        """What the text must continue with here (at end of input: what was missing)."""
        if self.state == AFTER_VALUE:
            return AFTER_ITEM if self.stack[-1] is None else AFTER_MEMBER
        return EXPECTED[self.state]

    def read(self, buf: str, base: int, i: int, n: int, final: bool) -> int:
        """Read the tokens of `buf[i:n]` (`buf` starts at stream offset `base`); where it
        stopped. `final`: no character after `buf[n - 1]` will ever come."""
        while not self.done:
            state = self.state
            following = _TOKENS[state](self, buf, base, i, n, final)
            if following == i and self.state == state:
                break
            i = following
        return i

    def string(self, buf: str, base: int, i: int, n: int, final: bool) -> int:
        i = _plain_run(buf, i, n).end()
        if i == n:
            return i
        char = buf[i]
        if char == "\\":
            end = escape_end(buf, i, n, final)
            return i if end < 0 else end
        if char != '"':
            raise Invalid(i, i, RAW_CONTROL)
        if self.key_start < 0:
            self.state = AFTER_VALUE
        else:
            text = buf[self.key_start - base : i + 1]
            add_key(self.stack, decode(text) if "\\" in text else text[1:-1], i)
            self.key_start = -1
            self.state = COLON
        return i + 1

    def after_value(self, buf: str, base: int, i: int, n: int, final: bool) -> int:
        if i == n:
            return i
        char = buf[i]
        if char in _WHITESPACE:
            return _skip_whitespace(buf, i, n).end()
        keys = self.stack[-1]
        if char == ",":
            self.state = VALUE if keys is None else KEY
        elif char == ("]" if keys is None else "}"):
            self.stack.pop()
        else:
            raise Invalid(i, i, AFTER_ITEM if keys is None else AFTER_MEMBER)
        return i + 1

    def number_token(self, buf: str, base: int, i: int, n: int, final: bool) -> int:
        i, number, stopped = scan_number(buf, i, n, self.number)
        self.number = number
        if not (stopped or final) and (
            n == len(buf)  # more may come
            or self.stack  # inside a container, the size limit cuts the value
            or number not in COMPLETE_NUMBERS
            or buf[n] in NUMBER_MOVES[number]
        ):
            return i
        start = self.token - base
        if number not in COMPLETE_NUMBERS:
            raise Invalid(i, start, NUMBER_EXPECTED[number])
        if number in INTEGERS and i - start > EXACT_DIGITS:
            check_integer(buf, start, i)
            self.exact = True
        self.state = AFTER_VALUE
        return i

    def literal_token(self, buf: str, base: int, i: int, n: int, final: bool) -> int:
        literal, start = self.literal, self.token - base
        got = buf[start : min(start + len(literal), n)]
        if got == literal:
            self.state = AFTER_VALUE
            return start + len(literal)
        if not literal.startswith(got) or final:
            same = 0
            while same < len(got) and got[same] == literal[same]:
                same += 1
            raise Invalid(start + same, start, (quote(literal),))
        return n

    def structural(self, buf: str, base: int, i: int, n: int, final: bool) -> int:
        """A value's start, a key, `:`, or (at the top) the value's first character."""
        if i == n:
            return i
        char, state = buf[i], self.state
        if char in _WHITESPACE and self.stack:
            return _skip_whitespace(buf, i, n).end()
        if state <= FIRST_ITEM:
            return self.value_start(char, base, i)
        if state == COLON and char == ":":
            self.state = VALUE
            return i + 1
        if state in (KEY, FIRST_KEY) and char == '"':
            self.key_start = base + i
            self.state = STRING
            return i + 1
        if state == FIRST_KEY and char == "}":
            self.stack.pop()
            self.state = AFTER_VALUE
            return i + 1
        if char == ("{" if state == TOP_OBJECT else '"') and state >= TOP_OBJECT:
            self.state = VALUE
            return i
        raise Invalid(i, i, EXPECTED[state])

    def value_start(self, char: str, base: int, i: int) -> int:
        if char == '"':
            self.state = STRING
            return i + 1
        if char in "{[":
            if len(self.stack) == self.bound[0]:
                raise Invalid(i, i, self.bound[1])
            self.stack.append(set() if char == "{" else None)
            self.state = FIRST_KEY if char == "{" else FIRST_ITEM
            return i + 1
        if char == "]" and self.state == FIRST_ITEM:
            self.stack.pop()
            self.state = AFTER_VALUE
            return i + 1
        if char in NUMBER_START:
            self.number = START
            self.state = NUMBER
        elif char in LITERALS:
            self.literal = LITERALS[char]
            self.state = LITERAL
        else:
            raise Invalid(i, i, EXPECTED[self.state])
        self.token = base + i
        return i


_Token = Callable[[_Reader, str, int, int, int, bool], int]
_TOKENS: dict[int, _Token] = {
    STRING: _Reader.string,
    AFTER_VALUE: _Reader.after_value,
    NUMBER: _Reader.number_token,
    LITERAL: _Reader.literal_token,
    **dict.fromkeys(
        (VALUE, FIRST_ITEM, FIRST_KEY, KEY, COLON, TOP_OBJECT, TOP_STRING), _Reader.structural
    ),
}


class NestedObjects(Parser[dict[str, Any]]):
    """`json_object(max_depth=…, max_size=…)` emitting nothing, for a text where it is tried
    at many starts, most of them inside objects tried before (a bare call object's proof at
    every `{`): the same value or failure at each start, in the same stream positions. Its
    shortcut (`protocall.shortcuts.json`) decides the objects nested inside one already read
    by that reading, so a run of nested openers costs one scan, whatever `max_depth`. Its
    bounds are its own, whatever the run's `max_depth` (the call its object proves reports
    a value nested deeper than that)."""

    def __init__(self, *, max_depth: int, max_size: int) -> None:
        self.bounds = JsonValue("object", max_depth, max_size, run_depth=False)

    def step(self, inp: Input, pos: int) -> Step[dict[str, Any]]:
        out = inp.out
        reading = self.bounds.step(inp, pos)
        while True:
            inp.out = []  # what the reading emits is dropped
            try:
                next(reading)
            except StopIteration as done:
                end: int = done.value[1]
                return decode(inp.text(pos, end), exact=True), end
            finally:
                inp.out = out
            yield pos


def json_value(*, max_depth: int = 128, max_size: int | None = None) -> Parser[Any]:
    """One JSON value of any type, without surrounding whitespace (see `JsonValue`)."""
    return JsonValue("value", max_depth, max_size)


def json_object(*, max_depth: int = 128, max_size: int | None = None) -> Parser[dict[str, Any]]:
    """One JSON object; anything else fails at its first character (see `JsonValue`)."""
    return JsonValue("object", max_depth, max_size)


def json_string(*, max_depth: int = 128, max_size: int | None = None) -> Parser[str]:
    """One JSON string, decoded; anything else fails at its first character (see
    `JsonValue`)."""
    return JsonValue("string", max_depth, max_size)


_string_part = matcher(r'[^"\\]*')
_scalar = matcher(r"[^ \t\n\r,:\]}]*")


def partial_json(prefix: str) -> Any:
    """The value so far of streamed JSON text: `prefix` is the concatenation of the pieces
    a `json_value` parser has emitted (None while it is empty).

    An open string is closed, open containers are closed, and an object member whose value
    has not started yet is left out (as is a trailing comma). Because the parser emits only
    at clean token boundaries, partial values only grow: strings extend, containers gain
    items, and a number or literal appears only once complete and never changes; for the
    whole text it is the final value. Costs one pass over `prefix`; raises `ValueError` for
    text that is not such a prefix.
    """
    if not prefix:
        return None
    closers: list[str] = []
    complete: list[int] = []  # per open container: where its complete part ends
    key_next = in_string = exact = False
    i, n = 0, len(prefix)
    while True:
        i = _skip_whitespace(prefix, i).end()
        if i >= n:
            break
        char = prefix[i]
        if char == '"':
            i = _string_end(prefix, i + 1)
            if i < 0:
                in_string = True
                break
            if key_next:
                key_next = False
            elif complete:
                complete[-1] = i
        elif char in "[{":
            closers.append("]" if char == "[" else "}")
            complete.append(i + 1)
            key_next = char == "{"
            i += 1
        elif not closers and char in "]},:":
            raise ValueError(f"not JSON text: {char!r} outside any container")
        elif char in "]}":
            closers.pop()
            complete.pop()
            i += 1
            if complete:
                complete[-1] = i
        elif char == ",":
            key_next = closers[-1] == "}"
            i += 1
        elif char == ":":
            i += 1
        else:
            end = _scalar(prefix, i).end()
            if end - i > EXACT_DIGITS and not any(c in ".eE" for c in prefix[i:end]):
                exact = True
            i = end
            if complete:
                complete[-1] = i
    if in_string and not key_next:
        text = prefix + '"'
    else:
        text = prefix[: complete[-1]] if complete else prefix
    return decode(text + "".join(reversed(closers)), exact)


def _string_end(text: str, i: int) -> int:
    """Just past the closing quote of the string whose body starts at `i`, or -1."""
    while True:
        i = _string_part(text, i).end()
        if i >= len(text):
            return -1
        if text[i] == '"':
            return i + 1
        i += 2
