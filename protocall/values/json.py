"""Strict, resumable, incremental JSON (RFC 8259) that streams its raw text.

One generator walks the text once with an explicit container stack: string bodies are
skipped with one regex, numbers advance a small automaton from where they stopped, and
nothing is scanned twice (only a held token — a literal, an escape, a surrogate pair — is
looked at again when more of it arrives). The raw pieces are kept and the value decoded once
at the end, by `orjson` where that is exact, else by `json`: it is what `json.loads` gives.
`partial_json` turns the text streamed so far into the value so far.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Generator
from typing import Any, cast

import orjson

from ..combinators.parser import Parser, Step, quote
from ..combinators.result import Backtrack
from ..combinators.stream import RELEASE, Input, Text, new_text
from ..shortcuts.glance import Glance, failing
from ..shortcuts.parser import glance_of

_Match = Callable[..., "re.Match[str]"]


def _matcher(pattern: str) -> _Match:
    """`match` of a pattern that matches the empty string, so it never gives None."""
    return cast(_Match, re.compile(pattern).match)


_WHITESPACE = " \t\n\r"
_skip_whitespace = _matcher(r"[ \t\n\r]*")
# A run of string characters and complete escapes, except a high-surrogate `\u` escape,
# which is held (by `_escape_end`) with the low surrogate that may follow it.
_PLAIN = r'[^"\\\x00-\x1f]*'
_NOT_HIGH_SURROGATE = r"[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7c-fC-F][0-9a-fA-F]{2}"
_STRING_RUN = rf'{_PLAIN}(?:\\(?:["\\/bfnrt]|u(?:{_NOT_HIGH_SURROGATE})){_PLAIN})*'
_string_run = _matcher(_STRING_RUN)
# A proper prefix of a low-surrogate escape (possibly empty).
_LOW_SURROGATE_PREFIX = r"(?:\\(?:u(?:[dD](?:[c-fC-F][0-9a-fA-F]?)?)?)?)?"
# The run, then (group 1) an escape still open if the text ends there, which is held back.
_string_tail = _matcher(
    rf"(?:{_STRING_RUN})"
    rf"(\\(?:u(?:[dD][89abAB][0-9a-fA-F]{{2}}{_LOW_SURROGATE_PREFIX}|[0-9a-fA-F]{{0,3}}))?)?"
)
# A key as far as it has no escapes (group 1), its closing quote (2) and colon (3) if they
# are there; and the same after a comma. (See `_AFTER_KEY_PART`.)
_KEY_PART = rf'"({_PLAIN})(?:(")[ \t\n\r]*(:[ \t\n\r]*)?)?'
_key_part = _matcher(_KEY_PART)
_next_key_part = re.compile(rf",[ \t\n\r]*{_KEY_PART}").match
_low_surrogate = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}").match
_low_surrogate_prefix = re.compile(_LOW_SURROGATE_PREFIX).fullmatch
_hex_run = _matcher(r"[0-9a-fA-F]{0,4}")
_number = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?").match
_digits = _matcher(r"[0-9]*")
_LITERALS = {"t": "true", "f": "false", "n": "null"}
_ESCAPED = frozenset('"\\/bfnrt')
_NUMBER_START = frozenset("-0123456789")
# orjson turns integers beyond 64 bits into floats: longer integer tokens decode with `json`.
_EXACT_DIGITS = 18

# The number automaton: its states and, per state, the characters that move it on.
_START, _MINUS, _ZERO, _INT, _DOT, _FRAC, _EXP_MARK, _EXP_SIGN, _EXP = range(9)
_NUMBER_MOVES: tuple[dict[str, int], ...] = (
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
_COMPLETE_NUMBERS = frozenset((_ZERO, _INT, _FRAC, _EXP))
_INTEGERS = frozenset((_ZERO, _INT))
_NUMBER_EXPECTED = {
    _MINUS: ("a digit",),
    _DOT: ("a digit",),
    _EXP_MARK: ("a digit", "`+`", "`-`"),
    _EXP_SIGN: ("a digit",),
}

# Parser states: what the text at the scan position must be.
_VALUE, _FIRST_ITEM, _FIRST_KEY, _KEY, _COLON, _AFTER_VALUE = range(6)
_STRING, _NUMBER, _LITERAL, _TOP_OBJECT, _TOP_STRING = range(6, 11)
_HELD = frozenset((_NUMBER, _LITERAL))  # tokens held back until complete
# The state after a `_KEY_PART` match, by its last group: in the key, after it, after `:`.
_AFTER_KEY_PART = (-1, _STRING, _COLON, _VALUE)
_EXPECTED = {
    _VALUE: ("a JSON value",),
    _FIRST_ITEM: ("a JSON value", "`]`"),
    _FIRST_KEY: ("an object key", "`}`"),
    _KEY: ("an object key",),
    _COLON: ("`:`",),
    _STRING: ('`"`',),
    _TOP_OBJECT: ("a JSON object",),
    _TOP_STRING: ("a JSON string",),
}
_AFTER_ITEM = ("`,`", "`]`")
_AFTER_MEMBER = ("`,`", "`}`")
_RAW_CONTROL = ("a string character (control characters must be escaped)",)
_ESCAPE_CHAR = ('an escape character (one of `"\\/bfnrtu`)',)
_HEX_DIGIT = ("a hex digit",)


class _Invalid(Exception):
    """No continuation of the text could be valid at `position` (relative to the buffer);
    the text before `clean` is validated and is emitted before the failure."""

    def __init__(self, position: int, clean: int, expected: tuple[str, ...]) -> None:
        self.position = position
        self.clean = clean
        self.expected = expected


def _decode(text: str, exact: bool = False) -> Any:
    """`json.loads(text)` for valid JSON text: by `orjson` unless that would be inexact
    (`exact`: long integers) or it rejects the text (lone surrogates, numbers beyond float
    range)."""
    if not exact:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def _escape_end(buf: str, i: int, n: int, final: bool) -> int:
    """End of the escape at `buf[i] == "\\"` within `buf[:n]`, or -1 while it is incomplete
    and more may come (`final` false). A high-surrogate `\\u` escape ends after the low
    surrogate that follows it, so a pair is never split; it is held while one may follow."""
    if i + 1 >= n:
        if final:
            raise _Invalid(n, i, _ESCAPE_CHAR)
        return -1
    char = buf[i + 1]
    if char in _ESCAPED:
        return i + 2
    if char != "u":
        raise _Invalid(i + 1, i, _ESCAPE_CHAR)
    end = _hex_run(buf, i + 2, n).end()
    if end < i + 6:
        if end < n or final:
            raise _Invalid(end, i, _HEX_DIGIT)
        return -1
    if not 0xD800 <= int(buf[i + 2 : i + 6], 16) < 0xDC00:
        return i + 6
    if _low_surrogate(buf, i + 6, n):
        return i + 12
    if not final and _low_surrogate_prefix(buf, i + 6, n):
        return -1
    return i + 6


def _add_key(stack: list[set[str] | None], key: str, closing_quote: int) -> None:
    """Record `key` in the innermost object; a second occurrence fails at its closing quote."""
    keys = stack[-1]
    assert keys is not None
    if key in keys:
        duplicate = f"a key other than {quote(key)} (duplicate key)"
        raise _Invalid(closing_quote, closing_quote, (duplicate,))
    keys.add(key)


def _scan_number(buf: str, i: int, n: int, state: int) -> tuple[int, int, bool]:
    """Run the number automaton from `state` over `buf[i:n]`: `(position, state, stopped)`,
    where `stopped` means `buf[position]` does not continue the number."""
    moves = _NUMBER_MOVES
    while i < n:
        following = moves[state].get(buf[i])
        if following is None:
            return i, state, True
        state = following
        i += 1
        if state in _DIGIT_RUNS:
            i = _digits(buf, i, n).end()
    return i, state, False


def _check_integer(buf: str, start: int, end: int) -> None:
    """Fail an integer too long for Python to convert (on which `json.loads` raises)."""
    limit: int = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if limit and end - start - (buf[start] == "-") > limit:
        raise _Invalid(end, start, (f"a fraction or exponent (an integer of over {limit} digits)",))


def _emit(inp: Input, raw: list[str], buf: str, base: int, start: int, end: int) -> int:
    """Stream the validated text from `start` to `end` (stream offsets); the new watermark."""
    if end > start:
        piece = buf[start - base : end - base]
        raw.append(piece)
        inp.out.append(Text(piece, start))
    return end


class _StringText:
    """A value string suspended with its text emitted up to `at`, and `held` after it (an
    escape the text so far cuts off, possibly empty): a delta that, after `held`, is string
    characters and complete escapes with possibly a new cut-off escape at its end (as
    `_string_tail` matches) is more of the same string, emitted up to that escape without
    resuming the parser. A key's text (`keep`: where the key starts) stays buffered.

    While it is the fast parser, it alone appends to the buffer, which therefore ends
    with `held`, right after `at`: `wait` starts it so, and each delta taken keeps it so."""

    __slots__ = ("at", "held", "keep", "loose", "raw")

    def __init__(self, raw: list[str]) -> None:
        self.raw = raw
        self.loose = 0  # pieces kept since the last join
        self.at = 0
        self.held = ""
        self.keep: int | None = None

    def wait(self, inp: Input, at: int, keep: int | None = None) -> Generator[int, None, int]:
        """Suspend with the text emitted up to `at` (absorbing deltas meanwhile), the input
        from `keep` on kept; give where the emitted text is up to when resumed."""
        self.at = at
        self.keep = keep
        self.held = inp.text(at, inp.end)
        inp.fast = self
        yield at if keep is None else keep
        inp.fast = None
        return self.at

    def absorb(self, inp: Input, text: str) -> tuple[str, int] | None:
        at = self.at
        if self.held or '"' in text or "\\" in text or not text.isprintable():
            return self._absorb_escapes(inp, text, at)
        inp.append(text)
        self._keep(text)
        self.at = end = at + len(text)
        if end - inp.base >= RELEASE and self.keep is None:
            inp.release(end)
        return text, at

    def _absorb_escapes(self, inp: Input, text: str, at: int) -> tuple[str, int] | None:
        whole = self.held + text
        match = _string_tail(whole)
        if match.end() != len(whole):
            return None  # not all string text: a quote, a raw control, a bad escape
        cut = match.start(1) if match.lastindex else len(whole)
        inp.append(text)
        self.held = whole[cut:]
        piece = whole[:cut]
        if cut:
            self._keep(piece)
            self.at = at + cut
            if self.at - inp.base >= RELEASE and self.keep is None:
                inp.release(self.at)
        return piece, at

    def _keep(self, piece: str) -> None:
        """Keep `piece` for the final decode; every `_JOINED` pieces are joined into one
        (a piece a delta costs a string object each, many times its few characters)."""
        raw = self.raw
        raw.append(piece)
        self.loose += 1
        if self.loose == _JOINED:  # the last `_JOINED` entries are all pieces
            raw[-_JOINED:] = ["".join(raw[-_JOINED:])]
            self.loose = 0


_JOINED = 64


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
    nesting deeper than `max_depth` fails at the opening bracket, and a value longer than
    `max_size` characters at the first character beyond the limit.
    """

    def __init__(self, kind: str, max_depth: int, max_size: int | None) -> None:
        if not 1 <= max_depth <= 500:
            raise ValueError("max_depth must be between 1 and 500 (the decoders' own bounds)")
        if max_size is not None and max_size < 1:
            raise ValueError("max_size must be positive")
        self.start_state = {"value": _VALUE, "object": _TOP_OBJECT, "string": _TOP_STRING}[kind]
        self.max_depth = max_depth
        self.max_size = max_size
        self.too_deep = (
            f"a value nested at most {max_depth} deep (nesting deeper than {max_depth})",
        )
        self.too_long = (
            f"the value to end within {max_size} characters "
            f"(JSON text longer than {max_size} characters)",
        )

    def step(self, inp: Input, pos: int) -> Step[Any]:
        return self.scan(inp, pos, None)

    def scan(self, inp: Input, pos: int, watch: _Scan | None) -> Step[Any]:
        """`step`, telling `watch` where each container opens and closes. A watched run
        emits nothing and matches with the value None: its watch reads where values end,
        not what they hold."""
        max_depth = self.max_depth
        limit = None if self.max_size is None else pos + self.max_size
        raw: list[str] = []  # the emitted pieces, joined once for the final decode
        stack: list[set[str] | None] = []  # per open container: its keys, or None for arrays
        state = self.start_state
        scan = emitted = token = key_start = pos  # token: start of a held number or literal
        literal = ""
        number = _START
        exact = is_key = False
        string_tail = _string_tail
        string_run = _string_run
        absorber = _StringText(raw)
        while True:
            buf = inp.buf
            base = inp.base
            i = scan - base
            if state == _STRING and not inp.eof and (limit is None or limit - base >= len(buf)):
                # The hot path: more of a string whose text so far is emitted (scan ==
                # emitted). When the text ends inside the string, emit and wait right here.
                # Printable text without `"` or `\\` is string text; else a regex decides.
                piece = buf[i:]
                if piece and '"' not in piece and "\\" not in piece and piece.isprintable():
                    end, held = len(buf), -1
                else:
                    match = string_tail(buf, i)
                    end = match.end()
                    held = match.start(1) if match.lastindex else -1
                if end == len(buf):
                    end = end if held < 0 else held
                    if end > i:
                        if watch is None:
                            piece = buf[i:end]
                            raw.append(piece)
                            inp.out.append(new_text((piece, scan)))
                        scan = emitted = base + end
                    if limit is not None:
                        yield key_start if is_key else scan
                    else:
                        keep = key_start if is_key else None
                        scan = emitted = yield from absorber.wait(inp, scan, keep)
                    continue
                i = end if held < 0 else held
            n = size = len(buf)
            if limit is not None and limit - base < size:
                n = limit - base  # scanning stops at the limit: a value crossing it fails there
            try:
                while True:
                    if state == _STRING:
                        i = string_run(buf, i, n).end()
                        if i == n:
                            break
                        char = buf[i]
                        if char == "\\":
                            end = _escape_end(buf, i, n, inp.eof and n == size)
                            if end < 0:
                                break
                            i = end
                        elif char != '"':
                            raise _Invalid(i, i, _RAW_CONTROL)
                        elif is_key:
                            text = buf[key_start - base : i + 1]
                            _add_key(stack, _decode(text) if "\\" in text else text[1:-1], i)
                            state = _COLON
                            i += 1
                        else:
                            state = _AFTER_VALUE
                            i += 1
                    elif state == _AFTER_VALUE:
                        if not stack:
                            if watch is not None:
                                return None, base + i
                            _emit(inp, raw, buf, base, emitted, base + i)
                            return _decode("".join(raw), exact), base + i
                        if i == n:
                            break
                        char = buf[i]
                        if char in _WHITESPACE:
                            i += 1  # mostly a single space: no regex for that
                            if i < n and buf[i] in _WHITESPACE:
                                i = _skip_whitespace(buf, i, n).end()
                            if i == n:
                                break
                            char = buf[i]
                        keys = stack[-1]
                        if char == ",":
                            if keys is None:
                                state = _VALUE
                                i += 1
                            else:
                                found = _next_key_part(buf, i, n)
                                if found is None:
                                    state = _KEY
                                    i += 1
                                else:
                                    i = found.end()
                                    state = _AFTER_KEY_PART[found.lastindex or 0]
                                    if state == _STRING:
                                        is_key = True
                                        key_start = base + found.start(1) - 1
                                    else:
                                        _add_key(stack, found.group(1), found.end(1))
                        elif char == ("]" if keys is None else "}"):
                            if watch is not None:
                                watch.closed(base + i, len(stack) - 1)
                            stack.pop()
                            i += 1
                        else:
                            raise _Invalid(i, i, _AFTER_ITEM if keys is None else _AFTER_MEMBER)
                    elif state == _NUMBER:
                        i, number, stopped = _scan_number(buf, i, n, number)
                        if not (stopped or (inp.eof and n == size)) and (
                            n == size  # more may come
                            or stack  # inside a container, the limit cuts the value
                            or number not in _COMPLETE_NUMBERS
                            or buf[n] in _NUMBER_MOVES[number]
                        ):
                            break
                        if number not in _COMPLETE_NUMBERS:
                            raise _Invalid(i, token - base, _NUMBER_EXPECTED[number])
                        if number in _INTEGERS and base + i - token > _EXACT_DIGITS:
                            _check_integer(buf, token - base, i)
                            exact = True
                        state = _AFTER_VALUE
                    elif state == _LITERAL:
                        start = token - base
                        got = buf[start : min(start + len(literal), n)]
                        if got == literal:
                            i = start + len(literal)
                            state = _AFTER_VALUE
                            continue
                        if not literal.startswith(got) or (inp.eof and n == size):
                            same = 0
                            while same < len(got) and got[same] == literal[same]:
                                same += 1
                            raise _Invalid(start + same, start, (quote(literal),))
                        i = n
                        break
                    else:
                        # The other structural tokens, after whitespace inside containers.
                        if i == n:
                            break
                        char = buf[i]
                        if char in _WHITESPACE and stack:
                            i += 1
                            if i < n and buf[i] in _WHITESPACE:
                                i = _skip_whitespace(buf, i, n).end()
                            if i == n:
                                break
                            char = buf[i]
                        if state <= _FIRST_ITEM:
                            if char == '"':
                                # A string value: done here if it closes here.
                                i = string_run(buf, i + 1, n).end()
                                if i < n and buf[i] == '"':
                                    state = _AFTER_VALUE
                                    i += 1
                                else:
                                    state = _STRING
                                    is_key = False
                            elif char in "{[":
                                if len(stack) == max_depth:
                                    raise _Invalid(i, i, self.too_deep)
                                if watch is not None:
                                    watch.opened(base + i, char, len(stack))
                                stack.append(set() if char == "{" else None)
                                state = _FIRST_KEY if char == "{" else _FIRST_ITEM
                                i += 1
                            elif char == "]" and state == _FIRST_ITEM:
                                if watch is not None:
                                    watch.closed(base + i, len(stack) - 1)
                                stack.pop()
                                state = _AFTER_VALUE
                                i += 1
                            elif char in _NUMBER_START:
                                # A number followed by a character that cannot continue it
                                # is complete; otherwise the automaton takes over.
                                found = _number(buf, i, n)
                                end = n if found is None else found.end()
                                if end < n and buf[end] not in ".eE":
                                    assert found is not None
                                    if end - i > _EXACT_DIGITS and found.lastindex is None:
                                        _check_integer(buf, i, end)
                                        exact = True
                                    i = end
                                    state = _AFTER_VALUE
                                else:
                                    token = base + i
                                    number = _START
                                    state = _NUMBER
                            elif char in _LITERALS:
                                literal = _LITERALS[char]
                                if buf.startswith(literal, i, n):
                                    i += len(literal)
                                    state = _AFTER_VALUE
                                else:
                                    token = base + i
                                    state = _LITERAL
                            else:
                                raise _Invalid(i, i, _EXPECTED[state])
                        elif state == _COLON:
                            if char != ":":
                                raise _Invalid(i, i, _EXPECTED[state])
                            state = _VALUE
                            i += 1
                        elif state in (_KEY, _FIRST_KEY):
                            if char == '"':
                                found = _key_part(buf, i, n)
                                i = found.end()
                                state = _AFTER_KEY_PART[found.lastindex or 0]
                                if state == _STRING:
                                    is_key = True
                                    key_start = base + found.start(1) - 1
                                else:
                                    _add_key(stack, found.group(1), found.end(1))
                            elif char == "}" and state == _FIRST_KEY:
                                if watch is not None:
                                    watch.closed(base + i, len(stack) - 1)
                                stack.pop()
                                state = _AFTER_VALUE
                                i += 1
                            else:
                                raise _Invalid(i, i, _EXPECTED[state])
                        elif char == ("{" if state == _TOP_OBJECT else '"'):
                            state = _VALUE
                        else:
                            raise _Invalid(i, i, _EXPECTED[state])
            except _Invalid as invalid:
                if watch is None:
                    _emit(inp, raw, buf, base, emitted, base + invalid.clean)
                raise Backtrack(base + invalid.position, invalid.expected) from None
            clean = token if state in _HELD else base + i
            if clean > emitted:
                if watch is None:
                    piece = buf[emitted - base : clean - base]
                    raw.append(piece)
                    inp.out.append(new_text((piece, emitted)))
                emitted = clean
            if n < size or inp.eof:
                if n < size:
                    raise Backtrack(base + n, self.too_long)
                if state == _AFTER_VALUE:
                    raise Backtrack(base + n, _AFTER_ITEM if stack[-1] is None else _AFTER_MEMBER)
                raise Backtrack(base + n, _EXPECTED[state])
            scan = base + i
            if state == _STRING and emitted == base + size and limit is None:
                continue  # all of the string so far emitted: the hot path above waits
            yield key_start if state == _STRING and is_key else emitted

    def _glance(self, window: str) -> Glance | None:
        char = window[0]
        state = self.start_state
        if state == _TOP_OBJECT:
            starts = char == "{"
        elif state == _TOP_STRING:
            starts = char == '"'
        else:
            starts = char in '"{[' or char in _NUMBER_START or char in _LITERALS
        return None if starts else failing(_EXPECTED[state])

    def waits(self) -> bool:
        return True


class NestedObjects(Parser[dict[str, Any]]):
    """`json_object(max_depth=…, max_size=…)` for a text where it is tried at many starts,
    most of them inside objects tried before (a bare call object's proof at every `{`): the
    same value or failure at each start, in the same stream positions, but the objects
    nested inside one already read are decided by that reading (`_Scan`), not read again.
    So a run of nested openers costs one scan, whatever `max_depth`. `settled` tells the
    outcome at a start without running in the grammar, so a content scan that asks it at
    every `{` takes those that fail as text without a call attempt at each."""

    def __init__(self, *, max_depth: int, max_size: int) -> None:
        self.bounds = JsonValue("object", max_depth, max_size)
        self.automaton = JsonValue("object", _DEEPEST, max_size)

    def step(self, inp: Input, pos: int) -> Step[dict[str, Any]]:
        while (outcome := self._outcome(inp, pos)) is None:
            yield pos
        if isinstance(outcome, tuple):
            raise Backtrack(*outcome)
        value: dict[str, Any] = _decode(inp.text(pos, outcome), exact=True)
        return value, outcome

    def _outcome(self, inp: Input, pos: int) -> _Outcome | None:
        """How the object at `pos` is decided, as far as the input that has arrived tells
        (None: not yet): by the latest scan, advanced, or by a new one from `pos` where
        that one does not read it or its own bounds left it undecided. The latest scan is
        the run's (`Input.local`): the grammar is shared."""
        scan: _Scan | None = inp.local.get(self)
        if scan is None:
            scan = inp.local[self] = _Scan(self, inp, pos)
        while (outcome := scan.decide(pos)) is _UNREAD:
            scan = inp.local[self] = _Scan(self, inp, pos)
        if outcome is not None:
            scan.prune(pos)
        return outcome

    def _glance(self, window: str) -> Glance | None:
        return glance_of(self.bounds, window)

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        return (self,)

    def settled(self, inp: Input, pos: int) -> bool | None:
        """Whether `step` fails at `pos`, read by the scan `step` then reuses (emitting
        nothing); None while the input that has arrived does not tell."""
        outcome = self._outcome(inp, pos)
        return None if outcome is None else isinstance(outcome, tuple)

    def waits(self) -> bool:
        return True


_DEEPEST = 500
"""The nesting a `_Scan`'s run reads (`JsonValue`'s own bound)."""

_Outcome = int | tuple[int, tuple[str, ...]]
"""How an object is decided: its end, or where it fails and what was expected there."""
_UNREAD: _Outcome = (-1, ())
"""What a `_Scan` gives for an object it does not decide (`_Scan.decide`; told by identity)."""


class _Scan:
    """One `JsonValue` run from an object's `{` (nesting up to `_DEEPEST`, the objects' size
    bound), watched: every object opened in it is decided as `json_object` from its own `{`
    decides it — it closes (the end, in `decided`), a bracket opens `max_depth` deep in it,
    it is still open at its `max_size`-th character, or the run fails inside it (what
    failed there fails it too: the same text, state and innermost container). An object
    the run's own bounds leave undecided is not decided (read anew from its `{`). The run
    advances as far as the input allows when an undecided object is asked for."""

    __slots__ = (
        "decided",
        "done",
        "fed",
        "inp",
        "keep",
        "kept",
        "nested",
        "open",
        "run",
        "size",
        "start",
        "started",
    )

    def __init__(self, nested: NestedObjects, inp: Input, start: int) -> None:
        self.nested = nested
        self.inp = inp
        assert nested.bounds.max_size is not None
        self.size = nested.bounds.max_size
        self.start = start
        self.started = False
        self.open: dict[int, int] = {}  # undecided objects: start -> containers around it
        self.decided: dict[int, _Outcome] = {}
        self.kept = 0  # objects decided at the latest pruning
        self.run = nested.automaton.scan(inp, start, self)
        self.done = False
        self.fed = -1  # the input's end when the run last waited for more
        self.keep = start

    def decide(self, start: int) -> _Outcome | None:
        """The outcome at `start`, the run advanced over the input that has arrived while
        the object there is undecided and the run may still decide it; None while it may,
        and `_UNREAD` where it will not."""
        decided, inp = self.decided, self.inp
        while (outcome := decided.get(start)) is None:
            if self.done or not (start in self.open or (start == self.start and not self.started)):
                return _UNREAD
            if inp.base + len(inp.buf) == self.fed and not inp.eof:
                break  # nothing arrived since the run last waited
            self.advance()
        return outcome

    def advance(self) -> None:
        inp = self.inp
        if self.keep < inp.base:  # the text it holds was dropped
            self.done = True
            return
        try:
            self.keep = self.run.send(None)
        except StopIteration:
            self.done = True
        except Backtrack as failure:
            self._fail(failure.position, failure.expected)
        else:
            self.fed = end = inp.base + len(inp.buf)
            if self.open and next(iter(self.open)) + self.size < end:
                self._bound(end)

    def opened(self, at: int, bracket: str, level: int) -> None:
        """A bracket at `at` opens a container inside `level` others."""
        bounds, open = self.nested.bounds, self.open
        if open:
            if next(iter(open)) + self.size <= at:
                self._bound(at + 1)
            deepest = level - bounds.max_depth  # objects open around fewer are too deep
            while open and open[start := next(iter(open))] <= deepest:
                del open[start]
                self.decided[start] = (at, bounds.too_deep)
        if bracket == "{":
            open[at] = level
            self.started = True

    def closed(self, at: int, level: int) -> None:
        """A bracket at `at` closes the container inside `level` others."""
        open = self.open
        if open:
            self._bound(at + 1)
            if open and open[last := next(reversed(open))] == level:
                del open[last]
                self.decided[last] = at + 1

    def _bound(self, end: int) -> None:
        """Fail the objects still open whose size bound the text before `end` passes (its
        callers test the first open object before calling)."""
        open, size = self.open, self.size
        while open and (start := next(iter(open))) + size < end:
            del open[start]
            self.decided[start] = (start + size, self.nested.bounds.too_long)

    def _fail(self, at: int, expected: tuple[str, ...]) -> None:
        """The run failed at `at` expecting `expected`: so does every object open, there
        or at its own bound."""
        bounds, size = self.nested.bounds, self.size
        own_size = expected == bounds.too_long and at == self.start + size
        own_depth = expected == self.nested.automaton.too_deep
        for start, level in self.open.items():
            if start + size <= at and self.inp.end > start + size:
                self.decided[start] = (start + size, bounds.too_long)
            elif own_depth:
                if _DEEPEST - level == bounds.max_depth:
                    self.decided[start] = (at, bounds.too_deep)
            elif not own_size or start == self.start:
                self.decided[start] = (at, expected)
        if not self.started:
            self.decided[self.start] = (at, expected)
        self.open.clear()
        self.done = True

    def prune(self, start: int) -> None:
        """Forget the objects before `start` now and then (they are not asked for again)."""
        if len(self.decided) > 2 * self.kept + 64:
            self.decided = {at: value for at, value in self.decided.items() if at >= start}
            self.kept = len(self.decided)


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


_string_part = _matcher(r'[^"\\]*')
_scalar = _matcher(r"[^ \t\n\r,:\]}]*")


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
            if end - i > _EXACT_DIGITS and not any(c in ".eE" for c in prefix[i:end]):
                exact = True
            i = end
            if complete:
                complete[-1] = i
    if in_string and not key_next:
        text = prefix + '"'
    else:
        text = prefix[: complete[-1]] if complete else prefix
    return _decode(text + "".join(reversed(closers)), exact)


def _string_end(text: str, i: int) -> int:
    """Just past the closing quote of the string whose body starts at `i`, or -1."""
    while True:
        i = _string_part(text, i).end()
        if i >= len(text):
            return -1
        if text[i] == '"':
            return i + 1
        i += 2
