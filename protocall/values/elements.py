"""Element-tree arguments: each argument an element named after its key, values nesting.

MiniMax-M3 writes a call's arguments as elements whose tags all begin with one marker (an
`Elements` layout's `prefix`, `]<]minimax[>[`): `P<city>Paris P</city>`, an object as its
members' elements inside its own (`P<shipping>P<zip>01895P</zip>P</shipping>`), a list as
`P<item>` elements (`P<tags>P<item>a P</item>P<item>b P</item>P</tags>`), with no space
written between tags. `element_arguments(layout, typing)` parses zero or more such
elements, with optional whitespace before, between and after them, up to (not consuming)
the end marker, `P</` (the closing tag of whatever holds the arguments), each value typed
by `typing` level by level (an `ElementTyping`: the tool's JSON schema in
`blocks.schema_typing`).

What an element holds:
- Text up to `P</KEY>`: a scalar, its raw text typed by the element's typing (text that
  does not convert stays a string and is reported in `Arguments.problems`). Text that is
  only whitespace, where the typing allows a container and the text does not convert, is
  the empty object or list (the template writes an empty list or object as an empty
  element).
- Elements (whitespace around them is not part of the value): an object or a list. The
  typing says which where it allows one container only; else the first child tells: a
  `P<item>` begins a list, any other name an object. A list's children are all
  `P<item>`; an object's names are its keys, each given once.
Text and elements mixed in one element, another element's tag where a value's closing
tag should be, a repeated key or a list child not named `item` fails there, naming what
was expected: never a guess, never text lost (the enclosing call keeps the raw text).
An element name is a run of characters without `<`, `>` or a newline that does not begin
with `/`.

Streaming: the arguments are emitted as `Text` items forming synthesised JSON text in one
fixed style (`{"city": "Paris", "tags": ["a"]}`), whose concatenation over one run is
exactly the final arguments JSON. `{` or `[` is emitted when a container's first child
opens (or `{}` / `[]` when it closes empty), `"key": ` once the child's opening tag is
complete, a string-typed scalar as escaped JSON string pieces as its raw text arrives
(holding back a tail that may begin `P`), any other scalar once complete, `}` or `]` at
the container's closing tag. Leading whitespace is held until what follows tells a
scalar (whose text it is) from a container (where it is nothing). Around each argument
(the first level only): `Open(ARGUMENT)`, an `ARGUMENT_NAME` node (value: the key), an
`ARGUMENT_VALUE` node (value: the typed value) and `Close(ARGUMENT, end, (key, value))`.

Nesting is bounded: the arguments are the first level, and a container opened deeper than
`MAX_DEPTH` (or the run's lower `max_depth`: `values.depth`) fails at its tag. The open
containers are a list, not a recursion: any depth parses in constant stack, and each
character is read a bounded number of times, whatever the chunking. End of input: needs
more while the stream is open; once it has ended, an element left open fails there,
expecting its closing tag.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, Protocol

from ..combinators.parser import Parser, Step, quote
from ..combinators.result import Backtrack, ParseFailure
from ..combinators.stream import Close, Input, Open, Text, new_text
from .depth import Bound, nesting_bound
from .xmlargs import (
    ARGUMENT,
    ARGUMENT_NAME,
    ARGUMENT_VALUE,
    CONTAINERS,
    SPACE,
    Arguments,
    Resumable,
    Typed,
    match_end,
    nests_deeper,
    shared_prefix,
    skip_space,
)

OBJECT, ARRAY = "object", "array"
MAX_DEPTH = 128
"""How deep element values nest at most, the arguments the first level (JSON's bound)."""


@dataclass(frozen=True)
class Elements:
    """An element-tree layout: every tag begins with `prefix`; a list's children are
    named `item`."""

    prefix: str
    item: str = "item"

    def opening(self, name: str) -> str:
        return f"{self.prefix}<{name}>"

    def closing(self, name: str) -> str:
        return f"{self.prefix}</{name}>"


class ElementTyping(Protocol):
    """How one level of element values is typed (a JSON schema: `blocks.schema_typing`).

    `container` is `object` or `array` where the level allows that container only (None:
    the first child tells); `scalar` says whether a text value streams as a string and
    how its raw text is typed; `member(key)` and `item()` type the levels below."""

    @property
    def container(self) -> str | None: ...

    @property
    def scalar(self) -> tuple[bool, Callable[[str], Typed]]: ...

    def member(self, key: str) -> ElementTyping: ...

    def item(self) -> ElementTyping: ...


def element_arguments(layout: Elements, typing: ElementTyping) -> Parser[Arguments]:
    """Zero or more argument elements up to the layout's end marker, typed level by level
    by `typing` (see the module docstring)."""
    return ElementArguments(layout, typing)


NAME = re.compile(r"[^<>/\n][^<>\n]*")
_NAME_RUN = re.compile(r"[^<>\n]*")
_TOO_DEEP = (f"a value nested at most {MAX_DEPTH} deep",)


class _Container:
    """An open container: its element's name (None: the arguments), typing, value, the
    keys' path for messages, and whether it is an object."""

    __slots__ = ("is_object", "name", "path", "typing", "value")

    def __init__(self, name: str | None, typing: ElementTyping, value: Any, path: str) -> None:
        self.name = name
        self.typing = typing
        self.value = value
        self.path = path
        self.is_object = type(value) is not list


class ElementArguments(Parser[Arguments]):
    """The parser behind `element_arguments`."""

    def __init__(self, layout: Elements, typing: ElementTyping) -> None:
        self.layout = layout
        self.typing = typing
        self.opener = f"{layout.prefix}<"
        self.own: Bound = (MAX_DEPTH, _TOO_DEEP)

    def step(self, inp: Input, pos: int) -> Step[Arguments]:
        arguments = Arguments()
        open_ = [_Container(None, self.typing, arguments, "")]
        while True:
            try:
                pos = yield from self._next(inp, pos, open_)
            except ParseFailure as failure:
                if len(open_) > 1:  # inside an argument's value
                    failure.context += [ARGUMENT_VALUE, ARGUMENT]
                raise
            if pos < 0:
                return arguments, ~pos

    def _next(self, inp: Input, pos: int, open_: list[_Container]) -> Resumable[int]:
        """Read from `pos` what comes next in the innermost open container: a child (a
        scalar whole, or a container's opening), or the container's closing tag. Where the
        arguments end, `~pos` (negative)."""
        holder = open_[-1]
        pos = yield from skip_space(inp, pos, None)
        closing = yield from self._tag_start(inp, pos)
        if closing:
            if len(open_) == 1:
                inp.out.append(Text("}" if holder.value else "{}", pos))
                return ~pos
            end = yield from self._expect(inp, pos, self.layout.closing(str(holder.name)))
            brackets = "{}" if holder.is_object else "[]"
            inp.out.append(Text(brackets[1] if holder.value else brackets, end))
            open_.pop()
            self._add(inp, open_, holder.name, holder.value, end)
            return end
        argument = len(open_) == 1
        name, pos = yield from self._child(inp, pos, holder, argument)
        typing = holder.typing.member(name) if holder.is_object else holder.typing.item()
        path = (
            f"{holder.path}.{name}" if holder.is_object else f"{holder.path}[{len(holder.value)}]"
        )
        path = path.lstrip(".")
        try:
            kind, at = yield from self._content(inp, pos)
            deepest, too_deep = nesting_bound(inp, self.own)  # the run's, read as it stands
            if kind is None:
                arguments = open_[0].value
                levels = deepest - len(open_)
                read = self._scalar(inp, pos, name, typing, path, arguments, levels)
                value, end = yield from read
                self._add(inp, open_, name, value, end)
                return end
            if len(open_) == deepest:
                raise Backtrack(at, too_deep)
        except ParseFailure as failure:
            if argument:  # deeper, `step` says so
                failure.context += [ARGUMENT_VALUE, ARGUMENT]
            raise
        container = typing.container or (ARRAY if kind == self.layout.item else OBJECT)
        open_.append(_Container(name, typing, [] if container == ARRAY else {}, path))
        return at

    def _child(
        self, inp: Input, pos: int, holder: _Container, argument: bool
    ) -> Resumable[tuple[str, int]]:
        """The child element's opening tag at `pos` (its `prefix<` seen): its name and
        where the tag ends. Emits what goes before the child's value."""
        start = pos
        if argument:
            inp.out.append(Text(", " if holder.value else "{", pos))
            inp.out.append(Open(ARGUMENT, pos))
            inp.out.append(Open(ARGUMENT_NAME, pos))
        try:
            name, pos = yield from self._name(inp, pos + len(self.opener))
            if not holder.is_object and name != self.layout.item:
                item = quote(self.layout.opening(self.layout.item))
                raise Backtrack(start + len(self.opener), (f"{item} (a list's child)",))
            if holder.is_object and name in holder.value:
                raise Backtrack(pos - 1, (f"a new key (repeated element `{name}`)",))
        except ParseFailure as failure:
            if argument:
                failure.context += [ARGUMENT_NAME, ARGUMENT]
            raise
        key = encode_basestring(name)
        if argument:
            inp.out.append(Text(key, start))
            inp.out.append(Close(ARGUMENT_NAME, pos, name))
            inp.out.append(Text(": ", pos))
            inp.out.append(Open(ARGUMENT_VALUE, pos))
        else:
            opened = "{" if holder.is_object else "["
            separator = ", " if holder.value else opened
            inp.out.append(Text(f"{separator}{key}: " if holder.is_object else separator, start))
        return name, pos

    def _add(self, inp: Input, open_: list[_Container], name: Any, value: Any, end: int) -> None:
        """Put a complete value into the innermost open container (an argument's value
        closes its nodes)."""
        holder = open_[-1]
        if holder.is_object:
            holder.value[name] = value
        else:
            holder.value.append(value)
        if len(open_) == 1:
            inp.out.append(Close(ARGUMENT_VALUE, end, value))
            inp.out.append(Close(ARGUMENT, end, (name, value)))

    def _scalar(
        self,
        inp: Input,
        start: int,
        name: str,
        typing: ElementTyping,
        path: str,
        arguments: Arguments,
        levels: int,
    ) -> Resumable[tuple[Any, int]]:
        """A text value from `start` through its closing tag: (its typed value, where the
        element ends). A string-typed one streams as it arrives; one typed as an object or
        a list (JSON text) may nest `levels` deep."""
        streamed, convert = typing.scalar
        prefix = self.layout.prefix
        if streamed:
            inp.out.append(Text('"', start))
        pieces: list[str] = []
        emitted = scan = start
        while True:
            buf, base = inp.buf, inp.base
            found = buf.find(prefix, scan - base)
            held = 0 if found >= 0 or inp.eof else _held(buf, prefix)
            limit = base + (found if found >= 0 else len(buf) - held)
            if limit > emitted:
                piece = buf[emitted - base : limit - base]
                pieces.append(piece)
                if streamed:
                    inp.out.append(new_text((encode_basestring(piece)[1:-1], emitted)))
                emitted = limit
            if found >= 0:
                break
            if inp.eof:
                raise Backtrack(inp.end, (quote(self.layout.closing(name)),))
            scan = limit
            yield emitted
        end = yield from self._expect(inp, emitted, self.layout.closing(name))
        raw = "".join(pieces)
        if streamed:
            inp.out.append(Text('"', emitted))
            return raw, end
        coerced = convert(raw)
        value = coerced.value
        if typing.container is not None and not raw.strip() and coerced.problem:
            value = [] if typing.container == ARRAY else {}
        elif coerced.problem is not None:
            arguments.problems.append(f"argument `{path}`: {coerced.problem}; kept as a string")
        elif type(value) in CONTAINERS and nests_deeper(value, levels):
            value = raw
            arguments.problems.append(f"argument `{path}`: nested too deep; kept as a string")
        inp.out.append(Text(json.dumps(value, ensure_ascii=False), start))
        return value, end

    def _content(self, inp: Input, pos: int) -> Resumable[tuple[str | None, int]]:
        """What an element's content from `pos` is: the name of its first child and where
        that child's tag begins, past whitespace, or None (and `pos`) for text (a closing
        tag included). Needs more while whitespace or a proper prefix of a tag reaches the
        end of the input."""
        opener = self.opener
        at = pos  # past the whitespace read so far
        run = -1  # where a child's name has been read to, once its tag has begun
        while True:
            buf, base = inp.buf, inp.base
            if run < 0:
                at = match_end(SPACE, buf, at - base) + base
            got = buf[at - base : at - base + len(opener) + 1]
            if at < inp.end and not opener.startswith(got[: len(opener)]):
                return None, pos
            if len(got) > len(opener):
                if got[-1] == "/":
                    return None, pos
                run = match_end(_NAME_RUN, buf, max(run, at + len(opener)) - base) + base
                if run < inp.end or inp.eof:
                    return inp.text(at + len(opener), run), at
            elif inp.eof:
                return None, pos
            yield pos

    def _tag_start(self, inp: Input, pos: int) -> Resumable[bool]:
        """Whether the tag at `pos` closes (`prefix</`) rather than opens (`prefix<`);
        fails where neither begins."""
        opener = self.opener
        wanted = (quote(opener),)
        while True:
            got = inp.buf[pos - inp.base : pos - inp.base + len(opener) + 1]
            if not opener.startswith(got[: len(opener)]):
                raise Backtrack(pos + shared_prefix(got, opener), wanted)
            if len(got) > len(opener):
                return got[-1] == "/"
            if inp.eof:
                raise Backtrack(inp.end, wanted)
            yield pos

    def _name(self, inp: Input, pos: int) -> Resumable[tuple[str, int]]:
        """An element name from `pos` and its `>`: (the name, where the tag ends)."""
        scan = pos
        while True:
            run = match_end(_NAME_RUN, inp.buf, scan - inp.base) + inp.base
            if run < inp.end:
                if NAME.fullmatch(inp.text(pos, run)) and inp.buf[run - inp.base] == ">":
                    return inp.text(pos, run), run + 1
                raise Backtrack(run if run > pos else pos, ("an element name and `>`",))
            if inp.eof:
                raise Backtrack(inp.end, ("an element name and `>`",))
            scan = run
            yield pos

    def _expect(self, inp: Input, pos: int, tag: str) -> Resumable[int]:
        """Past `tag` at `pos`; needs more while what has arrived there is a proper prefix
        of it, fails at the first character that differs."""
        while True:
            got = inp.buf[pos - inp.base : pos - inp.base + len(tag)]
            if got == tag:
                return pos + len(tag)
            if inp.eof or not tag.startswith(got):
                raise Backtrack(pos + shared_prefix(got, tag), (quote(tag),))
            yield pos


def _held(buf: str, prefix: str) -> int:
    """The length of the longest tail of `buf` that is a proper prefix of `prefix`."""
    return next((k for k in range(len(prefix) - 1, 0, -1) if buf.endswith(prefix[:k])), 0)
