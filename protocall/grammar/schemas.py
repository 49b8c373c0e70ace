"""JSON schemas as the grammar writers read them: `$ref` resolved within the tool's schema,
`allOf` merged, and the report of the keywords a dialect cannot express.

A keyword a dialect cannot express is dropped, never refused: the grammar is looser there
(the parser's validation still reports a violation) and the export lists what it dropped
(`dropped`, `Export.dropped`). Annotations (`description`, `title`, `default`, `examples`,
…) constrain nothing and are never reported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "$schema",
        "$id",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$defs",
        "definitions",
    }
)
"""Keywords that constrain no value (`$defs` only holds what `$ref` names)."""

STRUCTURE = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "properties",
        "required",
        "additionalProperties",
        "items",
    }
)
"""The keywords every dialect expresses (literal syntaxes and raw text included)."""

LARK_FORMATS = frozenset(
    {"date", "time", "date-time", "duration", "email", "hostname", "ipv4", "ipv6", "uri", "uuid"}
)
"""The string formats llguidance's `%json` knows (another is a compile error there)."""

_SUBSCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


def resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """`schema` with its `$ref` (a JSON pointer into `root`, as `Tools` checked) replaced by
    the schema it names, its other keywords kept, and `allOf` merged into it (see `merge`)."""
    seen: set[str] = set()
    while isinstance(schema.get("$ref"), str) and schema["$ref"] not in seen:
        seen.add(schema["$ref"])
        target = _pointer(root, schema["$ref"])
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    if isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for member in schema["allOf"]:
            if isinstance(member, Mapping):
                merged = merge(merged, resolve(member, root))
        schema = merged
    return schema


def merge(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """Two schemas a value must both satisfy, as one where they combine simply: properties
    joined (a property both declare keeps the first's schema), `required` joined, any
    other keyword the first's if both say it."""
    merged = {**second, **first}
    if "properties" in first or "properties" in second:
        merged["properties"] = {**second.get("properties", {}), **first.get("properties", {})}
    if "required" in first or "required" in second:
        required = [*first.get("required", ()), *second.get("required", ())]
        merged["required"] = list(dict.fromkeys(required))
    return merged


def _pointer(root: Mapping[str, Any], ref: str) -> Mapping[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#").split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    assert isinstance(node, Mapping)
    return node


BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
Written = tuple[frozenset[str], Callable[[Mapping[str, Any]], frozenset[str]]]
"""Keywords a writer decides schema by schema, and which of them it writes in a schema."""


def integer_bounds(schema: Mapping[str, Any]) -> tuple[int | None, int | None] | None:
    """The least and the most integer `schema` admits (None: unbounded) where its type
    admits integers and no other number (`integer`, perhaps with `null`) and its bounds
    are numbers that some integer satisfies; else None."""
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if "integer" not in kinds or not kinds <= {"integer", "null"}:
        return None
    least: int | None = None
    most: int | None = None
    for key in BOUNDS & set(schema):
        value = schema[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if value != value or abs(value) == float("inf"):
            return None
        if key == "minimum":
            bound = math.ceil(value)
        elif key == "exclusiveMinimum":
            bound = math.floor(value) + 1
        elif key == "maximum":
            bound = math.floor(value)
        else:
            bound = math.ceil(value) - 1
        if key.endswith("inimum"):
            least = bound if least is None else max(least, bound)
        else:
            most = bound if most is None else min(most, bound)
    if least is not None and most is not None and least > most:
        return None
    return least, most


def dropped(
    schema: Any,
    expressed: frozenset[str],
    where: str,
    formats: frozenset[str] = frozenset(),
    root: Mapping[str, Any] | None = None,
    *,
    written: Written | None = None,
) -> list[str]:
    """What a writer that expresses the keywords `expressed` (and the string `formats`)
    drops of `schema`, found where `where` says: one line per keyword and place, such as
    `parameter 'origin' of 'book': pattern '^[A-Z]{3}$'`. `$ref`s are followed once each.
    `written` (decided keywords, and which of them the writer writes in a given schema)
    decides those keywords schema by schema instead."""
    found: list[str] = []
    _dropped(schema, expressed, where, formats, root or schema, set(), found, written)
    return found


def _dropped(
    schema: Any,
    expressed: frozenset[str],
    where: str,
    formats: frozenset[str],
    root: Any,
    followed: set[str],
    found: list[str],
    written: Written | None,
) -> None:
    if not isinstance(schema, Mapping):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref in followed:
            return
        followed.add(ref)
    schema = resolve(schema, root)
    decided, writes = written or (frozenset(), lambda _: frozenset())
    kept = writes(schema) if decided & schema.keys() else frozenset()
    for key, value in schema.items():
        if key in ANNOTATIONS or key == "$ref" or key in kept:
            continue
        known = key != "format" or value in formats
        if key in decided or key not in expressed or not known:
            found.append(f"{where}: {key} {json.dumps(value, ensure_ascii=False)}")
    nested = [(f"{where}.{k}", v) for k, v in (schema.get("properties") or {}).items()]
    nested += [(f"{where}[]", schema.get(k)) for k in ("items", "additionalProperties")]
    for union in _SCHEMA_LISTS:
        items = schema.get(union) if isinstance(schema.get(union), list) else []
        nested += [(f"{where}[{n}]" if union == "prefixItems" else where, v)
                   for n, v in enumerate(items)]  # fmt: skip
    for place, value in nested:
        _dropped(value, expressed, place, formats, root, followed, found, written)


def known_formats(schema: Any, formats: frozenset[str], where: str, found: list[str]) -> Any:
    """`schema` without the string `format`s outside `formats` (each reported in `found`),
    for an engine that refuses a format it does not know (llguidance)."""
    if not isinstance(schema, Mapping):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "format" and isinstance(value, str) and value not in formats:
            found.append(f"{where}: format {json.dumps(value)}")
            continue
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            value = {k: known_formats(v, formats, f"{where}.{k}", found)
                     for k, v in value.items()}  # fmt: skip
        elif key in _SUBSCHEMAS:
            value = known_formats(value, formats, f"{where}[]", found)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            value = [known_formats(v, formats, where, found) for v in value]
        result[key] = value
    return result


def relocated(schema: Any, at: str) -> Any:
    """`schema` moved to the JSON pointer `at` of a larger schema: every local `$ref`
    (`#/…`) made to point under `at` (so `$defs` resolve where the schema now stands)."""
    if not isinstance(schema, Mapping):
        return schema
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and value.startswith("#"):
            value = at + value[1:]
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            value = {name: relocated(item, at) for name, item in value.items()}
        elif key in _SUBSCHEMAS:
            value = relocated(value, at)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            value = [relocated(item, at) for item in value]
        moved[key] = value
    return moved
