"""Values written in a literal syntax other than JSON, from their JSON schema: Python
literals (`'x'`, `True`, `None`, as `repr` writes them) and Gemma 4's bare objects
(`{key:<|"|>text<|"|>}`, `codecs.BareObject`).

A keyword the syntax has no grammar for (a number's `minimum`, an array's `minItems`, a
string's `pattern` outside the subset `patterns` reads) is dropped, the grammar looser
there, and reported in the grammar's `dropped` (the parser's validation still reports a
violation). A `$ref` is a rule of its own (so a recursive one refers to itself); `allOf`
is merged (`schemas.resolve`). An untyped schema is any value of the syntax.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..combinators import UsageError
from ..spec.codecs import BARE_KEY, BareObject
from . import patterns, schemas
from .ir import (
    STRING_KEYWORDS,
    Grammar,
    Lit,
    Members,
    Node,
    Opt,
    Pattern,
    Ref,
    Star,
    alt,
    raw_string,
    seq,
)
from .ranges import integers
from .schemas import ANNOTATIONS

_WS = Pattern(r"[ \t\n\r]*")
_COMMA = seq(_WS, Lit(","), _WS)
INTEGER = r"[-]?([0]|[1-9][0-9]*)"
NUMBER = INTEGER + r"([.][0-9]+)?([eE][-+]?[0-9]+)?"
"""Numbers as JSON and `repr` write them (in the regex subset GBNF shares)."""

_KEYWORDS = {
    "string": frozenset(),
    "integer": frozenset(),
    "number": frozenset(),
    "boolean": frozenset(),
    "null": frozenset(),
    "array": frozenset({"items"}),
    "object": frozenset({"properties", "required", "additionalProperties"}),
}
"""The keywords of each type the grammar writes (besides `type` and annotations)."""


String = Callable[[Mapping[str, Any], str], tuple[Node, frozenset[str]]]
"""A string valid for a schema (its `ir.STRING_KEYWORDS`), found where the text says, and
the keywords it writes or leaves to the grammar's writer (which reports what it drops)."""


@dataclass(frozen=True)
class Syntax:
    """A literal syntax: `write(value)` the text of a value, `string` a string, `key` any
    object key, `text` the writer of marker text (special tokens as tokens)."""

    name: str
    write: Callable[[Any], str]
    string: String
    key: Callable[[], Node]
    text: Callable[[str], Node]


def python(text: Callable[[str], Node]) -> Syntax:
    """Python literals as `repr` writes them: strings in `'` (or `"` where `repr` chooses
    it), their pattern, format and lengths as far as `patterns.string` writes them,
    `True`, `False`, `None`, `[…]`, `{'k': v}`."""

    def string(schema: Mapping[str, Any], where: str) -> tuple[Node, frozenset[str]]:
        found = [patterns.string(schema, patterns.python(quote)) for quote in "'\""]
        if found[0][0] is None:
            single = Pattern(r"[']([^'\\\n]|[\\][^\n])*[']")
            return alt(single, Pattern(r'["]([^"\\\n]|[\\][^\n])*["]')), frozenset()
        quoted = zip("'\"", found, strict=True)
        spelled = (Pattern(f"[{quote}]{body}[{quote}]") for quote, (body, _) in quoted)
        return alt(*spelled), found[0][1]

    return Syntax("Python literals", repr, string, lambda: string({}, "")[0], text)


def bare(codec: BareObject, text: Callable[[str], Node]) -> Syntax:
    """`codec`'s values: strings raw text between its quote marks (no escapes, their
    keywords written by the grammar's writer as for raw text, `ir.raw_string`), keys bare
    or so quoted, JSON numbers, `true`, `false`, `null`."""

    def string(schema: Mapping[str, Any], where: str) -> tuple[Node, frozenset[str]]:
        value = seq(text(codec.quote), raw_string(schema, where), text(codec.quote))
        return value, frozenset(STRING_KEYWORDS)

    def key() -> Node:
        return alt(Pattern(_class(BARE_KEY) + "+"), string({}, "")[0])

    return Syntax("bare objects", codec.render, string, key, text)


def _class(regex: str) -> str:
    """A `[…]+` regex's character class (`BARE_KEY` is one)."""
    match = re.fullmatch(r"(\[.*\])\+", regex)
    assert match is not None
    return match[1]


class Values:
    """Values of `syntax` from their schema, its `$ref`s into `root` (the tool's schema),
    rules in `grammar` (the any-value rule once, one per `$ref`)."""

    def __init__(self, syntax: Syntax, grammar: Grammar, root: Mapping[str, Any]) -> None:
        self.syntax, self.grammar, self.root = syntax, grammar, root
        self.any: Node | None = None
        self.refs: dict[str, Ref] = {}

    def value(self, schema: Mapping[str, Any], where: str) -> Node:
        """A value valid for `schema`, in the syntax (`where` names it in errors and in
        the report of dropped keywords)."""
        ref = schema.get("$ref")
        if isinstance(ref, str) and set(schema) - ANNOTATIONS == {"$ref"}:
            if ref not in self.refs:
                self.refs[ref] = self.grammar.rule("ref", Lit(""))
                written = self.value(schemas.resolve(schema, self.root), where)
                self.grammar.rules[self.refs[ref].name] = written
            return self.refs[ref]
        schema = schemas.resolve(schema, self.root)
        if "const" in schema or "enum" in schema:
            allowed = [schema["const"]] if "const" in schema else list(schema["enum"])
            return alt(*(self.syntax.text(self.syntax.write(value)) for value in allowed))
        for union in ("anyOf", "oneOf"):
            if isinstance(schema.get(union), list):
                return alt(*(self.value(member, where) for member in schema[union]))
        declared = schema.get("type")
        if declared is None and not {"properties", "items"} & set(schema):
            return self._any()
        types = declared if isinstance(declared, list) else [declared or "object"]
        if "properties" not in schema and declared is None:
            types = ["array"]
        return alt(*(self._typed(kind, schema, where) for kind in types))

    def _typed(self, kind: str, schema: Mapping[str, Any], where: str) -> Node:
        allowed = _KEYWORDS.get(kind)
        if allowed is None:
            raise UsageError(f"no grammar for a value of type {kind!r} ({where})")
        bounds = schemas.integer_bounds(schema) if kind == "integer" else None
        if bounds is not None:
            allowed = allowed | schemas.BOUNDS
        string: Node = Lit("")
        if kind == "string":
            string, keywords = self.syntax.string(schema, where)
            allowed = allowed | keywords
        else:  # a string's keywords constrain only strings
            allowed = allowed | set(STRING_KEYWORDS)
        extra = set(schema) - allowed - ANNOTATIONS - {"type"}
        for keyword in sorted(extra):
            shown = json.dumps(schema[keyword], ensure_ascii=False)
            self.grammar.dropped.append(f"{where}: {keyword} {shown}")
        if kind == "string":
            return string
        if bounds is not None and bounds != (None, None):
            return Pattern(integers(*bounds))
        if kind in ("integer", "number"):
            return Pattern(INTEGER if kind == "integer" else NUMBER)
        if kind in ("boolean", "null"):
            spelled = (True, False) if kind == "boolean" else (None,)
            return alt(*(Lit(self.syntax.write(value)) for value in spelled))
        if kind == "array":
            item = self.value(schema["items"], where) if "items" in schema else self._any()
            return self._array(item)
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            return self._dict(self._any())
        required = set(schema.get("required") or ())
        order = sorted(properties, key=lambda key: key not in required)
        members = tuple(self._member(key, properties[key], where) for key in order)
        needed = sum(1 for key in order if key in required)
        written = tuple(order.index(key) for key in self._written_order(order))
        return seq(Lit("{"), _WS, Members(members, needed, _COMMA, written), _WS, Lit("}"))

    def _written_order(self, keys: list[str]) -> list[str]:
        """`keys` in the order the syntax writes an object's members (`write` of an object
        with them; Gemma 4's template sorts them)."""
        written = self.syntax.write(dict.fromkeys(keys))
        return sorted(keys, key=lambda key: written.index(self._key(key) + ":"))

    def _member(self, key: str, schema: Mapping[str, Any], where: str) -> Node:
        """`key: value` of an object, the value valid for `schema`."""
        value = self.value(schema, f"{where}.{key}")
        return seq(self.syntax.text(self._key(key)), _WS, Lit(":"), _WS, value)

    def _key(self, key: str) -> str:
        """`key` as the syntax writes an object key."""
        written = self.syntax.write({key: None})
        return written[1 : written.rindex(":")]

    def _any(self) -> Node:
        """Any value of the syntax (one recursive rule)."""
        if self.any is None:
            self.any = self.grammar.rule("literal", Lit(""))
            scalars = [self.syntax.string({}, "")[0], Pattern(NUMBER)]
            scalars += [Lit(self.syntax.write(value)) for value in (True, False, None)]
            self.grammar.rules[self.any.name] = alt(
                *scalars, self._array(self.any), self._dict(self.any)
            )
        return self.any

    def _array(self, item: Node) -> Node:
        return seq(Lit("["), _WS, Opt(seq(item, Star(seq(_COMMA, item)))), _WS, Lit("]"))

    def _dict(self, value: Node) -> Node:
        member = seq(self.syntax.key(), _WS, Lit(":"), _WS, value)
        return seq(Lit("{"), _WS, Opt(seq(member, Star(seq(_COMMA, member)))), _WS, Lit("}"))
