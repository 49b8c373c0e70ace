"""How a call's name and arguments are written: codecs that both parse and render.

A `Spec`'s call template (see `spec`) names its parts with placeholders; each part is one
of these frozen dataclasses, plain data that `spec.to_data` prints and `spec.from_data`
reads back:

- name encodings, the `{name}` or `{id}` of a template: `Plain` (a run of name
  characters), `Attribute` (an entity-escaped attribute value, the rest of the tag free),
  `IdName` (an id that carries the name, `functions.NAME:IDX`);
- argument codecs, the `{arguments}` of a template: `JsonObject`, `XmlArguments` (one
  tag layout, typed by the tool's schema), `PythonKeywords` (`k=v, …` inside a pseudo
  function call);
- call codecs, the `{call}` of a template, which carry the name too: `NameAndArguments`
  (`{"name": N, "arguments": {…}}`), `NameKey` (`{"NAME": {…}}`, in a JSON array only).

Each parses (`parser`, `head`/`body`) with the building blocks of `blocks` and writes
(`render`) what it parses back, and shows itself in a marker summary (`shown`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import ast
from ..combinators import (
    Parser,
    UsageError,
    alt,
    cut,
    emit,
    fail,
    json_object,
    literal,
    optional,
    regex,
    seq,
    tag,
)
from ..combinators import whitespace as ws
from ..combinators.xmlargs import Layout, xml_arguments
from ..tools import Tools
from .blocks import (
    NAME_CHARS,
    arguments,
    call_object,
    escape_attribute,
    json_name,
    markers,
    raw_text,
    render_argument,
    tool_name,
    unescape_attribute,
)

# -- name encodings ------------------------------------------------------------------------


@dataclass(frozen=True)
class Plain:
    """The name as a run of `pattern` characters, final once its terminator has arrived."""

    pattern: str = NAME_CHARS

    def parser(self) -> Parser[str]:
        return tool_name(regex(self.pattern).desc("a tool name"))

    def render(self, name: str) -> str:
        return name

    shown = "NAME"


@dataclass(frozen=True)
class Attribute:
    """The name as an attribute value (the template has `attr="{name}"`): entity-escaped
    (`&quot;`, `&amp;`), and after its closing quote the rest of the opening tag holds any
    other attributes (read as free text up to the tag's end, written as the template says)."""

    pattern: str = r'[^"<]+'

    def parser(self) -> Parser[str]:
        return tool_name(regex(self.pattern).desc("a tool name").map(unescape_attribute))

    def render(self, name: str) -> str:
        return escape_attribute(name)

    shown = "NAME"


@dataclass(frozen=True)
class IdName:
    """An id that carries the name, `{prefix}NAME:IDX` (`functions.get_weather:0`): the id
    (a token of `pattern`) is kept as the call id; the name is the id without a leading
    `prefix` and a trailing `:IDX` (1-20 digits), final once the whole id has arrived. An id
    without `:IDX` names a tool only when it is `{prefix}NAME` with NAME declared; any
    other makes the call malformed (an error, never a call named after a guess)."""

    prefix: str = "functions."
    pattern: str = r"[^\s<]+"

    def parser(self) -> Parser[str]:
        return tag(ast.TOOL_ID, regex(self.pattern).desc("a call id"))

    def name(self, call_id: str) -> str:
        """The name that `call_id` carries (whether it is one or not)."""
        indexed = self._indexed(call_id)
        return indexed[1] if indexed else call_id.removeprefix(self.prefix)

    def name_of(self, tools: Tools | None, call_id: str) -> Parser[str]:
        """The `tool_name` node the id names, or a failure."""
        name = self.name(call_id)
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
        tagged = xml_arguments(self.layout, schema)
        return tagged if self.block is None else alt(self.block.parser(), tagged)

    def render(self, values: dict[str, Any]) -> str:
        end = "\n" if self.newline else ""
        return self.separator.join(self._pair(k, v) + end for k, v in values.items())

    def _pair(self, key: str, value: Any) -> str:
        layout = self.layout
        if layout.key_attribute:
            return render_argument(layout, key, value)
        gap = "\n" if self.newline and layout.value_open else ""
        framing = "\n" if layout.framing_newlines else ""
        value_text = f"{layout.value_open}{framing}{raw_text(value)}{framing}"
        return f"{layout.opener}{key}{layout.key_close}{gap}{value_text}{layout.value_close}"

    @property
    def markers(self) -> tuple[str, ...]:
        block = () if self.block is None else (self.block.open, self.block.close)
        return (*block, self.layout.opener, self.layout.value_close)

    @property
    def shown(self) -> str:
        """One argument `K` of value `V`, on one line."""
        layout = self.layout
        if layout.key_attribute:
            return render_argument(layout, "K", "V")
        return f"{layout.opener}K{layout.key_close}{layout.value_open}V{layout.value_close}"


@dataclass(frozen=True)
class PythonKeywords:
    """Keyword arguments of a pseudo-function call, `k=v, …` with Python or JSON literal
    values (read by `blocks.python_call_lines` and `python_call_list`), written `k=JSON`
    or, with `literals="python"`, `k=repr(v)` (`'x'`, `True`, `None`)."""

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
class NameAndArguments:
    """A call as a JSON object with the name first, `{"name": N, "arguments": {…}}`: the
    name under `name`, the arguments under any of `keys` (the first is written), or absent
    (`{}`). As an element of a JSON array (`element`) its members come in any order and
    the value under `id`, where given, is the call id (written first: the id, or the call's
    position)."""

    keys: tuple[str, ...] = ("arguments",)
    name: str = "name"
    id: str | None = None

    def head(self) -> Parser[str]:
        """`{"name": N`: its value is the name."""
        name = seq(literal("{"), self._key(self.name), ws, json_name())
        return name.map(lambda parts: parts[-1])

    def element(self) -> Parser[Any]:
        """The whole object, its members in any order (`blocks.call_object`)."""
        return call_object(self.name, self.keys, self.id)

    def body(self) -> Parser[Any]:
        """The rest of the object after the name, through its `}`."""
        values = seq(literal(","), cut, self._key(*self.keys), ws, arguments(json_object()), ws)
        return seq(ws, optional(values), literal("}"))

    def render(self, name: str, values: dict[str, Any], call_id: str = "") -> str:
        written: dict[str, Any] = {self.id: call_id} if self.id is not None else {}
        written |= {self.name: name, self.keys[0]: values}
        return json.dumps(written, ensure_ascii=False)

    @staticmethod
    def _key(*names: str) -> Parser[Any]:
        return seq(ws, markers(*(f'"{name}"' for name in names)), ws, literal(":"))

    markers: ClassVar[tuple[str, ...]] = ()  # the codec has no markers of its own

    @property
    def shown(self) -> str:
        return '{"' + self.name + '", "' + self.keys[0] + '"}'


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


Codec = JsonObject | XmlArguments | PythonKeywords | NameAndArguments | NameKey
