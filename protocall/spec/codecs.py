"""How a call's name and arguments are written: codecs that both parse and render.

A `Spec`'s call template (see `spec`) names its parts with placeholders; each part is one
of these frozen dataclasses, plain data that `spec.to_data` prints and `spec.from_data`
reads back:

- name encodings, the `{name}` or `{id}` of a template: `Plain` (a run of name
  characters), `Attribute` (an entity-escaped attribute value, the rest of the tag free),
  `IdName` (an id that carries the name, `functions.NAME:IDX`);
- argument codecs, the `{arguments}` of a template: `JsonObject`, `XmlArguments` (one
  tag layout, typed by the tool's schema), `XmlElements` (elements named after their
  keys, nesting, typed by the schema level by level: MiniMax-M3), `PythonKeywords`
  (`k=v, …` inside a pseudo function call), `BareObject` (bare keys, strings between
  quote marks: Gemma 4);
- call codecs, the `{call}` of a template, which carry the name too: `NameAndArguments`
  (`{"name": N, "arguments": {…}}`), `NameKey` (`{"NAME": {…}}`, in a JSON array only).

Each parses (`parser`, `head`/`body`) with the building blocks of `blocks` and writes
(`render`) what it parses back, and shows itself in a marker summary (`shown`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, ClassVar, NamedTuple

from .. import ast
from ..blocks.json_calls import call_id, call_object, json_arguments
from ..blocks.names import (
    NAME_CHARS,
    NAME_LIMIT,
    TOO_LONG,
    arguments,
    json_name,
    name_run,
    tool_name,
    undoubled,
)
from ..blocks.render import (
    escape_attribute,
    framing,
    layout_text,
    render_argument,
    unescape_attribute,
)
from ..blocks.schema_typing import ElementSchema, element_typing, schema_typing
from ..combinators import (
    Backtrack,
    Input,
    Parser,
    Step,
    Synthesised,
    Text,
    UsageError,
    alt,
    cut,
    emit,
    fail,
    literal,
    markers,
    not_followed_by,
    optional,
    peek,
    regex,
    seq,
    success,
    tag,
    until,
)
from ..combinators import whitespace as ws
from ..tools import Tools
from ..values import (
    json_object,
    json_value,
)
from ..values.depth import Bound, nesting_bound
from ..values.elements import NAME as ELEMENT_NAME
from ..values.elements import Elements, element_arguments
from ..values.xmlargs import Layout, xml_arguments

# -- name encodings ------------------------------------------------------------------------


@dataclass(frozen=True)
class Plain:
    """The name as a run of `pattern` characters, final once its terminator has arrived,
    after a `prefix` that is written but may be missing when read (Gemma 4's `call:`).
    With `doubled` (a separator), a name read as `N{doubled}N` for a declared tool `N` is
    `N` (`blocks.names.undoubled`: Muse's `get_weather.get_weather`); written, `N`."""

    pattern: str = NAME_CHARS
    prefix: str = ""
    doubled: str = ""

    def parser(self, tools: Tools | None = None) -> Parser[str]:
        """The name; a `doubled` one read as the declared tool it names among `tools`."""
        run = name_run(self.pattern)
        if self.doubled:
            run = run.map(lambda name: undoubled(name, tools, self.doubled))
        name = tool_name(run)
        return optional(literal(self.prefix)).then(name) if self.prefix else name

    def render(self, name: str) -> str:
        return self.prefix + name

    @property
    def shown(self) -> str:
        return f"{self.prefix}NAME"


@dataclass(frozen=True)
class Attribute:
    """The name as an attribute value (the template has `attr="{name}"`): entity-escaped
    (`&quot;`, `&amp;`), and after its closing quote the rest of the opening tag holds any
    other attributes (read as free text up to the tag's end, written as the template says)."""

    pattern: str = r'[^"<]+'

    def parser(self) -> Parser[str]:
        return tool_name(name_run(self.pattern).map(unescape_attribute))

    def render(self, name: str) -> str:
        return escape_attribute(name)

    shown = "NAME"


@dataclass(frozen=True)
class IdName:
    """An id that carries the name, `{prefix}NAME:IDX` (`functions.get_weather:0`): the id
    (a character that is neither whitespace nor `<`, then characters of the class `chars`)
    is kept as the call id, without the whitespace it may end with; the name is the id
    without a leading `prefix` and a trailing `:IDX` (1-20 digits), final once the whole id
    has arrived. An id without `:IDX` names a tool only when it is `{prefix}NAME` with NAME
    declared; any other, or a name longer than `NAME_LIMIT`, makes the call malformed (an
    error, never a call named after a guess, nor text). An id that runs on past the longest
    one such a name allows fails there expecting `TOO_LONG` (the head then commits: see
    `long_name_commits`), so a head waiting on an endless id holds back a bounded text."""

    prefix: str = "functions."
    chars: str = r"[^\s<]"

    @property
    def pattern(self) -> str:
        """What an id is, unbounded."""
        return rf"[^\s<]{self.chars}*"

    def parser(self) -> Parser[str]:
        """The id, read up to its bound (see the class docstring)."""
        longest = len(self.prefix) + NAME_LIMIT + 21  # `:` and 20 digits
        ids = regex(rf"[^\s<]{self.chars}{{0,{longest - 1}}}").desc("a call id")
        bounded = ids.skip(not_followed_by(regex(self.chars), TOO_LONG))
        return tag(ast.TOOL_ID, bounded.map(str.rstrip))

    def name(self, call_id: str) -> str:
        """The name that `call_id` carries (whether it is one or not)."""
        indexed = self._indexed(call_id)
        return indexed[1] if indexed else call_id.removeprefix(self.prefix)

    def name_of(self, tools: Tools | None, call_id: str) -> Parser[str]:
        """The `tool_name` node the id names, or a failure."""
        name = self.name(call_id)
        if len(name) > NAME_LIMIT:
            return fail(TOO_LONG)
        if self._indexed(call_id) or (tools is not None and name != call_id and name in tools):
            return emit(ast.TOOL_NAME, name)
        bad = f"a call id `{self.prefix}NAME:IDX`, not `{call_id}`"
        return fail(f"{bad} (without `:IDX` it must name a declared tool)")

    def _indexed(self, call_id: str) -> re.Match[str] | None:
        return re.fullmatch(rf"(?:{re.escape(self.prefix)})?(.+):\d{{1,20}}", call_id)

    def render(self, name: str, call_id: str | None, index: int) -> str:
        return call_id or f"{self.prefix}{name}:{index}"

    @property
    def shown(self) -> str:
        return f"{self.prefix}NAME:IDX"


Name = Plain | Attribute | IdName

# -- argument codecs -----------------------------------------------------------------------


@dataclass(frozen=True)
class JsonObject:
    """The arguments as one JSON object, streamed as it arrives."""

    def parser(self, schema: Any) -> Parser[Any]:
        return json_object()

    def render(self, values: dict[str, Any]) -> str:
        return json.dumps(values, ensure_ascii=False)

    markers: ClassVar[tuple[str, ...]] = ()  # the codec has no markers of its own
    shown = "{…}"


@dataclass(frozen=True)
class JsonBlock:
    """A whole JSON object between `open` (then free attributes up to `tag_end`) and
    `close`, where a layout's arguments may stand instead (Kimi K3's `<|open|>json`)."""

    open: str
    tag_end: str
    close: str

    def parser(self) -> Parser[Any]:
        attributes = regex(f"[^{re.escape(self.tag_end[0])}]*").then(literal(self.tag_end))
        body = seq(literal(self.open), cut, attributes, ws, json_object(), ws, literal(self.close))
        return body.map(lambda parts: parts[4])


@dataclass(frozen=True)
class XmlArguments:
    """Tag-delimited arguments in one `layout`, typed by the tool's schema (see
    `xmlargs`), written one argument after another joined by `separator`; with `newline`,
    each argument on a line of its own (a newline after it, and before a `value_open`).
    With `block`, a whole JSON object in that block is accepted instead."""

    layout: Layout
    separator: str = ""
    block: JsonBlock | None = None
    newline: bool = False

    def parser(self, schema: Any) -> Parser[Any]:
        tagged = xml_arguments(self.layout, schema_typing(schema))
        return tagged if self.block is None else alt(self.block.parser(), tagged)

    def render(self, values: dict[str, Any]) -> str:
        end = "\n" if self.newline else ""
        return self.separator.join(self._pair(k, v) + end for k, v in values.items())

    def _pair(self, key: str, value: Any) -> str:
        layout = self.layout
        if layout.key_attribute:
            return render_argument(layout, key, value)
        gap = "\n" if self.newline and layout.value_open else ""
        text = layout_text(layout, value)
        before, after = framing(layout, text)
        value_text = f"{layout.value_open}{before}{text}{after}"
        return f"{layout.opener}{key}{layout.key_close}{gap}{value_text}{layout.value_close}"

    @property
    def markers(self) -> tuple[str, ...]:
        block = () if self.block is None else (self.block.open, self.block.close)
        quote = self.layout.quote or ()
        return (*block, self.layout.opener, self.layout.value_close, *quote)

    @property
    def shown(self) -> str:
        """One argument `K` of value `V`, on one line."""
        layout = self.layout
        if layout.key_attribute:
            return render_argument(layout, "K", "V")
        return f"{layout.opener}K{layout.key_close}{layout.value_open}V{layout.value_close}"


@dataclass(frozen=True)
class XmlElements:
    """Arguments as elements named after their keys, every tag led by the `layout`'s
    prefix, objects and lists nesting as elements (see `values.elements`), typed by the
    tool's schema level by level. Written as MiniMax-M3's template writes them: no space
    between tags, a member whose value is null left out, a list's items as `item`
    elements, a boolean as `true`/`false`, a number as JSON, a string verbatim."""

    layout: Elements

    def parser(self, schema: Any) -> Parser[Any]:
        return element_arguments(self.layout, element_typing(schema))

    def render(self, values: dict[str, Any]) -> str:
        return self._members(values)

    def _members(self, values: dict[str, Any]) -> str:
        layout = self.layout
        return "".join(
            f"{layout.opening(k)}{self._value(v)}{layout.closing(k)}"
            for k, v in values.items()
            if v is not None
        )

    def _value(self, value: Any) -> str:
        if isinstance(value, dict):
            return self._members(value)
        if isinstance(value, list):
            layout = self.layout
            return "".join(
                f"{layout.opening(layout.item)}{self._value(v)}{layout.closing(layout.item)}"
                for v in value
            )
        if value is None:  # an item: the template writes an empty element
            return ""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    def carries(self, values: dict[str, Any], parameters: Any) -> bool:
        """Whether `values`, written for a tool whose schema is `parameters`, read back as
        themselves. What the written form loses: a null (left out, or an empty item), an
        empty container or an object whose first key is `item` where the schema does not
        say which container it is, a key that is no element name, a string holding the
        prefix, and a value its level's typing reads as another: a number where the
        schema gives no type (read as its text), a string that is a JSON scalar in a
        free-form object (`"42"` read as 42), `"42"` where a number may stand."""
        return _carried(self.layout, values, element_typing(parameters))

    markers: ClassVar[tuple[str, ...]] = ()  # the prefix alone is none: the template's are

    @property
    def shown(self) -> str:
        """One argument `K` of value `V`."""
        return f"{self.layout.opening('K')}V{self.layout.closing('K')}"


def _carried(layout: Elements, value: Any, level: ElementSchema) -> bool:
    """Whether `value` at a `level` of element values reads back as itself (see
    `XmlElements.carries`)."""
    if isinstance(value, (dict, list)):
        kind = "object" if isinstance(value, dict) else "array"
        if level.containers and kind not in level.containers:
            return False
        if not value:  # an empty element: the empty container only where text cannot be
            return level.container == kind and level.scalar[1]("").problem is not None
        if isinstance(value, list):
            return all(_carried(layout, item, level.item()) for item in value)
        if level.container is None and next(iter(value)) == layout.item:
            return False
        return all(
            ELEMENT_NAME.fullmatch(k) is not None and _carried(layout, v, level.member(k))
            for k, v in value.items()
        )
    if value is None or (isinstance(value, str) and layout.prefix in value):
        return False
    streamed, convert = level.scalar
    if isinstance(value, str) and streamed:
        return True
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    read = convert(text).value
    return type(read) is type(value) and read == value


@dataclass(frozen=True)
class PythonKeywords:
    """Keyword arguments of a pseudo-function call, `k=v, …` with Python or JSON literal
    values (read by `blocks.python_calls.python_call_lines` and `python_call_list`),
    written `k=JSON` or, with `literals="python"`, `k=repr(v)` (`'x'`, `True`, `None`)."""

    literals: str = "json"

    def __post_init__(self) -> None:
        if self.literals not in ("json", "python"):
            raise UsageError(f'literals are "json" or "python", not {self.literals!r}')

    def render(self, values: dict[str, Any]) -> str:
        if self.literals == "python":
            return ", ".join(f"{k}={v!r}" for k, v in values.items())
        return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in values.items())

    markers: ClassVar[tuple[str, ...]] = ()  # the codec has no markers of its own
    shown = "k=v, …"


@dataclass(frozen=True)
class BareObject:
    """The arguments as an object whose keys are bare (spaces inside: `{my key:1}`;
    whitespace around a key is not part of it) or between `quote` marks, and whose strings
    are raw text between `quote` marks, without escapes (Gemma 4's
    `{key:<|"|>text<|"|>,n:3}`); numbers, `true`, `false`, `null` and JSON-quoted strings
    are JSON, `None` is null, objects and arrays nest, `,` between members and elements,
    whitespace optional. Streamed as JSON text: a key once its `:` has arrived, string text
    as it arrives (holding back a tail that may begin `quote`), other scalars once
    complete; a repeated key is an error. Written as the chat template's
    `format_argument` writes it: keys sorted, bare where they can be, else quoted."""

    quote: str = '<|"|>'

    def parser(self, schema: Any) -> Parser[Any]:
        """The arguments object; it cuts at each string and container, so it belongs after
        a call's head."""
        quote = self.quote
        quoted_key = seq(literal(quote), until(quote, emit=False, required=True), literal(quote))
        bare_key = regex(BARE_KEY).desc("a key").map(str.rstrip)
        key = alt(quoted_key.map(lambda parts: parts[1]), bare_key)
        none = literal("None").then(Synthesised("null")).result(None)
        strings = _committed(quote, Quoted(quote))
        containers = (_committed(opener, success(_Opens(opener))) for opener in _CLOSERS)
        scalar = alt(strings, *containers, none, json_value())
        return Nesting(scalar, key.skip(seq(ws, literal(":"), ws)))

    def render(self, values: Any) -> str:
        """`values` (any value) as the template writes it."""
        if isinstance(values, str):
            return f"{self.quote}{values}{self.quote}"
        if isinstance(values, dict):
            pairs = sorted(values.items())
            return "{" + ",".join(f"{self._key(k)}:{self.render(v)}" for k, v in pairs) + "}"
        if isinstance(values, list):
            return "[" + ",".join(map(self.render, values)) + "]"
        return json.dumps(values)

    def _key(self, key: str) -> str:
        bare = re.fullmatch(BARE_KEY, key) and key.strip() == key  # `\s` around: not key
        return key if bare else f"{self.quote}{key}{self.quote}"

    @property
    def markers(self) -> tuple[str, ...]:
        return (self.quote,)

    @property
    def shown(self) -> str:
        return f"{{key:{self.quote}…{self.quote}}}"


BARE_KEY = r"[^\t\n\r\f\v:,{}\[\]<>\"']+"
"""A bare key of a `BareObject`: spaces inside (`{my key:1}`)."""


class Quoted(Parser[str]):
    """`quote` raw text `quote`, streamed as a JSON string: `"` at the opening quote, the
    text escaped as it arrives (a tail that may begin the closing quote is held back), `"`
    at the closing quote. The value is the raw text. Fails at end of input while open."""

    def __init__(self, quote: str) -> None:
        self.quote = quote

    def step(self, inp: Input, pos: int) -> Step[str]:
        quote = self.quote
        _, pos = yield from literal(quote).step(inp, pos)
        inp.out.append(Text('"', pos))
        pieces: list[str] = []
        emitted = pos
        while True:
            buf, base = inp.buf, inp.base
            found = buf.find(quote, emitted - base)
            held = 0 if found >= 0 or inp.eof else self._prefix(buf)
            limit = base + (found if found >= 0 else len(buf) - held)
            if limit > emitted:
                piece = buf[emitted - base : limit - base]
                pieces.append(piece)
                inp.out.append(Text(encode_basestring(piece)[1:-1], emitted))
                emitted = limit
            if found >= 0:
                inp.out.append(Text('"', limit))
                return "".join(pieces), limit + len(quote)
            if inp.eof:
                raise Backtrack(inp.end, (f"`{quote}`",))
            yield emitted

    def _prefix(self, buf: str) -> int:
        """The length of the longest tail of `buf` that is a proper prefix of the quote."""
        quote = self.quote
        return next((k for k in range(len(quote) - 1, 0, -1) if buf.endswith(quote[:k])), 0)


class Nesting(Parser[dict[str, Any]]):
    """A `BareObject`'s arguments object: `{` members `}`, a member being `key` (its value
    the key) then a value, a value being what `scalar` parses, or, where `scalar` gives
    `{` or `[` (having cut at it), an object or `[` values `]`; `,` between members and
    elements, whitespace optional. Echoed as JSON text; a repeated key fails after its
    value, an object or array opened `MAX_DEPTH` deep (or as deep as the run's lower
    `max_depth`: see `values.depth`) fails at its bracket. The open
    containers are a list, not a recursion, so any depth parses in constant stack.

    Needs more while the value or a part of it does; at end of input an open container
    fails where the input ends, as its parts do."""

    def __init__(self, scalar: Parser[Any], key: Parser[str]) -> None:
        self.scalar = scalar
        self.key = key
        self.top = peek(literal("{")).result(_Opens("{"))  # the arguments: no cut
        self.opened = {
            opener: seq(literal(opener), Synthesised(opener), ws, optional(peek(literal(closer))))
            for opener, closer in _CLOSERS.items()
        }
        self.more = {
            closer: seq(ws, alt(literal(",").then(ws).result(False), peek(literal(closer))))
            for closer in _CLOSERS.values()
        }
        self.closed = {
            closer: literal(closer).then(Synthesised(closer)) for closer in _CLOSERS.values()
        }
        self.own: Bound = (MAX_DEPTH, (f"a value nested at most {MAX_DEPTH} deep",))

    def step(self, inp: Input, pos: int) -> Step[dict[str, Any]]:
        open_: list[tuple[str, Any, str | None]] = []  # (closer, container, pending key)
        value: Any
        deepest, too_deep = nesting_bound(inp, self.own)
        value, pos = yield from self.top.step(inp, pos)
        while True:
            if type(value) is _Opens:
                if len(open_) == deepest:
                    raise Backtrack(pos, too_deep)
                closer = _CLOSERS[value.opener]
                (*_, empty), pos = yield from self.opened[value.opener].step(inp, pos)
                open_.append((closer, {} if closer == "}" else [], None))
                if empty is None:
                    pos = yield from self._item(inp, pos, open_, first=True)
                    value, pos = yield from self.scalar.step(inp, pos)
                    continue
                value = open_[-1][1]
                _, pos = yield from self.closed[closer].step(inp, pos)
                open_.pop()
            while open_:  # `value` is complete: it goes into the innermost container
                closer, container, key = open_[-1]
                if key is None:
                    container.append(value)
                elif key in container:
                    raise Backtrack(pos, (f"a key other than {json.dumps(key)} (repeated key)",))
                else:
                    container[key] = value
                (_, done), pos = yield from self.more[closer].step(inp, pos)
                if not done:
                    pos = yield from self._item(inp, pos, open_, first=False)
                    break
                _, pos = yield from self.closed[closer].step(inp, pos)
                value = container
                open_.pop()
            else:
                return value, pos
            value, pos = yield from self.scalar.step(inp, pos)

    def _item(
        self, inp: Input, pos: int, open_: list[tuple[str, Any, str | None]], first: bool
    ) -> Generator[int, None, int]:
        """Start an item of the innermost container at `pos`: `, ` echoed unless it is the
        first, and in an object the member's key, echoed and kept as the pending key."""
        if not first:
            inp.out.append(Text(", ", pos))
        closer, container, _ = open_[-1]
        if closer != "}":
            return pos
        key, pos = yield from self.key.step(inp, pos)
        inp.out.append(Text(f"{encode_basestring(key)}: ", pos))
        open_[-1] = (closer, container, key)
        return pos


class _Opens(NamedTuple):
    """What a `Nesting`'s scalar gives where a container opens (not a value)."""

    opener: str


_CLOSERS = {"{": "}", "[": "]"}
MAX_DEPTH = 128
"""How deep a `BareObject`'s objects and arrays nest at most (the JSON parser's bound)."""


def _committed(lead: str, parser: Parser[Any]) -> Parser[Any]:
    """`parser`, committed to once `lead` is seen."""
    return peek(literal(lead)).then(cut).then(parser)


@dataclass(frozen=True)
class NameAndArguments:
    """A call as a JSON object with the name first, `{"name": N, "arguments": {…}}`: the
    name under `name`, the arguments under any of `keys` (the first is written), or absent
    (`{}`). The value under `id`, where given, is the call id, written first (the id, or
    the call's position) and read first or, in an array element, anywhere.

    With `within`, the name and the arguments stand in an object of their own under that
    key, after the id and the `constants` (members written with these values): OpenAI's
    shape, `NameAndArguments(id="id", within="function", constants=(("type",
    "function"),))` writes `{"id": ID, "type": "function", "function": {"name": N,
    "arguments": {…}}}`. Read in a JSON array (`element`), the members of either object
    come in any order and other members of the outer one are skipped; read as a template's
    `{call}` (`head`), they come in the order written, each constant optional, unless
    `anywhere`: then, as in an array, the name may follow the arguments (Inkling's template
    writes `{"args": {…}, "name": N}`), which are read whole and stream once it has come,
    and the template's text before `{call}` alone heads the call."""

    keys: tuple[str, ...] = ("arguments",)
    name: str = "name"
    id: str | None = None
    within: str | None = None
    constants: tuple[tuple[str, Any], ...] = ()
    anywhere: bool = False

    def head(self) -> Parser[str]:
        """`{"name": N` (after the id, the constants and `"within": {` where given): its
        value is the name."""
        parts: list[Parser[Any]] = [literal("{")]
        if self.id is not None:
            parts.append(optional(seq(self._key(self.id), ws, call_id(), ws, literal(","))))
        for key, constant in self.constants:
            written = literal(json.dumps(constant, ensure_ascii=False))
            parts.append(optional(seq(self._key(key), ws, written, ws, literal(","))))
        if self.within is not None:
            parts += [self._key(self.within), ws, literal("{")]
        parts += [self._key(self.name), ws, json_name()]
        return seq(*parts).map(lambda parts: parts[-1])

    def element(self) -> Parser[Any]:
        """The whole object, its members in any order (`blocks.json_calls.call_object`)."""
        return call_object(self.name, self.keys, self.id, self.within)

    def body(self) -> Parser[Any]:
        """The rest of the object after the name, through its `}` (and the outer one's)."""
        values = seq(literal(","), cut, self._key(*self.keys), ws, arguments(json_arguments()), ws)
        inner = seq(ws, optional(values), literal("}"))
        return inner if self.within is None else seq(inner, ws, literal("}"))

    def render(self, name: str, values: dict[str, Any], call_id: str = "") -> str:
        written: dict[str, Any] = {self.id: call_id} if self.id is not None else {}
        written |= dict(self.constants)
        call = {self.name: name, self.keys[0]: values}
        written |= call if self.within is None else {self.within: call}
        return json.dumps(written, ensure_ascii=False)

    @staticmethod
    def _key(*names: str) -> Parser[Any]:
        return seq(ws, markers(*(json.dumps(name) for name in names)), ws, literal(":"))

    markers: ClassVar[tuple[str, ...]] = ()  # the codec has no markers of its own

    @property
    def shown(self) -> str:
        call = '{"' + self.name + '", "' + self.keys[0] + '"}'
        return call if self.within is None else '{"' + self.within + '": ' + call + "}"


@dataclass(frozen=True)
class NameKey:
    """A call as a single-key JSON object, `{"NAME": {…}}`: the key is the name (final once
    its closing quote has arrived), the value the arguments, streamed as they arrive."""

    def element(self) -> Parser[Any]:
        colon = seq(ws, literal(":"), ws)
        return seq(literal("{"), ws, json_name(), colon, arguments(json_object()), ws, literal("}"))

    def render(self, name: str, values: dict[str, Any], call_id: str = "") -> str:
        return json.dumps({name: values}, ensure_ascii=False)

    markers: ClassVar[tuple[str, ...]] = ()  # the codec has no markers of its own
    shown = '{"NAME": {…}}'


Codec = (
    JsonObject
    | XmlArguments
    | XmlElements
    | PythonKeywords
    | BareObject
    | NameAndArguments
    | NameKey
)
