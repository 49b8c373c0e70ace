"""Declared tools: normalising OpenAI-style tool lists and validating complete arguments."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .combinators import UsageError


@dataclass(frozen=True)
class Tool:
    """A declared function: its name and the JSON schema of its `parameters` object."""

    name: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    def parameter(self, name: str) -> Mapping[str, Any] | None:
        """The schema of one parameter, or `None` when it is not declared."""
        properties = self.parameters.get("properties")
        if isinstance(properties, Mapping):
            schema = properties.get(name)
            if isinstance(schema, Mapping):
                return schema
        return None


class Tools(Mapping[str, Tool]):
    """Tools by name (lookup is one dict access, whatever their number)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._by_name = {tool.name: tool for tool in tools}

    def __getitem__(self, name: str) -> Tool:
        return self._by_name[name]

    def __iter__(self) -> Any:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"Tools({sorted(self._by_name)})"


def normalize_tools(tools: Iterable[Mapping[str, Any] | Tool] | Tools | None) -> Tools | None:
    """Accept OpenAI tool entries (`{"type": "function", "function": {...}}`), bare function
    dicts (`{"name", "parameters"}`) or `Tool`s; `None` stays `None` (no declared tools)."""
    if tools is None or isinstance(tools, Tools):
        return tools
    normalized = []
    for entry in tools:
        if isinstance(entry, Tool):
            normalized.append(entry)
            continue
        function = entry.get("function", entry) if isinstance(entry, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise UsageError(f"a tool needs a function name: {entry!r}")
        parameters = function.get("parameters") or {}
        if not isinstance(parameters, Mapping):
            raise UsageError(f"tool {function['name']!r}: parameters must be a JSON schema object")
        normalized.append(
            Tool(function["name"], parameters, str(function.get("description") or ""))
        )
    return Tools(normalized)


@functools.cache
def jsonschema_available() -> bool:
    """Whether the optional jsonschema package is installed (checked without importing it)."""
    from importlib.util import find_spec

    return find_spec("jsonschema") is not None


Validator = Callable[[Mapping[str, Any]], tuple[str, ...]]


def validator(tool: Tool) -> Validator:
    """A function giving the schema violations of complete arguments for `tool`, as
    readable messages (empty when valid). Build it once per tool and reuse it.

    Needs the optional `jsonschema` package (`pip install 'protocall[schema]'`); raises
    `UsageError` saying so when it is missing.
    """
    try:
        import jsonschema
    except ImportError:
        raise UsageError(
            "validating tool arguments needs the jsonschema package: "
            "pip install 'protocall[schema]' (or pass validate=False)"
        ) from None
    if not tool.parameters:
        return lambda arguments: ()
    checker = jsonschema.validators.validator_for(tool.parameters)(tool.parameters)

    def problems(arguments: Mapping[str, Any]) -> tuple[str, ...]:
        errors = sorted(checker.iter_errors(dict(arguments)), key=lambda e: list(e.path))
        return tuple(
            f"{'/'.join(map(str, e.absolute_path)) or '(arguments)'}: {e.message}" for e in errors
        )

    return problems
