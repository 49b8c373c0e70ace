"""XML-style tool-call arguments: one combinator for every tag-delimited key/value layout.

A `Layout` is data: the marker that opens an argument, how its key is spelled (bare text up
to `key_close`, or an attribute of the opening tag), the marker between key and value, the
closing tag, the end-of-arguments marker, and the type attribute, if any. Each family's
layout is its family file's `LAYOUT` (`protocall.formats.qwen3_coder`, …).
`xml_arguments(layout, typing)` parses zero or more arguments, with optional whitespace
before, between and after them, up to (not consuming) the end marker, each value typed by
`typing` (a `Typing`: the tool's JSON schema in `blocks.schema_typing`), which also says
which keys the tool declares.

Telling a closing tag inside a value from the real one: a value's closing tag ends the value
only when what follows it, after optional whitespace, can continue the arguments: the end
marker, or a complete argument opener whose key part is well-formed and, where the tool's
typing declares keys, names one of them. Otherwise the closing tag is value text (a
literal `</parameter>` in code, `</parameter>` then prose or an undeclared key). A key
given already (the current one too) ends the value and then fails as a duplicate: a
repeated argument is an error, never value text. With `committed_opener` (GLM, whose
values are not code) the argument opener itself is enough: the closing tag then ends the
value and a malformed or unexpected key after it fails, so a value never swallows markup
(`Seattle</arg_value><arg_key>unit<arg_value>…` is an error, not one long value). While
that is undecided the value holds back from the closing tag (and from the framing newline
before it); at end of input an undecided tag counts as the close, so the error then names
what the arguments lacked: a value cut off by the end of input never completes. Text that
merely looks like an opener or the end marker inside a value (`<tool_call>`, `<function=`)
is value text, except for these tolerances of a missing closing tag (only where a layout
enables them, as serving stacks do):
- `unclosed_at_opener`: an opener at the start of a line inside the value, whose key is
  declared in the tool's schema, is not the current key and has not been given yet, ends
  the value before that newline (without a schema: never). Mid-line markup in code, such
  as `x = "<parameter=path>"`, stays text.
- `unclosed_at_end`: the end marker ends the value when it is followed, after optional
  whitespace, by one of the given markers or by the end of input.
Indistinguishable cases stay ambiguous: a value containing a closing tag followed by a
genuine-looking continuation (`</parameter>\\n<parameter=path>` with `path` declared, or
`</parameter>\\n</function>`, as text) is split there; what follows then usually breaks
the call, an error rather than a call with a cut value.

Streaming: the arguments are emitted as `Text` items forming synthesised JSON object text in
one fixed style (`{"location": "Paris", "days": 3}`), whose concatenation over one run is
exactly the final arguments JSON (`json.loads` gives the returned dict). `{` is emitted when
the first argument opens (or `{}` at the end marker), `"key": ` once the key part is
complete (never a partial key), a string-typed value as escaped JSON string pieces as its raw
text arrives (holding back what could still be its closing tag or framing newline), any other
value once it is complete, and `}` at the end marker. Around each argument: `Open(ARGUMENT)`,
an `ARGUMENT_NAME` node (value: the key), an `ARGUMENT_VALUE` node (value: the typed value),
and `Close(ARGUMENT, end, (key, value))`; the `{`, `, ` and `}` are outside these nodes.

Values that do not convert to their declared type stay strings; each is reported in the
returned `Arguments.problems` (never a crash, never a dropped call). A duplicate key fails
("duplicate argument `k`"). End of input: needs more while the stream is open; once it has
ended, a missing end marker or an argument left open fails there, expecting what was
missing, with `argument` / `argument_name` / `argument_value` in the error context.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Generator, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any, Protocol, TypeVar

from ..combinators.parser import Parser, Step, quote
from ..combinators.result import Backtrack, ParseFailure
from ..combinators.stream import Close, Input, Open, Text, new_text
from ..combinators.text import Gathered, longest_first, proper_prefixes

T = TypeVar("T")
Resumable = Generator[int, None, T]
"""A resumable helper: yields the lowest offset it may still read, returns a `T`."""

ARGUMENT = "argument"
ARGUMENT_NAME = "argument_name"
ARGUMENT_VALUE = "argument_value"


@dataclass(frozen=True)
class Layout:
    """One tag-delimited argument layout (see the module docstring for the shared rules).

    - `opener` starts an argument; the key part follows it and ends with `key_close`.
    - `key_attribute`: the key is this attribute of the opening tag (` name="K"`; more
      attributes may follow, with `decode_entities` turning `&quot;` then `&amp;` back
      into `"` and `&`). Without it the key is the bare text before `key_close`, stripped,
      on one line and without `<` or `>`.
    - `value_open` (after optional whitespace) precedes the value, `value_close` ends it.
    - `end` ends the arguments; it is not consumed. `other_ends`: other markers that end
      them as `end` does (a call closed by either of two tokens: `Call.other_closers`);
      the renderer writes none, as it writes no `end` of its own.
    - `framing_newlines`: one newline right after the key part and one right before the
      value's terminator, where present, are framing, not value text. `framing_written`
      (default on): the renderer writes them around every value; off, only where the value
      itself begins or ends with a newline (Seed-OSS's template writes none, its model
      sometimes does: both read the same).
    - `type_attribute`: the attribute that types the value; `type_values` maps its values
      to type names (`string`, `json` for any JSON value, or a schema type name), or, when
      empty, the attribute value is the type name. A value without the attribute, or with
      an unmapped one, is typed by the schema.
    - `committed_opener`: `value_close` then `opener` always ends the value (see the
      module docstring).
    - `unclosed_at_opener`, `unclosed_at_end`: tolerances of a missing `value_close`.
    - `quote`: an (open, close) pair that may wrap a whole value, open right where the
      value starts (MiniCPM5's `<![CDATA[` … `]]>`): the text between is the value
      verbatim, markers included; the close ends it only where `value_close` follows
      (after optional whitespace) and closes the value as the rules above have it, else
      it is value text. `quote_when`: the characters that make the renderer quote a
      string value (one that begins with the open is quoted too).
    """

    opener: str
    key_close: str
    value_close: str
    end: str
    key_attribute: str | None = None
    value_open: str = ""
    framing_newlines: bool = False
    framing_written: bool = True
    decode_entities: bool = False
    type_attribute: str | None = None
    type_values: Mapping[str, str] = field(default_factory=dict, hash=False)
    committed_opener: bool = False
    unclosed_at_opener: bool = False
    unclosed_at_end: tuple[str, ...] | None = None
    quote: tuple[str, str] | None = None
    quote_when: str = ""
    other_ends: tuple[str, ...] = ()


class Typed(Protocol):
    """A typed value: `value`, and `problem` (what was expected) where the raw text did
    not convert and `value` is that text."""

    @property
    def value(self) -> Any: ...

    @property
    def problem(self) -> str | None: ...


class Typing(Protocol):
    """How a layout's values are typed (a tool's schema: `blocks.schema_typing`).

    Called with a key and the type name its type attribute gives (None where it gives
    none), it answers whether the value streams as a string and how its raw text is
    typed. `declared` are the keys the tool declares (empty: any key), which the
    missing-closer tolerances read."""

    @property
    def declared(self) -> Collection[str]: ...

    def __call__(self, key: str, type_name: str | None) -> tuple[bool, Callable[[str], Typed]]: ...


class Arguments(dict[str, Any]):
    """The typed arguments. `problems` names each value that did not convert to its
    declared type and was kept as the raw string."""

    __slots__ = ("problems",)

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []


def xml_arguments(layout: Layout, typing: Typing) -> Parser[Arguments]:
    """Zero or more `layout` arguments up to its end marker, each value typed by `typing`
    from its key and the type its type attribute names, if any (see the module docstring)."""
    return XmlArguments(layout, typing)


SPACE = re.compile(r"\s*")
ATTRIBUTE = re.compile(r'\s+([A-Za-z_][\w.:-]*)="([^"]*)"')
ATTRIBUTE_PREFIX = re.compile(r'(?:\s+(?:[A-Za-z_][\w.:-]*(?:=(?:"[^"]*)?)?)?)?')


_CLOSE, _OPENER, _END = "close", "opener", "end"


class Terminators:
    """What a layout's value scan looks for, compiled from the layout."""

    def __init__(self, layout: Layout) -> None:
        self.heads = (layout.opener, layout.end, *layout.other_ends)
        self.kinds = {layout.value_close: _CLOSE}
        if layout.unclosed_at_opener:
            self.kinds["\n" + layout.opener] = _OPENER
        if layout.unclosed_at_end is not None:
            self.kinds[layout.end] = _END
        markers = longest_first(self.kinds)
        self.find = re.compile(markers)
        # While the stream is open, one search finds the earliest terminator candidate or
        # the earliest proper prefix of one that reaches the end of the buffer (held back).
        self.scan = re.compile(f"{markers}|(?:{proper_prefixes(self.kinds)})\\Z")
        # A marker that another one extends is undecided while it ends the buffer.
        self.extendable = {m for m in self.kinds for o in self.kinds if o != m and o.startswith(m)}
        # A bare key's text: it stops at a character that may start `key_close` or a tag.
        self.key_run = re.compile("[^<>\n" + re.escape(layout.key_close[0]) + "]*")
        self.value_expected = (quote(layout.value_close),)
        if layout.quote is not None:
            close = {layout.quote[1]: _CLOSE}
            self.quote_find = re.compile(longest_first(close))
            self.quote_scan = re.compile(f"{longest_first(close)}|(?:{proper_prefixes(close)})\\Z")


class XmlArguments(Parser[Arguments]):
    """The parser behind `xml_arguments`."""

    def __init__(self, layout: Layout, typing: Typing) -> None:
        self.layout = layout
        self.typing = typing
        self.declared = typing.declared
        self.terminators = self.compile(layout)

    compile = staticmethod(Terminators)
    """The layout's `Terminators` (the shortcuts keep them per layout: grammars, and so
    argument parsers, are built per session and per tool)."""

    def step(self, inp: Input, pos: int) -> Step[Arguments]:
        arguments = Arguments()
        while True:
            pos = yield from skip_space(inp, pos, None)
            head = yield from self._choose(inp, pos, self.terminators.heads, pos)
            if head >= 1:  # an end
                inp.out.append(Text("}" if arguments else "{}", pos))
                return arguments, pos
            inp.out.append(Text(", " if arguments else "{", pos))
            try:
                pos = yield from self._argument(inp, pos, arguments)
            except ParseFailure as failure:
                failure.context.append(ARGUMENT)
                raise

    def _argument(self, inp: Input, start: int, arguments: Arguments) -> Resumable[int]:
        layout = self.layout
        inp.out.append(Open(ARGUMENT, start))
        inp.out.append(Open(ARGUMENT_NAME, start))
        key_start = start + len(layout.opener)
        try:
            key, attributes, close_at, pos = yield from self._tag(inp, key_start, None)
            if not key:
                raise Backtrack(close_at, ("an argument name",))
            if key in arguments:
                raise Backtrack(close_at, (f"a new argument (duplicate argument `{key}`)",))
        except ParseFailure as failure:
            failure.context.append(ARGUMENT_NAME)
            raise
        inp.out.append(Text(encode_basestring(key), key_start))
        inp.out.append(Close(ARGUMENT_NAME, pos, key))
        inp.out.append(Text(": ", pos))
        if layout.value_open:
            pos = yield from skip_space(inp, pos, None)
            yield from self._choose(inp, pos, (layout.value_open,), pos)
            pos += len(layout.value_open)
        if layout.framing_newlines:
            while pos >= inp.end and not inp.eof:
                yield pos
            if pos < inp.end and inp.buf[pos - inp.base] == "\n":
                pos += 1
        streamed, convert = self._typing(key, attributes)
        inp.out.append(Open(ARGUMENT_VALUE, pos))
        if streamed:
            inp.out.append(Text('"', pos))
        try:
            raw, value_end, end = yield from self._value(inp, pos, key, arguments, streamed)
        except ParseFailure as failure:
            failure.context.append(ARGUMENT_VALUE)
            raise
        coerced = convert(raw)
        value, problem = coerced.value, coerced.problem
        deepest = inp.max_depth  # the run's bound; the arguments are the first level
        if deepest is not None and type(value) in CONTAINERS and nests_deeper(value, deepest - 1):
            value, problem = raw, f"nested deeper than {deepest} (max_depth)"
        if streamed:
            inp.out.append(Text('"', value_end))
        else:
            if problem is not None:
                arguments.problems.append(f"argument `{key}`: {problem}; kept as a string")
            # No RecursionError: `value` was decoded at a deeper stack than this.
            inp.out.append(Text(json.dumps(value, ensure_ascii=False), pos))
        inp.out.append(Close(ARGUMENT_VALUE, value_end, value))
        inp.out.append(Close(ARGUMENT, end, (key, value)))
        arguments[key] = value
        return end

    def _typing(
        self, key: str, attributes: Mapping[str, str]
    ) -> tuple[bool, Callable[[str], Typed]]:
        """Whether the value streams as a string, and how its raw text is typed."""
        layout = self.layout
        declared = attributes.get(layout.type_attribute) if layout.type_attribute else None
        type_name = declared
        if declared is not None and layout.type_values:
            type_name = layout.type_values.get(declared)
        return self.typing(key, type_name)

    def _tag(
        self, inp: Input, pos: int, keep: int | None
    ) -> Resumable[tuple[str, dict[str, str], int, int]]:
        """The key part from `pos` through `key_close`: (key, attributes, where `key_close`
        starts, where it ends). Fails at the first character that cannot continue it."""
        layout = self.layout
        hold = pos if keep is None else keep
        if layout.key_attribute is None:
            scan = pos
            while True:
                at = match_end(self.terminators.key_run, inp.buf, scan - inp.base) + inp.base
                if at < inp.end:
                    yield from self._choose(inp, at, (layout.key_close,), hold)
                    return inp.text(pos, at).strip(), {}, at, at + len(layout.key_close)
                if inp.eof:
                    raise Backtrack(inp.end, (quote(layout.key_close),))
                scan = inp.end
                yield from self.wait_key(inp, pos, hold)
        attributes: dict[str, str] = {}
        cursor = pos
        while True:
            buf, base = inp.buf, inp.base
            attribute = ATTRIBUTE.match(buf, cursor - base)
            if attribute is not None:
                name, value = attribute.groups()
                if layout.decode_entities:
                    value = value.replace("&quot;", '"').replace("&amp;", "&")
                attributes[name] = value
                cursor = attribute.end() + base
                continue
            at = match_end(SPACE, buf, cursor - base) + base
            got = buf[at - base : at - base + len(layout.key_close)]
            if got == layout.key_close:
                break
            viable = match_end(ATTRIBUTE_PREFIX, buf, cursor - base) + base
            end = base + len(buf)
            if not inp.eof and (viable == end or layout.key_close.startswith(got)):
                if viable == end:
                    yield from self.wait_attributes(inp, cursor, hold)
                else:
                    yield hold
                continue
            position = max(viable, at + shared_prefix(got, layout.key_close))
            raise Backtrack(position, (f"an attribute or {quote(layout.key_close)}",))
        key = attributes.get(layout.key_attribute)
        if key is None:
            raise Backtrack(at, (f"attribute `{layout.key_attribute}`",))
        return key, attributes, at, at + len(layout.key_close)

    def _value(
        self, inp: Input, start: int, key: str, arguments: Arguments, streamed: bool
    ) -> Resumable[tuple[str, int, int]]:
        """The raw value from `start`: (raw text, where it ends, where the argument ends)."""
        if self.layout.quote is not None:
            quoted = yield from self._choose_quote(inp, start)
            if quoted:
                return (yield from self._quoted(inp, start, key, arguments, streamed))
        marks = self.terminators
        find, scan_open, kinds = marks.find, marks.scan, marks.kinds
        framing = self.layout.framing_newlines
        state = self.value_text(start, streamed)
        scan = start
        while True:
            emitted = state.emitted
            scan = max(scan, emitted)  # past what a wait took (see `wait_value`)
            buf, base, eof = inp.buf, inp.base, inp.eof
            size = len(buf)
            match = (find if eof else scan_open).search(buf, scan - base)
            kind = None
            if match is None:
                limit = base + size
            else:
                limit = base + match.start()
                kind = kinds.get(match.group())
                if kind is not None and not eof and match.end() == size:
                    kind = None if match.group() in marks.extendable else kind
            cut = limit
            if (
                framing
                and kind != _OPENER  # its newline is part of the marker
                and cut > emitted
                and cut > start
                and buf[cut - 1 - base] == "\n"
            ):
                cut -= 1
            if cut > emitted:
                piece = buf[emitted - base : cut - base]
                state.add(piece)
                if streamed:
                    inp.out.append(new_text((encode_basestring(piece)[1:-1], emitted)))
                state.emitted = cut
            if kind is not None:
                assert match is not None
                size = len(match.group())
                closes = yield from self._closes(inp, kind, limit, size, key, arguments, cut)
                if closes:
                    end = limit + size if kind == _CLOSE else limit
                    return state.text(), cut, end
                scan = limit + 1
                continue
            if eof:
                raise Backtrack(base + size, marks.value_expected)
            scan = limit
            yield from self.wait_value(inp, state)

    def _choose_quote(self, inp: Input, start: int) -> Resumable[bool]:
        """Whether the value at `start` opens the layout's quote; needs more while the text
        there is a proper prefix of the open."""
        assert self.layout.quote is not None
        opener = self.layout.quote[0]
        while True:
            got = inp.buf[start - inp.base : start - inp.base + len(opener)]
            if got == opener or inp.eof or not opener.startswith(got):
                return got == opener
            yield start

    def _quoted(
        self, inp: Input, start: int, key: str, arguments: Arguments, streamed: bool
    ) -> Resumable[tuple[str, int, int]]:
        """A quoted value from `start` (its open): (raw text, where it ends, where the
        argument ends). Text that could still be the quote's close is held back."""
        assert self.layout.quote is not None
        opener, close = self.layout.quote
        marks = self.terminators
        state = _Gathered(start + len(opener))
        scan = state.emitted
        while True:
            buf, base, eof = inp.buf, inp.base, inp.eof
            match = (marks.quote_find if eof else marks.quote_scan).search(buf, scan - base)
            limit = base + (len(buf) if match is None else match.start())
            if limit > state.emitted:
                piece = buf[state.emitted - base : limit - base]
                state.add(piece)
                if streamed:
                    inp.out.append(new_text((encode_basestring(piece)[1:-1], state.emitted)))
                state.emitted = limit
            if match is not None and match.group() == close:
                end = yield from self._quote_ends(inp, limit + len(close), key, arguments, limit)
                if end is not None:
                    return state.text(), limit, end
                scan = limit + 1
                continue
            if eof:
                raise Backtrack(base + len(buf), (quote(close),))
            scan = limit
            yield state.emitted

    def _quote_ends(
        self, inp: Input, pos: int, key: str, arguments: Arguments, keep: int
    ) -> Resumable[int | None]:
        """Where the argument ends if the quote's close right before `pos` ends the value
        (`value_close` follows and closes it), else None; at the end of input, where
        `value_close` could still have followed, a failure expecting it."""
        value_close = self.layout.value_close
        try:
            after = yield from skip_space(inp, pos, keep)
            yield from self._choose(inp, after, (value_close,), keep)
        except Backtrack as failure:
            if inp.eof and failure.position >= inp.end:
                raise Backtrack(inp.end, self.terminators.value_expected) from None
            return None
        size = len(value_close)
        closes = yield from self._closes(inp, _CLOSE, after, size, key, arguments, keep)
        return after + size if closes else None

    def _closes(
        self, inp: Input, kind: str, at: int, size: int, key: str, arguments: Arguments, keep: int
    ) -> Resumable[bool]:
        """Whether the terminator candidate of `kind` at `at` really ends the value (see the
        module docstring); undecided at end of input counts as yes."""
        layout = self.layout
        try:
            if kind == _OPENER:
                name, _, _, _ = yield from self._tag(inp, at + size, keep)
                return name != key and name not in arguments and name in self.declared
            after = yield from skip_space(inp, at + size, keep)
            if kind == _CLOSE:
                head = yield from self._choose(inp, after, self.terminators.heads, keep)
                if head == 0 and not layout.committed_opener:
                    name, _, _, _ = yield from self._tag(inp, after + len(layout.opener), keep)
                    return not self.declared or name in self.declared
            elif layout.unclosed_at_end:
                yield from self._choose(inp, after, layout.unclosed_at_end, keep)
            return True
        except Backtrack as failure:
            return inp.eof and failure.position >= inp.end

    def _choose(self, inp: Input, pos: int, options: tuple[str, ...], keep: int) -> Resumable[int]:
        """The index of the option that starts at `pos`; needs more while the text there is
        a proper prefix of one, fails at the first character that rules all of them out."""
        longest = max(map(len, options))
        while True:
            got = inp.buf[pos - inp.base : pos - inp.base + longest]
            for index, option in enumerate(options):
                if got.startswith(option):
                    return index
            if inp.eof or not any(option.startswith(got) for option in options):
                same = max(shared_prefix(got, option) for option in options)
                raise Backtrack(pos + same, tuple(map(quote, options)))
            yield from self.wait_marker(inp, options, pos, keep)

    def value_text(self, start: int, streamed: bool) -> ValueText:
        """The text of the value from `start` as it is read (and, `streamed`, emitted)."""
        return _Gathered(start)

    # The waits for more input, each keeping the text from `keep` readable. The shortcuts
    # (`protocall.shortcuts.xmlargs`) replace them with waits that take the deltas that
    # would change nothing but the buffer (or only stream more of a value) without resuming.

    def wait_marker(
        self, inp: Input, options: tuple[str, ...], pos: int, keep: int
    ) -> Resumable[None]:
        """Wait while the text at `pos` is a proper prefix of one of `options`."""
        yield keep

    def wait_key(self, inp: Input, pos: int, keep: int) -> Resumable[None]:
        """Wait while a bare key from `pos` reaches the end of the input."""
        yield keep

    def wait_attributes(self, inp: Input, cursor: int, keep: int) -> Resumable[None]:
        """Wait while the attributes from `cursor` reach the end of the input."""
        yield keep

    def wait_value(self, inp: Input, state: ValueText) -> Resumable[None]:
        """Wait with the value's text emitted up to `state.emitted` (and held after it). A
        faster wait may meanwhile take deltas as the scan would, adding and emitting their
        text: `state.emitted` then has moved on."""
        yield state.emitted


class ValueText(Protocol):
    """A value's raw text read so far (`add`, `text`), and where its emitted text ends."""

    emitted: int

    def add(self, piece: str) -> None: ...

    def text(self) -> str: ...


class _Gathered(Gathered):
    """The plain `ValueText`."""

    __slots__ = ("emitted",)

    def __init__(self, start: int) -> None:
        super().__init__()
        self.emitted = start


def skip_space(inp: Input, pos: int, keep: int | None) -> Resumable[int]:
    """Past any whitespace from `pos`; needs more while the run reaches the buffer's end."""
    while True:
        pos = match_end(SPACE, inp.buf, pos - inp.base) + inp.base
        if pos < inp.end or inp.eof:
            return pos
        yield pos if keep is None else keep


def match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where a pattern that matches the empty string stops matching at `pos`."""
    match = pattern.match(text, pos)
    assert match is not None
    return match.end()


def shared_prefix(text: str, marker: str) -> int:
    """The length of the common prefix of `text` and `marker`."""
    size = 0
    for a, b in zip(text, marker, strict=False):
        if a != b:
            break
        size += 1
    return size


CONTAINERS = (list, dict)


def nests_deeper(value: list[Any] | dict[str, Any], levels: int) -> bool:
    """Whether the containers of a typed value (the first level itself) nest more than
    `levels` deep; read with a stack, not a recursion."""
    open_: list[tuple[Any, int]] = [(value, 1)]
    while open_:
        container, level = open_.pop()
        if level > levels:
            return True
        items = container.values() if type(container) is dict else container
        open_.extend((item, level + 1) for item in items if type(item) in CONTAINERS)
    return False
