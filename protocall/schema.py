"""Typing raw argument text from a JSON schema or a type name.

Formats whose argument values are raw text (Qwen3-Coder, GLM/Ling, MiniMax, Seed-OSS) need the
tool's schema to give them JSON types; others carry a type attribute (Kimi K3 `type="number"`,
DeepSeek DSML `string="false"`). Typing never raises: text that does not convert stays the raw
string and the `Coerced` result says why.

Rules of `coerce`:
- No schema, an untyped schema (`{}`, an unresolvable `$ref`) or a string-only type: the raw
  text, unchanged (a numeric-looking value for a string parameter stays a string).
- integer: an integer literal (`42`, `-7`, `+3`, also `3.0` with a zero fraction) becomes an
  `int`; anything else (`3.5`, `1e3`, `2026-01-15`) does not convert.
- number: an integer literal becomes an `int`, any other decimal literal a finite `float`.
- boolean: `true` / `false`, case-insensitively (so Python's `True` / `False` too).
- null: `null`, case-insensitively, becomes `None` when the type allows null, or when it does
  not allow a string (an integer parameter given `null` is null; the schema check flags it).
  For a string-only parameter `null` is the string `"null"`. Python's `None` (as a model
  trained on Python reprs writes it) is null where a string is not allowed; where one is,
  it stays the text `None`.
- object / array: JSON (exact integers of any size; NaN, Infinity and out-of-range floats are
  rejected), then a Python literal (`{'a': True}`, as older templates rendered dicts) if that
  is plain JSON data, then JSON written escaped: the body of a JSON string (`[\\"a\\", 1]`,
  as GLM models write a list inside `<arg_value>`) or a whole JSON string (`"[\\"a\\"]"`)
  whose text is the JSON, then no conversion. The result must have the expected type.
- Unions (`type: [...]`, `anyOf`, `oneOf`, `enum` of mixed values, `nullable: true`) try their
  non-string types in order, then fall back to the raw string if a string is allowed.
Surrounding whitespace is ignored for non-string types and kept for strings. Type names are
JSON Schema's or the aliases of `TYPE_ALIASES` (`int`, `float`, `bool`, `dict`, `list`, …, as
the serving stacks accept them), case-insensitively; any other type name types nothing.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = [
    "JSON_TYPES",
    "TYPE_ALIASES",
    "Coerced",
    "always_string",
    "coerce",
    "coerce_json",
    "coerce_typed",
    "coercer",
    "json_type",
    "parameter_schema",
    "resolve_ref",
]


@dataclass(frozen=True)
class Coerced:
    """The typed value of a raw text; when `ok` is False the value is the raw text itself
    and `problem` says what was expected."""

    value: Any
    ok: bool = True
    problem: str | None = None


def parameter_schema(parameters: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    """The schema of property `name` in a tool's `parameters` object, or None if undeclared."""
    if not isinstance(parameters, Mapping):
        return None
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return None
    schema = properties.get(name)
    return schema if isinstance(schema, Mapping) else None


def coerce(
    raw: str, schema: Mapping[str, Any] | None, *, root: Mapping[str, Any] | None = None
) -> Coerced:
    """Type `raw` by `schema` (rules in the module docstring). Local `$ref`s (`#/...`) are
    resolved against `root`, normally the tool's `parameters` object."""
    return _coerce(raw, _types(schema, root, 0))


def coercer(
    schema: Mapping[str, Any] | None, *, root: Mapping[str, Any] | None = None
) -> Callable[[str], Coerced]:
    """`coerce` by `schema`, the types it allows worked out once (for the values of one
    declared argument, typed call after call)."""
    types = _types(schema, root, 0)
    return lambda raw: _coerce(raw, types)


def coerce_typed(raw: str, type_name: str) -> Coerced:
    """Type `raw` by a type attribute (Kimi K3: string, number, boolean, null, object, array;
    `json` means any JSON value). `string` keeps the raw text verbatim; an unknown type name
    does too."""
    canonical = json_type(type_name)
    return _coerce(raw, [canonical] if canonical else [])


def coerce_json(raw: str) -> Coerced:
    """`raw` as any JSON value (DSML `string="false"`); failure keeps the raw text."""
    return _coerce(raw, [ANY])


def always_string(
    schema: Mapping[str, Any] | None, *, root: Mapping[str, Any] | None = None
) -> bool:
    """True when `coerce` keeps every raw text as it is under `schema` (so a streaming
    parser may emit the value as a string before it is complete)."""
    return _types(schema, root, 0) in ([], [STRING])


STRING, INTEGER, NUMBER, BOOLEAN, NULL, OBJECT, ARRAY, ANY = (
    "string",
    "integer",
    "number",
    "boolean",
    "null",
    "object",
    "array",
    "json",
)

JSON_TYPES = (STRING, INTEGER, NUMBER, BOOLEAN, NULL, OBJECT, ARRAY)
"""The type names of JSON Schema."""

_ALIAS_NAMES = {
    STRING: "str text enum",
    INTEGER: "int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 long short",
    NUMBER: "float float32 float64 double decimal num numeric",
    BOOLEAN: "bool",
    OBJECT: "dict map",
    ARRAY: "list tuple",
    NULL: "none",
    ANY: "json any",
}
TYPE_ALIASES: Mapping[str, str] = MappingProxyType(
    {alias: type_name for type_name, names in _ALIAS_NAMES.items() for alias in names.split()}
)
"""Type names seen in tool schemas and type attributes in the wild (Python's, C's, OpenAPI's
formats), and the JSON Schema type each stands for; `json` and `any` mean any JSON value."""
_MAX_REF_DEPTH = 16


def json_type(type_name: Any) -> str | None:
    """The JSON Schema type `type_name` stands for: a JSON Schema type itself or a key of
    `TYPE_ALIASES`, case-insensitively and ignoring surrounding spaces (`"Float "` is
    `number`); `"json"` for any value; None for anything else (`intger`, a non-string)."""
    if not isinstance(type_name, str):
        return None
    name = type_name.strip().lower()
    return name if name in JSON_TYPES else TYPE_ALIASES.get(name)


def _type_of(value: Any) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    if isinstance(value, str):
        return STRING
    return ARRAY if isinstance(value, list) else OBJECT


def _types(schema: Any, root: Mapping[str, Any] | None, depth: int) -> list[str]:
    """The canonical type names `schema` allows, in the order given (empty: untyped)."""
    if not isinstance(schema, Mapping) or depth > _MAX_REF_DEPTH:
        return []
    found: list[str] = []
    declared = schema.get("type")
    if declared is not None:
        names = declared if isinstance(declared, list) else [declared]
        found = [t for t in map(json_type, names) if t is not None]
    elif isinstance(schema.get("enum"), list):
        found = [_type_of(v) for v in schema["enum"]]
    elif "const" in schema:
        found = [_type_of(schema["const"])]
    elif "$ref" in schema:
        found = _types(resolve_ref(schema["$ref"], root), root, depth + 1)
    else:
        for union in ("anyOf", "oneOf", "allOf"):
            members = schema.get(union)
            if isinstance(members, list):
                for member in members:
                    found.extend(_types(member, root, depth + 1))
                    if union == "allOf" and found:
                        break
                break
    if schema.get("nullable") is True and found:
        found.append(NULL)
    return list(dict.fromkeys(found))


def resolve_ref(ref: Any, root: Mapping[str, Any] | None) -> Any:
    """A local JSON pointer (`#/$defs/Unit`) into `root`; None when it does not resolve."""
    if not isinstance(ref, str) or not ref.startswith("#") or root is None:
        return None
    node: Any = root
    for part in ref[1:].split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _coerce(raw: str, types: list[str]) -> Coerced:
    if not types or types == [STRING]:
        return Coerced(raw)
    text = raw.strip()
    string_allowed = STRING in types
    if (text.lower() == "null" and NULL in types) or (
        not string_allowed and (text.lower() == "null" or text == "None")
    ):
        return Coerced(None)
    for type_name in types:
        convert = _CONVERTERS.get(type_name)
        if convert is not None:
            converted = convert(text)
            if converted is not _NO:
                return Coerced(converted)
    if string_allowed:
        return Coerced(raw)
    expected = " or ".join("JSON" if t == ANY else t for t in types)
    return Coerced(raw, ok=False, problem=f"expected {expected}, got {_show(raw)}")


def _show(raw: str, width: int = 40) -> str:
    shown = json.dumps(raw[:width], ensure_ascii=False)
    return shown[:-1] + '…"' if len(raw) > width else shown


_NO: Any = object()
"""What a converter returns for text it does not convert (None is a value)."""

_INTEGER = re.compile(r"[+-]?\d+(?:\.0*)?", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _integer(text: str) -> Any:
    if _INTEGER.fullmatch(text) is None:
        return _NO
    try:
        return int(text.partition(".")[0])
    except ValueError:  # beyond the interpreter's integer-string digit limit
        return _NO


def _number(text: str) -> Any:
    if _DECIMAL.fullmatch(text) is None:
        return _NO
    if text.lstrip("+-").isdigit():
        return _integer(text)
    value = float(text)
    return value if math.isfinite(value) else _NO


def _boolean(text: str) -> Any:
    lowered = text.lower()
    return lowered == "true" if lowered in ("true", "false") else _NO


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


_STRICT = json.JSONDecoder(parse_float=_finite_float, parse_constant=_reject_constant)
"""What `json.loads` with these hooks builds anew on every call."""


def _json(text: str) -> Any:
    """Strict JSON, exact integers; `_NO` when invalid."""
    try:
        return _STRICT.decode(text)
    except (ValueError, RecursionError):
        return _NO


def _plain(value: Any) -> Any:
    """A Python literal as JSON data (tuples become lists); `_NO` if it is not JSON data."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _NO
    if isinstance(value, (list, tuple)):
        items = [_plain(item) for item in value]
        return _NO if any(item is _NO for item in items) else items
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            return _NO
        entries = {key: _plain(item) for key, item in value.items()}
        return _NO if any(item is _NO for item in entries.values()) else entries
    return _NO


def _literal(text: str) -> Any:
    try:
        with warnings.catch_warnings():  # `'\d'` in a repr is a SyntaxWarning, not our concern
            warnings.simplefilter("ignore")
            return _plain(ast.literal_eval(text))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NO


def _escaped(text: str) -> Any:
    """JSON written as a JSON string's body (`[\\"a\\"]`) or as a whole JSON string
    (`"[\\"a\\"]"`): the JSON its text spells; `_NO` otherwise."""
    inner = _json(text if text.startswith('"') else f'"{text}"')
    return _json(inner) if isinstance(inner, str) else _NO


def _structured(kind: type | None) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        for decode in (_json, _literal, _escaped):
            value = decode(text)
            if value is not _NO and (kind is None or isinstance(value, kind)):
                return value
        return _NO

    return convert


_CONVERTERS: dict[str, Callable[[str], Any]] = {
    INTEGER: _integer,
    NUMBER: _number,
    BOOLEAN: _boolean,
    OBJECT: _structured(dict),
    ARRAY: _structured(list),
    ANY: _structured(None),
}
