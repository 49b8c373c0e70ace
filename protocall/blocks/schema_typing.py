"""`schema_typing`: the raw values of tag-delimited arguments (`values.xmlargs`) typed by the
tool's JSON schema. The layouts themselves are the families' (each in its family file)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..schema import Coerced, always_string, coerce_typed, coercer, parameter_schema


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
