"""The JSON parsers' shortcuts: a scan that skips string bodies with one regex, an absorber
that takes the deltas inside a string without resuming the parser, and the shared scan that
decides every object nested in one already read (`NestedObjects`).

Each does exactly what the plain `step` of `protocall.values.json` does (the same value,
emitted items, failures and held-back text), only faster; `registry.disabled()` turns
them off.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any

from ..combinators.parser import Parser, Step, quote
from ..combinators.result import Backtrack
from ..combinators.stream import RELEASE, Input, new_text
from ..values.json import (
    AFTER_ITEM,
    AFTER_MEMBER,
    AFTER_VALUE,
    COLON,
    COMPLETE_NUMBERS,
    EXACT_DIGITS,
    EXPECTED,
    FIRST_ITEM,
    FIRST_KEY,
    HELD,
    INTEGERS,
    KEY,
    LITERAL,
    LITERALS,
    LOW_SURROGATE_PREFIX,
    NUMBER,
    NUMBER_EXPECTED,
    NUMBER_MOVES,
    NUMBER_START,
    PLAIN,
    RAW_CONTROL,
    START,
    STRING,
    TOP_OBJECT,
    TOP_STRING,
    VALUE,
    Invalid,
    JsonValue,
    NestedObjects,
    add_key,
    check_integer,
    decode,
    emit,
    escape_end,
    matcher,
    scan_number,
)
from .glance import Glance, failing
from .parser import glance_of
from .registry import analysis, install

_WHITESPACE = " \t\n\r"
_skip_whitespace = matcher(r"[ \t\n\r]*")
# A run of string characters and complete escapes, except a high-surrogate `\u` escape,
# which is held (by `escape_end`) with the low surrogate that may follow it.
_NOT_HIGH_SURROGATE = r"[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7c-fC-F][0-9a-fA-F]{2}"
_STRING_RUN = rf'{PLAIN}(?:\\(?:["\\/bfnrt]|u(?:{_NOT_HIGH_SURROGATE})){PLAIN})*'
_string_run = matcher(_STRING_RUN)
# The run, then (group 1) an escape still open if the text ends there, which is held back.
_string_tail = matcher(
    rf"(?:{_STRING_RUN})"
    rf"(\\(?:u(?:[dD][89abAB][0-9a-fA-F]{{2}}{LOW_SURROGATE_PREFIX}|[0-9a-fA-F]{{0,3}}))?)?"
)
# A key as far as it has no escapes (group 1), its closing quote (2) and colon (3) if they
# are there; and the same after a comma. (See `_AFTER_KEY_PART`.)
_KEY_PART = rf'"({PLAIN})(?:(")[ \t\n\r]*(:[ \t\n\r]*)?)?'
_key_part = matcher(_KEY_PART)
_next_key_part = re.compile(rf",[ \t\n\r]*{_KEY_PART}").match
_number = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?").match
# The state after a `_KEY_PART` match, by its last group: in the key, after it, after `:`.
_AFTER_KEY_PART = (-1, STRING, COLON, VALUE)


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
        self.raw.append(text)  # `self._keep(text)`, inline: every delta
        self.loose += 1
        if self.loose == _JOINED:
            self._join()
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
        self.raw.append(piece)
        self.loose += 1
        if self.loose == _JOINED:
            self._join()

    def _join(self) -> None:
        """Join the last `_JOINED` entries, all pieces, into one."""
        raw = self.raw
        raw[-_JOINED:] = ["".join(raw[-_JOINED:])]
        self.loose = 0


_JOINED = 64


def _scan_value(self: JsonValue, inp: Input, pos: int, watch: _Scan | None) -> Step[Any]:
    """`JsonValue.step`, faster: a string's text so far is taken by one regex (or none,
    when it is printable and has no quote or backslash) and, once emitted, waits in the
    absorber (`_StringText`); a key without escapes, its quote and colon are one regex, and
    so is a number followed by a character that ends it. With `watch`, it tells `watch`
    where each container opens and closes: a watched run emits nothing and matches with the
    value None (its watch reads where values end, not what they hold)."""
    max_depth, too_deep = self.bound(inp)
    limit = None if self.max_size is None else pos + self.max_size
    raw: list[str] = []  # the emitted pieces, joined once for the final decode
    stack: list[set[str] | None] = []  # per open container: its keys, or None for arrays
    state = self.start_state
    scan = emitted = token = key_start = pos  # token: start of a held number or literal
    literal = ""
    number = START
    exact = is_key = False
    string_tail = _string_tail
    string_run = _string_run
    absorber = _StringText(raw)
    while True:
        buf = inp.buf
        base = inp.base
        i = scan - base
        if state == STRING and not inp.eof and (limit is None or limit - base >= len(buf)):
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
                if state == STRING:
                    i = string_run(buf, i, n).end()
                    if i == n:
                        break
                    char = buf[i]
                    if char == "\\":
                        end = escape_end(buf, i, n, inp.eof and n == size)
                        if end < 0:
                            break
                        i = end
                    elif char != '"':
                        raise Invalid(i, i, RAW_CONTROL)
                    elif is_key:
                        text = buf[key_start - base : i + 1]
                        add_key(stack, decode(text) if "\\" in text else text[1:-1], i)
                        state = COLON
                        i += 1
                    else:
                        state = AFTER_VALUE
                        i += 1
                elif state == AFTER_VALUE:
                    if not stack:
                        if watch is not None:
                            return None, base + i
                        emit(inp, raw, buf, base, emitted, base + i)
                        return decode("".join(raw), exact), base + i
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
                            state = VALUE
                            i += 1
                        else:
                            found = _next_key_part(buf, i, n)
                            if found is None:
                                state = KEY
                                i += 1
                            else:
                                i = found.end()
                                state = _AFTER_KEY_PART[found.lastindex or 0]
                                if state == STRING:
                                    is_key = True
                                    key_start = base + found.start(1) - 1
                                else:
                                    add_key(stack, found.group(1), found.end(1))
                    elif char == ("]" if keys is None else "}"):
                        if watch is not None:
                            watch.closed(base + i, len(stack) - 1)
                        stack.pop()
                        i += 1
                    else:
                        raise Invalid(i, i, AFTER_ITEM if keys is None else AFTER_MEMBER)
                elif state == NUMBER:
                    i, number, stopped = scan_number(buf, i, n, number)
                    if not (stopped or (inp.eof and n == size)) and (
                        n == size  # more may come
                        or stack  # inside a container, the limit cuts the value
                        or number not in COMPLETE_NUMBERS
                        or buf[n] in NUMBER_MOVES[number]
                    ):
                        break
                    if number not in COMPLETE_NUMBERS:
                        raise Invalid(i, token - base, NUMBER_EXPECTED[number])
                    if number in INTEGERS and base + i - token > EXACT_DIGITS:
                        check_integer(buf, token - base, i)
                        exact = True
                    state = AFTER_VALUE
                elif state == LITERAL:
                    start = token - base
                    got = buf[start : min(start + len(literal), n)]
                    if got == literal:
                        i = start + len(literal)
                        state = AFTER_VALUE
                        continue
                    if not literal.startswith(got) or (inp.eof and n == size):
                        same = 0
                        while same < len(got) and got[same] == literal[same]:
                            same += 1
                        raise Invalid(start + same, start, (quote(literal),))
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
                    if state <= FIRST_ITEM:
                        if char == '"':
                            # A string value: done here if it closes here.
                            i = string_run(buf, i + 1, n).end()
                            if i < n and buf[i] == '"':
                                state = AFTER_VALUE
                                i += 1
                            else:
                                state = STRING
                                is_key = False
                        elif char in "{[":
                            if len(stack) == max_depth:
                                raise Invalid(i, i, too_deep)
                            if watch is not None:
                                watch.opened(base + i, char, len(stack))
                            stack.append(set() if char == "{" else None)
                            state = FIRST_KEY if char == "{" else FIRST_ITEM
                            i += 1
                        elif char == "]" and state == FIRST_ITEM:
                            if watch is not None:
                                watch.closed(base + i, len(stack) - 1)
                            stack.pop()
                            state = AFTER_VALUE
                            i += 1
                        elif char in NUMBER_START:
                            # A number followed by a character that cannot continue it
                            # is complete; otherwise the automaton takes over.
                            found = _number(buf, i, n)
                            end = n if found is None else found.end()
                            if end < n and buf[end] not in ".eE":
                                assert found is not None
                                if end - i > EXACT_DIGITS and found.lastindex is None:
                                    check_integer(buf, i, end)
                                    exact = True
                                i = end
                                state = AFTER_VALUE
                            else:
                                token = base + i
                                number = START
                                state = NUMBER
                        elif char in LITERALS:
                            literal = LITERALS[char]
                            if buf.startswith(literal, i, n):
                                i += len(literal)
                                state = AFTER_VALUE
                            else:
                                token = base + i
                                state = LITERAL
                        else:
                            raise Invalid(i, i, EXPECTED[state])
                    elif state == COLON:
                        if char != ":":
                            raise Invalid(i, i, EXPECTED[state])
                        state = VALUE
                        i += 1
                    elif state in (KEY, FIRST_KEY):
                        if char == '"':
                            found = _key_part(buf, i, n)
                            i = found.end()
                            state = _AFTER_KEY_PART[found.lastindex or 0]
                            if state == STRING:
                                is_key = True
                                key_start = base + found.start(1) - 1
                            else:
                                add_key(stack, found.group(1), found.end(1))
                        elif char == "}" and state == FIRST_KEY:
                            if watch is not None:
                                watch.closed(base + i, len(stack) - 1)
                            stack.pop()
                            state = AFTER_VALUE
                            i += 1
                        else:
                            raise Invalid(i, i, EXPECTED[state])
                    elif char == ("{" if state == TOP_OBJECT else '"'):
                        state = VALUE
                    else:
                        raise Invalid(i, i, EXPECTED[state])
        except Invalid as invalid:
            if watch is None:
                emit(inp, raw, buf, base, emitted, base + invalid.clean)
            raise Backtrack(base + invalid.position, invalid.expected) from None
        clean = token if state in HELD else base + i
        if clean > emitted:
            if watch is None:
                piece = buf[emitted - base : clean - base]
                raw.append(piece)
                inp.out.append(new_text((piece, emitted)))
            emitted = clean
        if n < size or inp.eof:
            if n < size:
                raise Backtrack(base + n, self.too_long)
            if state == AFTER_VALUE:
                raise Backtrack(base + n, AFTER_ITEM if stack[-1] is None else AFTER_MEMBER)
            raise Backtrack(base + n, EXPECTED[state])
        scan = base + i
        if state == STRING and emitted == base + size and limit is None:
            continue  # all of the string so far emitted: the hot path above waits
        yield key_start if state == STRING and is_key else emitted


def _fast_step(self: JsonValue, inp: Input, pos: int) -> Step[Any]:
    return _scan_value(self, inp, pos, None)


def _glance(self: JsonValue, window: str) -> Glance | None:
    char = window[0]
    state = self.start_state
    if state == TOP_OBJECT:
        starts = char == "{"
    elif state == TOP_STRING:
        starts = char == '"'
    else:
        starts = char in '"{[' or char in NUMBER_START or char in LITERALS
    return None if starts else failing(EXPECTED[state])


def _waits(self: Parser[Any]) -> bool:
    return True


def _nested_step(self: NestedObjects, inp: Input, pos: int) -> Step[dict[str, Any]]:
    """The value or failure at `pos` as the latest shared scan decides it (see `_Scan`)."""
    while (outcome := _outcome(self, inp, pos)) is None:
        yield pos
    if isinstance(outcome, tuple):
        raise Backtrack(*outcome)
    value: dict[str, Any] = decode(inp.text(pos, outcome), exact=True)
    return value, outcome


def _outcome(nested: NestedObjects, inp: Input, pos: int) -> _Outcome | None:
    """How the object at `pos` is decided, as far as the input that has arrived tells
    (None: not yet): by the latest scan, advanced, or by a new one from `pos` where
    that one does not read it or its own bounds left it undecided. The latest scan is
    the run's (`Input.local`): the grammar is shared."""
    found: _Scan | None = inp.local.get(nested)
    if found is None:
        found = inp.local[nested] = _Scan(nested, inp, pos)
    while (outcome := found.decide(pos)) is _UNREAD:
        found = inp.local[nested] = _Scan(nested, inp, pos)
    if outcome is not None:
        found.prune(pos)
    return outcome


def _nested_glance(self: NestedObjects, window: str) -> Glance | None:
    return glance_of(self.bounds, window)


def _nested_deciders(self: NestedObjects, window: str) -> tuple[Parser[Any], ...] | None:
    return (self,)


def _nested_fails_at(self: NestedObjects, inp: Input, pos: int) -> bool | None:
    """Whether `step` fails at `pos`, read by the scan `step` then reuses (emitting
    nothing); None while the input that has arrived does not tell. So a content scan that
    asks it at every `{` takes those that fail as text without a call attempt at each."""
    outcome = _outcome(self, inp, pos)
    return None if outcome is None else isinstance(outcome, tuple)


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
        "automaton",
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
        self.automaton = JsonValue("object", _DEEPEST, self.size, run_depth=False)
        self.run = _scan_value(self.automaton, inp, start, self)
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
        own_depth = expected == self.automaton.too_deep
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


install(JsonValue, "step", _fast_step)
install(NestedObjects, "step", _nested_step)
analysis(JsonValue, "_glance", _glance)
analysis(JsonValue, "waits", _waits)
analysis(NestedObjects, "_glance", _nested_glance)
analysis(NestedObjects, "deciders", _nested_deciders)
analysis(NestedObjects, "fails_at", _nested_fails_at)
analysis(NestedObjects, "waits", _waits)
