"""Hypothesis strategies: tool sets, argument values for a schema, prose, and valid turns of
a format rendered by the format's own `render` (the generator follows the definition instead
of duplicating it).

Generated text never contains a marker of `fmt.reserved` where the turn means prose or a
string value, not even formed across the junction of a prose piece and the markup next to it;
marker *fragments* (`<tool_ca`, `_call>`) are generated on purpose, to exercise hold-back.
Values are those the format can carry (see `carried`): a string that a union type would read
as another JSON type (`42`, `null`) is only generated for string-only parameters, and text
between two calls is never only whitespace (see `turns`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from ..blocks.turns import ToolUse, Turn
from ..formats import Format
from ..tools import Tool, Tools, normalize_tools
from .chunks import marker_cuts
from .draws import choose, integers
from .spellings import applying, respell, respellings

_ESCAPES = ('"', "\\", "\n", "\t", " ", "  ", "\r\n", "\\n", '\\"', "\\u00e9", "'", "`")
_UNICODE = ("東京", "🙂", "é")
_PUNCTUATION = ("{", "}", "[", "]", ":", ",", "<", ">", "</", "/>", "/", "|", "=")
_LITERALS = ("&", "&quot;", "&amp;", "0", "-1.5", "true", "null")
_TOKEN_PIECES = ("<|", "|>", "｜", "▁")
TRICKY_PIECES = (*_ESCAPES, *_UNICODE, *_PUNCTUATION, *_LITERALS, *_TOKEN_PIECES)
"""Pieces prose and strings are assembled from, besides random text and marker fragments."""

NUMERIC_LOOKING = ("42", "-7", "3.5", "1e3", "0", "true", "false", "null", "[]", "{}", '"x"')
"""Whole string values that look like another JSON type (for string-only parameters)."""

PARAMETER_SCHEMAS: tuple[Mapping[str, Any], ...] = (
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "string", "enum": ["celsius", "fahrenheit"]},
    {"type": "array", "items": {"type": "string"}},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "object"},
    {"type": "object", "properties": {"unit": {"type": "string"}, "n": {"type": "integer"}}},
    {"type": ["string", "null"]},
    {"type": ["integer", "null"]},
)
"""The parameter schemas `tool_sets` draws from (JSON schema, as tools declare them)."""


def fragments(markers: Sequence[str]) -> list[str]:
    """Every non-empty proper prefix and suffix of every marker."""
    pieces = {m[:k] for m in markers for k in range(1, len(m))}
    pieces |= {m[k:] for m in markers for k in range(1, len(m))}
    return sorted(pieces)


# Strategies are immutable values and costly to build: each distinct one is built once.
_cached = lru_cache(maxsize=1024)


def contains_any(text: str, markers: Sequence[str]) -> bool:
    return any(marker in text for marker in markers)


@_cached
def _pieces(reserved: tuple[str, ...]) -> st.SearchStrategy[str]:
    choices = [st.text(max_size=5), st.sampled_from(TRICKY_PIECES)]
    if reserved:
        choices.append(st.sampled_from(fragments(reserved)))
    return st.one_of(*choices)


def prose(reserved: Sequence[str] = (), max_pieces: int = 6) -> st.SearchStrategy[str]:
    """Text made of random characters, tricky pieces (quotes, backslashes, newlines, CJK,
    emoji) and fragments of `reserved` markers, never containing a whole one."""
    return _prose(tuple(reserved), max_pieces)


@_cached
def _prose(reserved: tuple[str, ...], max_pieces: int) -> st.SearchStrategy[str]:
    return (
        st.lists(_pieces(reserved), max_size=max_pieces)
        .map("".join)
        .filter(lambda text: not contains_any(text, reserved))
    )


_AMBIGUOUS = re.compile(r"\s*(?:[-+]?[\d.]|[\[{\"']|(?i:null|true|false|none|nan|-?inf))")


def reads_as_other_type(text: str) -> bool:
    """True when a union type (`["string", "null"]`, …) might read `text` as a non-string."""
    return _AMBIGUOUS.match(text) is not None


def strings(
    reserved: Sequence[str] = (), *, numeric_looking: bool = True
) -> st.SearchStrategy[str]:
    """String values: prose-like text (see `prose`), and with `numeric_looking` whole values
    such as `42` or `null` that only the schema keeps a string."""
    return _strings(tuple(reserved), numeric_looking)


@_cached
def _strings(reserved: tuple[str, ...], numeric_looking: bool) -> st.SearchStrategy[str]:
    text = prose(reserved, max_pieces=5)
    if numeric_looking:
        return st.one_of(text, st.sampled_from(NUMERIC_LOOKING))
    return text.filter(lambda value: not reads_as_other_type(value))


INTEGERS = st.integers(-(2**53), 2**53)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)


def json_values(reserved: Sequence[str] = ()) -> st.SearchStrategy[Any]:
    """Any JSON value (bounded size), strings as in `strings`."""
    return _json_values(tuple(reserved))


@_cached
def _json_values(reserved: tuple[str, ...]) -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), INTEGERS, FLOATS, strings(reserved))
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(strings(reserved, numeric_looking=False), inner, max_size=3),
        ),
        max_leaves=6,
    )


def values(
    schema: Mapping[str, Any] | None, reserved: Sequence[str] = ()
) -> st.SearchStrategy[Any]:
    """Values valid for a JSON schema (`type`, unions, `nullable`, `enum`, `const`,
    `anyOf`/`oneOf`, `items`, `properties`/`required`). Inside a union a string never reads
    as another JSON type (see `reads_as_other_type`), and an untyped schema gets such strings
    only: the values a raw-text format can carry."""
    return _values(json.dumps(schema or {}, sort_keys=True), tuple(reserved), False)


@_cached
def _values(key: str, reserved: tuple[str, ...], in_union: bool) -> st.SearchStrategy[Any]:
    schema = json.loads(key)

    def member(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        return _values(json.dumps(schema, sort_keys=True), reserved, True)

    if "const" in schema:
        return st.just(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), list) and schema[union]:
            return st.one_of(*map(member, schema[union]))
    declared = schema.get("type")
    if schema.get("nullable") is True:
        return st.none() | member({k: v for k, v in schema.items() if k != "nullable"})
    if isinstance(declared, list):
        return st.one_of(*(member({**schema, "type": kind}) for kind in declared))
    if declared == "string":
        return strings(reserved, numeric_looking=not in_union)
    if declared == "integer":
        return INTEGERS
    if declared == "number":
        return st.one_of(FLOATS, INTEGERS)
    if declared == "boolean":
        return st.booleans()
    if declared == "null":
        return st.none()
    if declared == "array":
        items = (
            values(schema.get("items"), reserved) if "items" in schema else json_values(reserved)
        )
        return st.lists(items, max_size=3)
    if declared == "object":
        if isinstance(schema.get("properties"), Mapping):
            return arguments(schema, reserved)
        return st.dictionaries(
            strings(reserved, numeric_looking=False), json_values(reserved), max_size=3
        )
    return strings(reserved, numeric_looking=False)


def arguments(
    parameters: Mapping[str, Any], reserved: Sequence[str] = ()
) -> st.SearchStrategy[dict[str, Any]]:
    """An arguments object for a tool's `parameters` schema: every required property and
    any subset of the others."""
    return _arguments(json.dumps(parameters, sort_keys=True), tuple(reserved))


@_cached
def _arguments(key: str, reserved: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    parameters = json.loads(key)
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())
    return st.fixed_dictionaries(
        {k: values(s, reserved) for k, s in properties.items() if k in required},
        optional={k: values(s, reserved) for k, s in properties.items() if k not in required},
    )


NAME_PIECES = ("a", "b", "f", "get", "weather", "x1", "run_it", "search", "v2", "Tool")
SIMPLE_NAMES = st.sampled_from(NAME_PIECES)
"""Identifier-like names (`a`, `get`, `x1`): tool names are built from them."""

SEPARATORS = ("_", ".", "-", "")
"""What joins a name to the name it extends (`get_x`, `get.x`, `get-x`, `getx`)."""

PARAMETER_NAMES = ("a", "b", "location", "days", "unit", "query", "path", "n", "x_1", "options")


@st.composite
def tool_names(draw: st.DrawFn, min_size: int = 1, max_size: int = 4) -> list[str]:
    """Distinct tool names, often confusable: a name extended by another (`get` and
    `get_weather`, `a.b`, `a-b`, `ab`) so that a shorter one is a prefix of a longer one."""
    names = [draw(SIMPLE_NAMES)]
    count = draw(integers(min_size, max_size))
    for _ in range(4 * count):
        if len(names) >= count:
            break
        name = draw(SIMPLE_NAMES)
        if draw(st.booleans()):
            name = choose(draw, names) + choose(draw, SEPARATORS) + name
        if name not in names:
            names.append(name)
    return names


@st.composite
def tool_sets(
    draw: st.DrawFn, min_size: int = 1, max_size: int = 3, max_parameters: int = 3
) -> list[dict[str, Any]]:
    """Tools in OpenAI format named by `tool_names`, with the first few `PARAMETER_NAMES`
    as parameters, each typed by a schema drawn from `PARAMETER_SCHEMAS` and required or
    not."""
    tools = []
    for name in draw(tool_names(min_size, max_size)):
        keys = PARAMETER_NAMES[: draw(integers(0, max_parameters))]
        properties = {key: choose(draw, PARAMETER_SCHEMAS) for key in keys}
        required = [key for key in keys if draw(st.booleans())]
        parameters = {"type": "object", "properties": properties, "required": required}
        tools.append({"type": "function", "function": {"name": name, "parameters": parameters}})
    return tools


def start_states(fmt: Format) -> list[str | None]:
    """The channels a turn of `fmt` may start in: the keys of `fmt.prompts`, or the
    template default when the format lists no prompts."""
    return list(fmt.prompts) or [fmt.default_start]


def may_reason(fmt: Format, start: str | None) -> bool:
    """A turn has reasoning only if the format has a reasoning channel and the turn starts
    in it or in no channel (then the model opens it itself)."""
    return "reasoning" in fmt.channels and start in (None, "reasoning")


@st.composite
def turns(
    draw: st.DrawFn,
    fmt: Format,
    tools: Tools,
    start: str | None = None,
    max_calls: int = 3,
) -> Turn:
    """A valid turn: reasoning (when `may_reason`), then content and up to `max_calls`
    calls to `tools` with arguments valid for their schemas, content never adjacent to
    content. Prose and strings avoid `fmt.reserved` (see `prose`). Calls often follow each
    other directly (one run, one tool section); text between two calls is never only
    whitespace, which formats may read as the separator of a run of calls."""
    reasoning = draw(_reasoning(fmt.reserved)) if may_reason(fmt, start) else None
    parts: list[str | ToolUse] = []
    declared = list(tools.values())
    for number in range(draw(integers(0, max_calls if tools else 0))):
        text = draw(prose(fmt.reserved) if number == 0 else _between_calls(fmt.reserved))
        if text:
            parts.append(text)
        tool = choose(draw, declared)
        values = draw(arguments(tool.parameters, fmt.reserved))
        assume(carried(fmt, values, tool.parameters))
        parts.append(ToolUse(tool.name, values))
    text = draw(prose(fmt.reserved))
    if text:
        parts.append(text)
    content = "".join(part for part in parts if isinstance(part, str))
    assume(not contains_any(content, fmt.reserved))  # content pieces joined form no marker
    return Turn(reasoning, tuple(parts))


def carried(fmt: Format, values: dict[str, Any], parameters: Mapping[str, Any]) -> bool:
    """Whether `fmt`'s arguments codec writes `values` in a form that reads back as them:
    every codec does but one whose written form loses some (MiniMax-M3's elements cannot
    write a null, nor type a value its schema leaves untyped: `XmlElements.carries`)."""
    carries = getattr(fmt.spec.call.arguments, "carries", None) if fmt.spec else None
    return carries is None or bool(carries(values, parameters))


@_cached
def _reasoning(reserved: tuple[str, ...]) -> st.SearchStrategy[str | None]:
    return st.none() | prose(reserved)


@_cached
def _between_calls(reserved: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.just("") | prose(reserved).filter(lambda text: not text or not text.isspace())


@dataclass(frozen=True)
class Case:
    """An input for a format and what is known of its meaning.

    `text` is what the model wrote after `generation_prompt` (`data`, when set, is the byte
    stream actually fed, and `text` its decoding). `expected` is the normalised message it
    must parse to, when known; `truncates` the valid case this one is a proper prefix of;
    `undeclared` the name of a call to a tool that is not declared. `label` says how the
    case was made.
    """

    text: str
    tools: Tools | None
    generation_prompt: str | None
    start: str | None
    turn: Turn | None = None
    expected: dict[str, Any] | None = None
    label: str = "valid turn"
    data: bytes | None = None
    truncates: Case | None = None
    undeclared: str | None = None

    def derive(self, **changes: Any) -> Case:
        return replace(self, **changes)


def neutral(turn: Turn) -> Turn:
    """`turn` with every non-empty prose piece and string value replaced by `x`: its
    rendering has exactly the markers the format's markup puts there."""
    parts = tuple(
        ToolUse(p.name, _neutral_value(p.arguments), p.id)
        if isinstance(p, ToolUse)
        else _neutral_value(p)
        for p in turn.parts
    )
    return Turn(_neutral_value(turn.reasoning), parts)


def _neutral_value(value: Any) -> Any:
    if isinstance(value, str):
        return "x" if value else value
    if isinstance(value, list):
        return [_neutral_value(item) for item in value]
    if isinstance(value, dict):
        return {f"k{i}": _neutral_value(item) for i, item in enumerate(value.values())}
    return value


class RenderError(Exception):
    """The format's `render` raised for a turn (the turn is in `args[0]`)."""


def render(fmt: Format, turn: Turn, start: str | None) -> str:
    """`fmt.render(turn, start)`; an exception it raises becomes a `RenderError`."""
    try:
        return fmt.render(turn, start)
    except Exception as error:
        raise RenderError(turn, start, f"{type(error).__name__}: {error}") from error


def markers_only_from_markup(fmt: Format, text: str, neutral_text: str) -> bool:
    """True when `text` has as many marker occurrences as the same rendering with neutral
    prose: no marker was formed by prose next to markup (`</thi` + `nk>`)."""
    return len(marker_cuts(text, fmt.reserved)) == len(marker_cuts(neutral_text, fmt.reserved))


@st.composite
def cases(
    draw: st.DrawFn,
    fmt: Format,
    tools: Sequence[Mapping[str, Any] | Tool] | Tools | None = None,
    max_calls: int = 3,
    spellings: bool = False,
) -> Case:
    """A valid turn of `fmt` rendered by `fmt.render` after the generation prompt of a start
    state drawn from `start_states`, with the message it must parse to (`turn.expected()`).
    Tools are drawn with `tool_sets` unless given. With `spellings` (as `check_format`
    draws them) its markers may be, drawn, in another spelling the format reads than the
    first, which the renderer writes (`spellings.respellings`)."""
    declared = normalize_tools(tools if tools is not None else draw(tool_sets()))
    assert declared is not None
    start = choose(draw, start_states(fmt))
    turn = draw(turns(fmt, declared, start, max_calls))
    text = render(fmt, turn, start)
    assume(markers_only_from_markup(fmt, text, render(fmt, neutral(turn), start)))
    label = "valid turn"
    others = applying(text, respellings(fmt)) if spellings else []
    if others:  # the renderer writes each marker's first spelling: the others too
        respelling = choose(draw, [(), *others])
        text = respell(text, respelling)
        label += "".join(f", {other!r} for {written!r}" for written, other in respelling)
    expected = turn.expected()
    return Case(text, declared, fmt.prompt_for(start), start, turn, expected, label)


__all__ = [
    "NAME_PIECES",
    "NUMERIC_LOOKING",
    "PARAMETER_NAMES",
    "PARAMETER_SCHEMAS",
    "SEPARATORS",
    "SIMPLE_NAMES",
    "TRICKY_PIECES",
    "Case",
    "RenderError",
    "arguments",
    "cases",
    "contains_any",
    "fragments",
    "json_values",
    "markers_only_from_markup",
    "may_reason",
    "neutral",
    "prose",
    "reads_as_other_type",
    "render",
    "start_states",
    "strings",
    "tool_names",
    "tool_sets",
    "turns",
    "values",
]
