"""A spec as JSON-ready data and back: every part a dict of its fields with its kind under
`"type"`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from ..blocks.channels import Channel
from ..combinators import (
    UsageError,
)
from ..values.elements import Elements
from ..values.xmlargs import Layout
from .codecs import (
    Attribute,
    BareObject,
    IdName,
    JsonBlock,
    JsonObject,
    NameAndArguments,
    NameKey,
    Plain,
    PythonKeywords,
    XmlArguments,
    XmlElements,
)
from .parts import (
    Call,
    Channels,
    JsonTurn,
    Messages,
    Section,
    Spec,
    Tags,
    Think,
)

_PARTS = (
    Think,
    Tags,
    Channel,
    Channels,
    Messages,
    JsonTurn,
    Call,
    Section,
    Plain,
    Attribute,
    IdName,
    JsonObject,
)


_CODECS = (
    JsonBlock,
    XmlArguments,
    XmlElements,
    PythonKeywords,
    BareObject,
    NameAndArguments,
    NameKey,
    Layout,
    Elements,
)


_KINDS: dict[str, type] = {kind.__name__: kind for kind in (Spec, *_PARTS, *_CODECS)}


def to_data(value: Any) -> Any:
    """`value` (a spec or any part of it) as JSON-ready data: each dataclass a dict of its
    fields with its kind under `"type"`, tuples as lists."""
    if is_dataclass(value) and not isinstance(value, type):
        data = {f.name: to_data(getattr(value, f.name)) for f in fields(value)}
        return {"type": type(value).__name__, **data}
    if isinstance(value, (tuple, list)):
        return [to_data(item) for item in value]
    if isinstance(value, Mapping):
        return {key: to_data(item) for key, item in value.items()}
    return value


def from_data(data: Any) -> Any:
    """The inverse of `to_data`: a dict with a `"type"` is that kind, lists are tuples. An
    unknown kind or field is a `UsageError` naming it."""
    if isinstance(data, list):
        return tuple(from_data(item) for item in data)
    if not isinstance(data, dict):
        return data
    values = {key: from_data(item) for key, item in data.items() if key != "type"}
    if "type" not in data:
        return values
    kind = _KINDS.get(data["type"])
    if kind is None:
        raise UsageError(f"a spec part of kind {', '.join(_KINDS)}, not {data['type']!r}")
    unknown = set(values) - {f.name for f in fields(kind)}
    if unknown:
        raise UsageError(f"{kind.__name__} has no field {', '.join(sorted(unknown))}")
    return kind(**values)


def to_json(spec: Spec) -> str:
    """`spec` as indented JSON (see `to_data`)."""
    return json.dumps(to_data(spec), indent=2, ensure_ascii=False)


def from_json(text: str) -> Spec:
    """The spec that `to_json` wrote."""
    spec = from_data(json.loads(text))
    if not isinstance(spec, Spec):
        raise UsageError(f"a JSON object of type Spec, not {type(spec).__name__}")
    return spec
