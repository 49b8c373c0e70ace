"""Renderers: a turn written as a model writes it, and the argument values as argument
layouts write them."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from typing import Any

from .. import ast
from ..values.xmlargs import Layout
from .channels import Channel, under_header
from .prose import (
    Reasoning,
)
from .turns import ToolUse, Turn


def render_turn(
    turn: Turn,
    start: str | None,
    *,
    reasoning: Reasoning | None,
    call: Callable[[ToolUse], str],
    between_calls: str = "",
    section: tuple[str, str] | None = None,
    stop: str = "",
) -> str:
    """Write `turn` as a model would after a generation prompt that left `start` open:
    the reasoning block (its opener omitted when pre-opened), then content and calls —
    consecutive calls joined by `between_calls`, wrapped in `section` when the format has
    one — then the `stop` token."""
    out = []
    if reasoning is not None and (turn.reasoning is not None or start == "reasoning"):
        if start != "reasoning":
            out.append(reasoning.open)
        out += [turn.reasoning or "", reasoning.close]
    for group in turn.groups():
        if isinstance(group, str):
            out.append(group)
            continue
        body = between_calls.join(map(call, group))
        out.append(f"{section[0]}{body}{section[1]}" if section else body)
    out.append(stop)
    return "".join(out)


def render_channels(
    turn: Turn,
    start: str | None,
    *,
    channels: Mapping[str, Channel],
    call: Callable[[ToolUse, int], str],
    section: tuple[str, str],
    stop: str,
    header: str = "",
    label: str = "{name}",
) -> str:
    """Write `turn` as channels after a generation prompt that left channel `start` open:
    that channel first (its opener omitted), then the others in order — a reasoning channel
    only when the turn has reasoning or it is pre-opened, a content channel always, holding
    all the turn's content text in order — then every call, `call(use, position)` with
    1-based positions, in one `section`, then `stop`; `header` before every channel
    opener (that does not begin with it) and call, a call's with its `label` after it."""
    content = "".join(part for part in turn.parts if isinstance(part, str))
    out = []
    for name in sorted(channels, key=lambda name: name != start):
        channel = channels[name]
        reasoning = channel.node == ast.REASONING
        if reasoning and turn.reasoning is None and name != start:
            continue
        opener = "" if name == start else under_header(header, channel.open)
        out += [opener, (turn.reasoning or "") if reasoning else content, channel.close]
    if turn.calls:
        numbered = zip(turn.calls, itertools.count(1))
        calls = (call_header(header, use, label) + call(use, at) for use, at in numbered)
        out += [section[0], *calls, section[1]]
    out.append(stop)
    return "".join(out)


def call_header(header: str, use: ToolUse, label: str = "{name}") -> str:
    """What a channel turn's `header` writes before a call: the header and its `label`,
    `{name}` there the call's name (nothing where the turn has no header)."""
    return header + label.replace("{name}", use.name) if header else ""


def escape_attribute(value: str) -> str:
    """An attribute value as XML-style formats write it: `&` as `&amp;`, then `"` as `&quot;`."""
    return value.replace("&", "&amp;").replace('"', "&quot;")


def unescape_attribute(value: str) -> str:
    """The inverse of `escape_attribute`: `&quot;` is decoded before `&amp;`."""
    return value.replace("&quot;", '"').replace("&amp;", "&")


def raw_text(value: Any) -> str:
    """A value as raw-text argument formats write it: a string verbatim, anything else as
    JSON (non-ASCII kept)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def layout_text(layout: Layout, value: Any) -> str:
    """A value's raw text as `layout` writes it: in the layout's quote where it has one and
    the value is a string holding one of its `quote_when` characters or beginning with
    the quote's open."""
    text = raw_text(value)
    if layout.quote is None or not isinstance(value, str):
        return text
    opener, close = layout.quote
    if text.startswith(opener) or any(char in text for char in layout.quote_when):
        return f"{opener}{text}{close}"
    return text


def json_type(value: Any) -> str:
    """The JSON type name of a value (string, number, boolean, null, object, array), as a
    type attribute writes it."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else "boolean"
    kinds = {str: "string", int: "number", float: "number", dict: "object", list: "array"}
    return kinds[type(value)]


def render_argument(layout: Layout, key: str, value: Any) -> str:
    """One argument of a layout whose key is an attribute, the way `xml_arguments` reads it back:
    the opener with the key attribute and, where the layout has one, the type attribute (the
    value's JSON type, or the `type_values` entry for `string` or `json`), then `key_close`,
    the raw text (a string verbatim, other values as JSON; quoted where `layout_text` quotes
    it) between its `framing` newlines, and `value_close`. Attribute values are
    entity-escaped where the layout decodes entities."""
    escape = escape_attribute if layout.decode_entities else str
    attributes = f' {layout.key_attribute}="{escape(key)}"'
    if layout.type_attribute is not None:
        kind = json_type(value)
        if layout.type_values:
            spelled = {name: attribute for attribute, name in layout.type_values.items()}
            kind = spelled.get(kind) or spelled["json"]
        attributes += f' {layout.type_attribute}="{kind}"'
    text = layout_text(layout, value)
    before, after = framing(layout, text)
    return f"{layout.opener}{attributes}{layout.key_close}{before}{text}{after}{layout.value_close}"


def framing(layout: Layout, text: str) -> tuple[str, str]:
    """The framing newlines written before and after a value's raw `text`: both where the
    layout has them and writes them, else each only where `text` needs it to read back
    (where it begins, or ends, with a newline that would be read as framing)."""
    if not layout.framing_newlines:
        return "", ""
    if layout.framing_written:
        return "\n", "\n"
    return "\n" * text.startswith("\n"), "\n" * text.endswith("\n")
