"""Declared tools: normalising OpenAI-style tool lists, checking their schemas once, and
validating complete arguments.

Creating `Tools` checks every tool's `parameters` schema and compiles its validator, so a bad
schema is a `UsageError` when the parser is created (naming the tool and the schema path),
never an exception in the middle of a stream, and the stream only runs a compiled validator
over each complete call's arguments. The checks, in order:

- every `type` names a JSON Schema type or an alias of `schema.TYPE_ALIASES` (`float`,
  `int`, `str`, `bool`, `dict`, `list`, …, case-insensitively); an alias is replaced by its
  JSON Schema type (`any`/`json` by no type constraint, so raw values stay strings as for
  `{}`) and OpenAPI's `nullable: true` adds `null`, in a normalised copy that both the
  typing of raw values and validation use; any other name (`intger`) is an error
  suggesting the closest valid one;
- the normalised schema is valid under its metaschema (`$schema`, default draft 2020-12),
  its regular expressions (`pattern`, `patternProperties`) included;
- every `$ref` resolves within the schema (tool schemas are never fetched).

Checked schemas and their validators are cached by content, so a session with hundreds of
tools costs their check once per process, not once per session (a normalised copy is shared
by the `Tools` that declare the same schema: treat it as read-only).
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from .combinators import UsageError
from .schema import ANY, JSON_TYPES, NULL, TYPE_ALIASES, json_type


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


Validator = Callable[[Mapping[str, Any]], tuple[str, ...]]
"""The schema violations of complete arguments, as readable messages (empty when valid)."""


class Tools(Mapping[str, Tool]):
    """Tools by name (lookup is one dict access, whatever their number), their schemas
    checked and normalised (see the module docstring; a bad one is a `UsageError`)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._by_name: dict[str, Tool] = {}
        self._validators: dict[str, Validator] = {}
        for tool in tools:
            parameters, self._validators[tool.name] = _checked(tool)
            if parameters is not tool.parameters:
                tool = replace(tool, parameters=parameters)
            self._by_name[tool.name] = tool

    def __getitem__(self, name: str) -> Tool:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"Tools({sorted(self._by_name)})"

    def validator(self, name: str) -> Validator:
        """The compiled validator of tool `name`'s arguments (`KeyError` when undeclared)."""
        return self._validators[name]


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
        normalized.append(
            Tool(function["name"], parameters, str(function.get("description") or ""))
        )
    return Tools(normalized)


def _checked(tool: Tool) -> tuple[Mapping[str, Any], Validator]:
    """`tool`'s normalised parameters schema and its validator, or a `UsageError`."""
    parameters = tool.parameters
    if not isinstance(parameters, Mapping):
        raise UsageError(f"tool {tool.name!r}: parameters must be a JSON schema object")
    if not parameters:
        return parameters, _no_problems
    try:
        normalized, validator = _compiled(_key(tool.name, parameters))
    except _SchemaProblem as problem:
        where = "/".join(["parameters", *map(str, problem.path)])
        raise UsageError(f"tool {tool.name!r}: bad schema at {where}: {problem}") from None
    return parameters if normalized is None else normalized, validator


def _no_problems(arguments: Mapping[str, Any]) -> tuple[str, ...]:
    return ()


def _key(name: str, parameters: Mapping[str, Any]) -> str:
    """The schema as JSON text (the cache key; keys in their order, which the normalised
    copy keeps)."""
    try:
        return orjson.dumps(parameters).decode()
    except TypeError:  # orjson: not JSON data, or an integer beyond 64 bits
        try:
            return json.dumps(parameters, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise UsageError(f"tool {name!r}: parameters are not JSON data: {error}") from None


class _SchemaProblem(Exception):
    """What is wrong with a schema, and where (the path of keys inside `parameters`)."""

    def __init__(self, path: Iterable[str | int], message: str) -> None:
        super().__init__(message)
        self.path = tuple(path)


@functools.lru_cache(maxsize=4096)
def _compiled(key: str) -> tuple[dict[str, Any] | None, Validator]:
    """The normalised schema (None when normalising changed nothing) and its validator."""
    try:
        import jsonschema  # and referencing, which it requires
    except ImportError:
        raise UsageError(
            "checking tool schemas needs the jsonschema package, a dependency of protocall: "
            "pip install 'jsonschema>=4.18'"
        ) from None
    original = json.loads(key)
    refs: list[tuple[tuple[str | int, ...], str]] = []
    schema = _normalized(original, (), refs)
    checker = jsonschema.validators.validator_for(schema)
    try:
        if "$schema" in schema or not _well_formed(schema):
            checker.check_schema(schema)
    except jsonschema.SchemaError as error:
        message = error.message
        if error.validator == "format" and error.cause is not None:  # `regex`: re's error
            message = f"{error.instance!r} is not a valid {error.validator_value}: {error.cause}"
        raise _SchemaProblem(error.absolute_path, message) from None
    if refs:
        _resolve(schema, refs)
    validate = checker(schema)
    quick = _quick(schema) if "$schema" not in schema else None

    def problems(arguments: Mapping[str, Any]) -> tuple[str, ...]:
        if quick is not None and quick(arguments):
            return ()
        errors = sorted(validate.iter_errors(dict(arguments)), key=lambda e: list(e.path))
        return tuple(
            f"{'/'.join(map(str, e.absolute_path)) or '(arguments)'}: {e.message}" for e in errors
        )

    return (None if schema is original else schema), problems


Check = Callable[[Any], bool]

_QUICK_TYPES: dict[str, Check] = {
    "string": lambda value: type(value) is str,
    "integer": lambda value: type(value) is int,  # 3.0 is one too: jsonschema decides
    "number": lambda value: type(value) is int or type(value) is float,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "object": lambda value: type(value) is dict,
    "array": lambda value: type(value) is list,
}
_BOUNDS: dict[str, tuple[Check, Callable[[Any, Any], bool]]] = {
    "minimum": (_QUICK_TYPES["number"], lambda value, bound: value >= bound),
    "maximum": (_QUICK_TYPES["number"], lambda value, bound: value <= bound),
    "exclusiveMinimum": (_QUICK_TYPES["number"], lambda value, bound: value > bound),
    "exclusiveMaximum": (_QUICK_TYPES["number"], lambda value, bound: value < bound),
    "minLength": (_QUICK_TYPES["string"], lambda value, bound: len(value) >= bound),
    "maxLength": (_QUICK_TYPES["string"], lambda value, bound: len(value) <= bound),
}
_ANNOTATIONS = frozenset(["description", "title", "default", "examples", "$comment", "format"])
_DEEPEST = 16
"""The nesting `_quick` checks (a deeper schema is the validator's)."""
_QUICK = frozenset(
    ["type", "enum", "properties", "required", "additionalProperties", "items", *_BOUNDS]
)


def _quick(schema: Any, depth: int = 0) -> Check | None:
    """For a schema of the shapes tools mostly declare (types, string enums, numeric and
    length bounds, properties, required, additionalProperties, items, annotations), a
    check that tells in a few dict lookups that a value is valid: True only where the
    validator finds nothing (any doubt is False: the validator decides, and words the
    problems). None for any other schema. (`format` only annotates: the validators are
    built without a format checker.)"""
    if not isinstance(schema, dict) or not schema.keys() <= _QUICK | _ANNOTATIONS:
        return None
    checks: list[Check] = []
    if "type" in schema:
        declared = schema["type"]
        names = declared if isinstance(declared, list) else [declared]
        if not all(isinstance(name, str) and name in _QUICK_TYPES for name in names):
            return None
        tests = [_QUICK_TYPES[name] for name in names]
        checks.append(lambda value: any(test(value) for test in tests))
    if "enum" in schema:
        if not isinstance(schema["enum"], list) or not all(type(e) is str for e in schema["enum"]):
            return None
        allowed = frozenset(schema["enum"])
        checks.append(lambda value: type(value) is str and value in allowed)
    for keyword, (applies, holds) in _BOUNDS.items():
        bound = schema.get(keyword)
        if bound is None:
            continue
        if type(bound) is not int and type(bound) is not float:
            return None
        checks.append(lambda v, b=bound, a=applies, h=holds: not a(v) or h(v, b))  # type: ignore[misc]
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    required = schema.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list) or depth > _DEEPEST:
        return None
    inner = {name: _quick(sub, depth + 1) for name, sub in properties.items()}
    other = _quick(extra, depth + 1) if isinstance(extra, dict) else None
    if None in inner.values() or (other is None and not isinstance(extra, bool)):
        return None
    if not all(isinstance(name, str) for name in required):
        return None
    if inner or required or extra is not True:
        checks.append(
            lambda value: type(value) is not dict or _fits(value, inner, required, extra, other)
        )
    if "items" in schema:
        each = _quick(schema["items"], depth + 1)
        if each is None:
            return None
        checks.append(lambda value: type(value) is not list or all(map(each, value)))
    return lambda value: all(check(value) for check in checks)


def _resolve(schema: dict[str, Any], refs: list[tuple[tuple[str | int, ...], str]]) -> None:
    """A `_SchemaProblem` for the first of `refs` that does not resolve within `schema`."""
    import referencing
    import referencing.exceptions
    import referencing.jsonschema

    root = referencing.Resource.from_contents(
        schema, default_specification=referencing.jsonschema.DRAFT202012
    )
    resolver = referencing.Registry().resolver_with_root(root)
    for path, ref in refs:
        try:
            resolver.lookup(ref)
        except referencing.exceptions.Unresolvable:
            raise _SchemaProblem(path, f"$ref {ref!r} does not resolve within the schema") from None


def _well_formed(schema: Any, depth: int = 0) -> bool:
    """True when `schema` (draft 2020-12, the default), of the shapes `_quick` knows, is
    certainly valid under its metaschema, whose check (the bulk of a new schema's cost)
    is then skipped; False: the metaschema check decides."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > _DEEPEST:
        return False
    for key, value in schema.items():
        if key == "type":
            names = value if isinstance(value, list) else [value]
            known = all(isinstance(name, str) and name in JSON_TYPES for name in names)
            good = known and bool(names) and len(set(names)) == len(names)
        elif key in ("enum", "examples"):
            good = isinstance(value, list)
        elif key in _BOUNDS:
            good = type(value) is int or (type(value) is float and not key.endswith("Length"))
            good = good and (value >= 0 or not key.endswith("Length"))
        elif key == "properties":
            good = isinstance(value, dict) and all(
                _well_formed(s, depth + 1) for s in value.values()
            )
        elif key == "required":
            names = value if isinstance(value, list) else [None]
            good = all(isinstance(name, str) for name in names) and len(set(names)) == len(names)
        elif key in ("additionalProperties", "items"):
            good = _well_formed(value, depth + 1)
        elif key in ("description", "title", "$comment", "format"):
            good = isinstance(value, str)
        else:
            good = key == "default"  # any value
        if not good:
            return False
    return True


def _fits(
    value: dict[str, Any], inner: dict[str, Any], required: list[str], extra: Any, other: Any
) -> bool:
    """An object `value` passes `_quick`'s checks of its properties."""
    if not all(name in value for name in required):
        return False
    for name, item in value.items():
        check = inner.get(name)
        if check is None:
            if extra is False or (other is not None and not other(item)):
                return False
        elif not check(item):
            return False
    return True


_ONE = frozenset(
    [
        "items",
        "additionalItems",
        "additionalProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    ]
)
_BY_NAME = frozenset(
    ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]
)
_IN_ORDER = frozenset(["allOf", "anyOf", "oneOf", "prefixItems", "items"])
"""The keywords whose values are subschemas: one, a name → subschema object, a list."""


def _normalized(schema: Any, path: tuple[str | int, ...], refs: list[Any]) -> Any:
    """`schema` with its type names normalised (the same object when nothing changed); the
    `$ref`s found are appended to `refs` with their paths."""
    if not isinstance(schema, dict):
        return schema
    changes: dict[str, Any] = {}
    for key, value in schema.items():
        here = (*path, key)
        if key == "type":
            changes[key] = _type(value, here, schema.get("nullable") is True)
        elif key == "$ref" and isinstance(value, str):
            refs.append((here, value))
        elif key in _IN_ORDER and isinstance(value, list):
            changes[key] = _same_or(
                value, [_normalized(s, (*here, i), refs) for i, s in enumerate(value)]
            )
        elif key in _BY_NAME and isinstance(value, dict):
            new = {n: _normalized(s, (*here, n), refs) for n, s in value.items()}
            changes[key] = _same_or(value, new)
        elif key in _ONE:
            changes[key] = _normalized(value, here, refs)
    changed = {key: new for key, new in changes.items() if new is not schema[key]}
    if not changed:
        return schema
    merged = {**schema, **changed}
    if merged.get("type") is _NO_TYPE:
        del merged["type"]
    return merged


def _same_or(old: Any, new: Any) -> Any:
    """`old` when the list or dict `new` holds the very same values, else `new`."""
    values = (
        zip(old, new, strict=True) if isinstance(old, list) else ((old[k], new[k]) for k in old)
    )
    return old if all(a is b for a, b in values) else new


_NO_TYPE: Any = object()
"""What `_type` gives for a type that allows anything (`any`): the keyword is dropped."""


def _type(declared: Any, path: tuple[str | int, ...], nullable: bool) -> Any:
    """A `type` keyword's value with aliases replaced (`declared` itself when unchanged)."""
    names = declared if isinstance(declared, list) else [declared]
    if not all(isinstance(name, str) for name in names):
        return declared  # not type names at all: the metaschema check reports it
    types = []
    for index, name in enumerate(names):
        canonical = json_type(name)
        if canonical is None:
            where = path if names is not declared else (*path, index)
            raise _SchemaProblem(where, f"{name!r} is not a JSON Schema type{_suggest(name)}")
        if canonical == ANY:
            return _NO_TYPE
        types.append(canonical)
    if nullable and NULL not in types:
        types.append(NULL)
    types = list(dict.fromkeys(types))
    if types == names:
        return declared
    return types[0] if len(types) == 1 and not isinstance(declared, list) else types


def _suggest(name: str) -> str:
    """The closest known type name, as the JSON Schema type it stands for (`flaot`: `number`)."""
    known = [*JSON_TYPES, *TYPE_ALIASES]
    close = difflib.get_close_matches(name.strip().lower(), known, n=1, cutoff=0.6)
    if not close:
        return f" (expected one of: {', '.join(JSON_TYPES)})"
    canonical = json_type(close[0])
    return f" (did you mean {close[0] if canonical == ANY else canonical!r}?)"
