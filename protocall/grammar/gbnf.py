"""A `Grammar` in llama.cpp's GBNF: special tokens written as their text, free text as
rules of an automaton that never completes an excluded marker, JSON values from their
schema, and `Members` in one fixed order (required first; GBNF has no parametric rules)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from ..combinators import UsageError
from . import free_text, patterns, schemas
from .ir import (
    Alt,
    Grammar,
    Json,
    Lit,
    Members,
    Node,
    Opt,
    Pattern,
    Ref,
    Seq,
    Star,
    Token,
    Until,
    head,
    seq,
)
from .ranges import integers

EXPRESSED = schemas.STRUCTURE | {"prefixItems", "minItems", "maxItems"}
"""The JSON schema keywords the GBNF writer expresses in any schema; `DECIDED` ones it
expresses in some (`_written`); any other is dropped and reported (`schemas.dropped`)."""
DECIDED = schemas.BOUNDS | {"format", "pattern", "minLength", "maxLength"}


def _written(schema: Mapping[str, Any]) -> frozenset[str]:
    """The `DECIDED` keywords of `schema` the writer writes: the bounds of an integer
    (`schemas.integer_bounds`); of a `string` type, its `format` (one of
    `patterns.FORMATS`) or else its `pattern`, and its lengths, as far as one expression
    holds them (`patterns.string`)."""
    found = set(schema.keys() & schemas.BOUNDS) if schemas.integer_bounds(schema) else set()
    kind = schema.get("type")
    if "string" not in (kind if isinstance(kind, list) else [kind]):
        return frozenset(found)  # (a string's keywords in a schema of any value: dropped)
    return frozenset(found) | patterns.string(schema, patterns.JSON)[1]


_CLASS_ESCAPES = {"\\s": " \\t\\n\\r\\x0C\\x0B", "\\f": "\\x0C", "\\v": "\\x0B"}
"""Escapes of a regex character class that GBNF spells otherwise."""


def write(grammar: Grammar) -> str:
    """The GBNF text of `grammar` (its `start` rule is `root`)."""
    writer = _Writer(grammar)
    rules = [f"{_name(name)} ::= {writer.node(node)}" for name, node in grammar.rules.items()]
    return "\n".join([*rules, *writer.rules, ""])


def _times(least: int, most: int | None, written: int) -> str:
    """`{m,n}`: at least `least` more, at most `most` in all with `written` already."""
    return f"{{{max(least, 0)},{'' if most is None else most - written}}}"


def _name(rule: str) -> str:
    return "root" if rule == "start" else re.sub(r"[^a-zA-Z0-9-]", "-", rule)


def literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f'"{escaped}"'


def _char_class(chars: set[str], negated: bool = False) -> str:
    def one(char: str) -> str:
        if char in "\\]^[":
            return "\\" + char
        if char == " " or (char.isprintable() and not char.isspace()):
            return char
        return f"\\x{ord(char):02X}" if ord(char) < 0x100 else f"\\u{ord(char):04X}"

    dash = "-" if "-" in chars else ""  # last: a `-` there is no range (`\-` is no escape)
    runs: list[list[str]] = []
    for char in sorted(chars - {"-"}):
        if runs and ord(char) == ord(runs[-1][-1]) + 1:
            runs[-1].append(char)
        else:
            runs.append([char])
    body = "".join(
        f"{one(run[0])}-{one(run[-1])}" if len(run) > 2 else "".join(map(one, run)) for run in runs
    )
    return "[" + ("^" if negated else "") + body + dash + "]"


class _Writer:
    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.rules: list[str] = []
        self.named: dict[str, str] = {}
        self.automata = 0
        self.root: Any = {}
        self.root_key = ""

    @functools.cached_property
    def free(self) -> str:
        """The grammar's free text (see `_free`), written where a node first holds it."""
        grammar = self.grammar
        return self._free((*grammar.excluded, *grammar.openers), grammar.heads)

    def rule(self, key: str, name: str, body: Any) -> str:
        """A rule for `key` (written once), its body from `body()`."""
        if key not in self.named:
            self.named[key] = name = f"{name}-{len(self.named)}"
            self.rules.append(f"{name} ::= {body()}")
        return self.named[key]

    def node(self, node: Node) -> str:
        if isinstance(node, Lit):
            return literal(node.text)
        if isinstance(node, Token):
            return literal(node.text)
        if isinstance(node, Pattern):  # the common subset, class escapes spelled out
            return re.sub(r"\\[sfv]", lambda m: _CLASS_ESCAPES[m[0]], node.regex)
        if isinstance(node, Json):
            schema = json.loads(node.schema)
            found = schemas.dropped(schema, EXPRESSED, node.where, written=(DECIDED, _written))
            self.grammar.dropped += found
            self.root, self.root_key = schema, node.schema
            return self.json(schema)
        if isinstance(node, Until):
            grammar, marker = self.grammar, node.marker.text
            markers = (*grammar.excluded, *grammar.openers) if node.excluded is None else ()
            before = free_text.straddling(node.excluded or markers, marker)
            if node.excluded is not None:
                free = self._free(node.excluded, before=before)
            else:
                free = self._free(markers, grammar.heads, before) if before else self.free
            if node.string:
                free = self._raw_string(node) or free
            return f"{free} {literal(node.marker.text)}"
        if isinstance(node, Ref):
            return _name(node.name)
        if isinstance(node, Seq):
            return " ".join(self.node(item) for item in node.items)
        if isinstance(node, Alt):
            return "(" + " | ".join(self.node(item) for item in node.items) + ")"
        if isinstance(node, Opt):
            return f"({self.node(node.item)})?"
        if isinstance(node, Star):
            return f"({self.node(node.item)})*"
        assert isinstance(node, Members)
        return self._members(node)

    def _members(self, node: Members) -> str:
        """The items in their `order` (required ones first), each required one present, the
        others or not, `sep` between two (joined to the item's first text): `first`
        (nothing written yet), `later`."""
        first, later = '""', '""'
        order = node.order or tuple(range(len(node.items)))
        for number in range(len(order) - 1, -1, -1):
            text, rest = head(node.items[order[number]])
            item, joined = (
                self.node(seq(Lit(text), rest)),
                self.node(seq(node.sep, Lit(text), rest)),
            )
            required = order[number] < node.required
            taken_first, taken_later = f"{item} {later}", f"{joined} {later}"
            first = taken_first if required else f"({taken_first} | {first})"
            later = taken_later if required else f"({taken_later} | {later})"
            if number:
                key = f"members {len(self.rules)} {number}"
                later = self.rule(key, "more", lambda body=later: body)
                if order[number - 1] >= node.required:
                    first = self.rule(key + " first", "args", lambda body=first: body)
        return first

    def _raw_string(self, node: Until) -> str | None:
        """The string keywords of free text that is a string value (`Until.string`), as
        raw text with no character that begins a marker (`patterns.raw`); the keywords it
        cannot write reported as dropped. None: any free text."""
        grammar = self.grammar
        markers = node.excluded
        if markers is None:
            markers = (*grammar.excluded, *grammar.openers, *(texts[0] for texts in grammar.heads))
        markers = (*markers, node.marker.text.strip())
        schema = json.loads(node.string)
        expression, written = patterns.string(schema, patterns.raw(markers))
        for key in (key for key in schema if key not in written):
            shown = json.dumps(schema[key], ensure_ascii=False)
            grammar.dropped.append(f"{node.where}: {key} {shown}")
        return expression

    # -- free text -------------------------------------------------------------------

    def _free(
        self,
        markers: tuple[str, ...],
        heads: tuple[tuple[str, ...], ...] = (),
        before: tuple[str, ...] = (),
    ) -> str:
        """Free text that never completes one of `markers` or `heads` (see `_free_text`),
        and ends with none of `before` (`free_text.straddling`)."""
        patterns = tuple((marker,) for marker in markers) + heads
        if not patterns:
            return self.rule("free", "text", lambda: "[^\\x00]*")  # any text
        key = f"free {patterns} {before}"
        if key not in self.named:
            prefix = f"free{len(self.named)}" if self.automata else "free"
            self.automata += 1
            ends = free_text.endings(patterns, before) if before else None
            self.rules += _free_text(patterns, prefix, ends)
            self.named[key] = f"{prefix}-0"
        return self.named[key]

    # -- JSON ------------------------------------------------------------------------

    def json(self, schema: Any) -> str:
        """A JSON value valid for `schema` (its `$ref`s resolved in `self.root`, the schema
        of the `Json` node being written), properties required ones first; the keywords
        outside `EXPRESSED` are left out (reported where the node is written)."""
        if schema is True or schema == {}:
            return self._value()
        if not isinstance(schema, Mapping):
            raise UsageError(f"no GBNF for the JSON schema {schema!r}")
        key = json.dumps(schema, sort_keys=True)
        if "$ref" in schema:  # a rule per reference: a recursive one refers to itself
            key = f"{self.root_key} {key}"
        return self.rule(key, "json", lambda: self._json_body(schemas.resolve(schema, self.root)))

    def _json_body(self, schema: Mapping[str, Any]) -> str:
        if "const" in schema:
            return literal(json.dumps(schema["const"], ensure_ascii=False))
        if "enum" in schema:
            return " | ".join(literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"])
        for union in ("anyOf", "oneOf"):
            if union in schema:
                return " | ".join(self.json(member) for member in schema[union])
        declared = schema.get("type")
        types = declared if isinstance(declared, list) else [declared] if declared else []
        if not types:
            return self._value()
        return " | ".join(self._typed(kind, schema) for kind in types)

    def _typed(self, kind: str, schema: Mapping[str, Any]) -> str:
        ws = self._ws()
        if kind == "object" and "properties" in schema:
            required = set(schema.get("required") or ())
            order = sorted(schema["properties"], key=lambda key: key not in required)
            colon = (Ref(ws), Lit(":"), Ref(ws))
            items = tuple(
                Seq((Lit(json.dumps(k, ensure_ascii=False)), *colon,
                     Ref(self.json(schema["properties"][k]))))
                for k in order
            )  # fmt: skip
            count = sum(1 for k in order if k in required)
            members = self._members(Members(items, count, Seq((Ref(ws), Lit(","), Ref(ws)))))
            return f'"{{" {ws} {members} {ws} "}}"'
        if kind == "array" and ("items" in schema or "prefixItems" in schema):
            return self._array(schema)
        if kind == "string":
            return self._string(schema)
        bounds = schemas.integer_bounds(schema) if kind == "integer" else None
        if bounds is not None and bounds != (None, None):
            least, most = bounds
            spelled = integers(least, most)
            return self.rule(f"integer {least} {most}", "integer", lambda: spelled)
        primitive = {"integer": self._integer, "number": self._number}
        if kind in primitive:
            return primitive[kind]()
        named = {"boolean": '"true" | "false"', "null": '"null"', "object": None, "array": None}
        if kind not in named:
            raise UsageError(f"no GBNF for the JSON type {kind!r}")
        return named[kind] or self._value(kind)

    def _ws(self) -> str:
        return self.rule("ws", "ws", lambda: "[ \\t\\n\\r]*")

    def _array(self, schema: Mapping[str, Any]) -> str:
        """An array of its `prefixItems`, then of `items` (any value where it says none,
        none where it is `false`), between `minItems` and `maxItems` of them."""
        ws = self._ws()
        prefix = [self.json(item) for item in schema.get("prefixItems") or ()]
        rest = None if schema.get("items") is False else self.json(schema.get("items", {}))
        least, most = schema.get("minItems", 0), schema.get("maxItems")
        if rest is None:
            most = len(prefix) if most is None else min(most, len(prefix))

        def after(number: int) -> str:
            """Items `number` on, each after a comma but the first."""
            comma = f'{ws} "," {ws} ' if number else ""
            if number < len(prefix):
                item = f"{comma}{prefix[number]} {after(number + 1)}"
                return item if number < least else f"({item})?"
            if rest is None or most == number:
                return '""'
            needed = max(least - number, 0)
            if number:
                return f"({comma}{rest}){_times(needed, most, number)}"
            more = f'({ws} "," {ws} {rest}){_times(needed - 1, most, 1)}'
            return f"{rest} {more}" if needed else f"({rest} {more})?"

        return f'"[" {ws} {after(0)} {ws} "]"'

    def _string(self, schema: Mapping[str, Any] | None = None) -> str:
        """A JSON string (of its `format`, `pattern` and lengths, see `_written`)."""
        expression, _ = patterns.string(schema or {}, patterns.JSON)
        if expression is None:
            char = '[^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})'
            chars = self.rule("char", "char", lambda: char)
            return self.rule("string", "string", lambda: f'"\\"" {chars}* "\\""')
        return self.rule(f"string {expression}", "string", lambda: f'"\\"" {expression} "\\""')

    def _integer(self) -> str:
        return self.rule("integer", "integer", lambda: '"-"? ("0" | [1-9] [0-9]*)')

    def _number(self) -> str:
        integer = self._integer()
        return self.rule(
            "number", "number", lambda: f'{integer} ("." [0-9]+)? ([eE] [-+]? [0-9]+)?'
        )

    def _value(self, kind: str | None = None) -> str:
        """Any JSON value (or any object, any array)."""
        ws = self._ws()
        value = "value-any"

        def any_object() -> str:
            member = f'{self._string()} {ws} ":" {ws} {value}'
            return f'"{{" {ws} ({member} ({ws} "," {ws} {member})*)? {ws} "}}"'

        def any_array() -> str:
            return f'"[" {ws} ({value} ({ws} "," {ws} {value})*)? {ws} "]"'

        obj = self.rule("object", "object", any_object)
        arr = self.rule("array", "array", any_array)
        if "value-any" not in self.named.values():
            self.named["value"] = value
            alternatives = [obj, arr, self._string(), self._number(), '"true"', '"false"', '"null"']
            self.rules.append(f"{value} ::= " + " | ".join(alternatives))
        return {"object": obj, "array": arr}.get(kind or "", value)


def _free_text(
    patterns: free_text.Patterns, prefix: str, ends: frozenset[int] | None = None
) -> tuple[str, ...]:
    """The rules of free text that never completes one of `patterns` (see `free_text`):
    one per state of its automaton (`PREFIX-0`: the first), each allowed to end the text
    (those of `ends` only, where given), a character that moves nowhere special going
    back to the first state."""
    rules = []
    for number, state in enumerate(free_text.automaton(patterns)):
        options = ['""'] if ends is None or number in ends else []
        options.append(f"{_char_class(set(state.special()), negated=True)} {prefix}-0")
        options += [f"{_char_class(set(chars))} {prefix}-{target}" for target, chars in state.moves]
        rules.append(f"{prefix}-{number} ::= " + " | ".join(options))
    return tuple(rules)
