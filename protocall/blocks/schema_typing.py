"""`schema_typing`: the raw values of tag-delimited arguments (`values.xmlargs`) typed by the
tool's JSON schema. The layouts themselves are the families' (each in its family file)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..schema import (
    Coerced,
    always_string,
    coerce_json,
    coerce_typed,
    coercer,
    json_type,
    parameter_schema,
    resolve_ref,
)


@dataclass(frozen=True)
class SchemaTyping:
    """Values typed by a tool's `parameters` schema (None: not declared), or by the type a
    type attribute names where it names one (see `values.xmlargs.Typing`)."""

    parameters: Mapping[str, Any] | None
    declared: Mapping[str, Any] = field(init=False, compare=False)
    # What `__call__` gives per declared key: worked out once per tool set, as the tool's
    # argument parser is (a pure memo, shared by the sessions of the tool set; a key the
    # model invents is typed anew: the memo stays as small as the schema; a type
    # attribute is typed as `_by_attribute` keeps it).
    typed: dict[str, Typed] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        parameters = self.parameters
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        object.__setattr__(self, "declared", properties if isinstance(properties, Mapping) else {})
        object.__setattr__(self, "typed", {})

    def __call__(self, key: str, type_name: str | None) -> Typed:
        if type_name is not None:
            return _by_attribute(type_name)
        if key not in self.declared:
            return self._typing(key)
        typed = self.typed.get(key)
        if typed is None:
            typed = self.typed[key] = self._typing(key)
        return typed

    def _typing(self, key: str) -> Typed:
        schema = parameter_schema(self.parameters, key)
        root = self.parameters
        return always_string(schema, root=root), coercer(schema, root=root)


@functools.lru_cache(maxsize=64)
def _by_attribute(type_name: str) -> Typed:
    """How a value whose type attribute names `type_name` is typed, whatever the tool
    (kept for the last 64 type names met, not worked out again per value)."""
    return always_string({"type": type_name}), functools.partial(coerce_typed, type_name=type_name)


Typed = tuple[bool, Callable[[str], Coerced]]
"""Whether a value is kept as the raw text whatever it is, and the function typing it."""


def schema_typing(parameters: Mapping[str, Any] | None) -> SchemaTyping:
    """Values typed by the tool's `parameters` schema (see `SchemaTyping`)."""
    return SchemaTyping(parameters)


@dataclass(frozen=True)
class ElementSchema:
    """One level of element-tree values (`values.elements`) typed by its JSON `schema`
    (None: untyped, every value a string or what its elements make it), local `$ref`s
    resolved against `root` (the tool's `parameters`).

    The containers it allows are those its `type` names (or, untyped, its `items` for a
    list, its `properties` or `additionalProperties` for an object), through `$ref`,
    `anyOf`, `oneOf` and `allOf`; `container` is the one it allows where it allows one.
    An object's member is typed by its property, else by `additionalProperties` where
    that is a schema; a list's item by `items`. A `free` level is a member of an object
    that declares no properties, or an item of a list that does not type its items: its
    text is a JSON scalar where it is one (`2`, `true`), else a string (a key the schema
    does not declare, or a value with no schema at all, is a string, as `SchemaTyping`
    types it)."""

    schema: Mapping[str, Any] | None
    root: Mapping[str, Any] | None = None
    free: bool = False
    # The levels below the declared properties and the items, worked out once per tool set
    # (a key the model invents is typed anew, as `SchemaTyping` does).
    below: dict[str | None, ElementSchema] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    @functools.cached_property
    def containers(self) -> dict[str, Mapping[str, Any]]:
        """The container kinds the level allows, each with the schema that says so."""
        found: dict[str, Mapping[str, Any]] = {}
        _containers(self.schema, self.root, found, 0)
        return found

    @property
    def container(self) -> str | None:
        kinds = self.containers
        return next(iter(kinds)) if len(kinds) == 1 else None

    @functools.cached_property
    def scalar(self) -> Typed:
        if self.free:
            return False, _json_or_text
        schema, root = self.schema, self.root
        return always_string(schema, root=root), coercer(schema, root=root)

    def member(self, key: str) -> ElementSchema:
        known = self.below.get(key)
        if known is not None:
            return known
        schema = self.containers.get("object")
        properties = schema.get("properties") if schema is not None else None
        below = properties.get(key) if isinstance(properties, Mapping) else None
        declared = below is not None
        below = below if declared else (schema or {}).get("additionalProperties")
        free = schema is not None and properties is None and not isinstance(below, Mapping)
        free = free or (self.free and below is None)
        level = ElementSchema(below if isinstance(below, Mapping) else None, self.root, free)
        if declared:
            self.below[key] = level
        return level

    def item(self) -> ElementSchema:
        known = self.below.get(None)
        if known is None:
            schema = self.containers.get("array")
            items = schema.get("items") if schema is not None else None
            typed = isinstance(items, Mapping)
            free = not typed and (self.free or schema is not None)
            known = ElementSchema(items if typed else None, self.root, free)
            self.below[None] = known
        return known


def _json_or_text(raw: str) -> Coerced:
    """`raw` as a JSON scalar where it is one, else the string itself."""
    typed = coerce_json(raw)
    scalar = typed.problem is None and not isinstance(typed.value, (dict, list))
    return typed if scalar else Coerced(raw)


_UNIONS = ("anyOf", "oneOf", "allOf")
_KINDS = ("object", "array")


def _containers(
    schema: Any, root: Mapping[str, Any] | None, found: dict[str, Mapping[str, Any]], depth: int
) -> None:
    """Add to `found` the container kinds `schema` allows (the first schema saying each)."""
    if not isinstance(schema, Mapping) or depth > 16:
        return
    if "$ref" in schema:
        _containers(resolve_ref(schema["$ref"], root), root, found, depth + 1)
        return
    declared = schema.get("type")
    names = declared if isinstance(declared, list) else [declared]
    kinds = {json_type(name) for name in names}
    if declared is None:
        kinds = {"array"} if "items" in schema else set()
        if "properties" in schema or "additionalProperties" in schema:
            kinds.add("object")
    for kind in _KINDS:
        if kind in kinds:
            found.setdefault(kind, schema)
    for union in _UNIONS:
        members = schema.get(union)
        for member in members if isinstance(members, list) else ():
            _containers(member, root, found, depth + 1)


def element_typing(parameters: Mapping[str, Any] | None) -> ElementSchema:
    """Element-tree arguments typed by the tool's `parameters` schema (`ElementSchema`)."""
    return ElementSchema(parameters, parameters)
