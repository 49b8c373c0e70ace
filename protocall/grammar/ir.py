"""The grammar a spec walk builds, before it is written in a dialect (`lark`, `gbnf`).

A `Grammar` is named rules over a few node kinds: `Lit` (text), `Token` (a special token),
`Pattern` (a short regular lexeme such as digits), `Json` (a value valid for a JSON schema),
`Until` (free text, then a marker), `Members` (items in any order, each at most once),
`Seq`, `Alt`, `Opt`, `Star` and `Ref` (a rule).

Free text is never a node of its own: it always runs up to a marker (`Until`), and never
contains one of the grammar's `excluded` markers (the format's reserved ones that are text,
not special tokens). Writing the marker into the same node is what lets a lexer-based engine
(llguidance) end the text at the first marker instead of swallowing part of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Union

from ..combinators import UsageError


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Token:
    """A special token, matched as the token, never as its text."""

    text: str


@dataclass(frozen=True)
class Pattern:
    """A regular lexeme (a linear-time regular expression in the common syntax)."""

    regex: str


@dataclass(frozen=True)
class Json:
    """A JSON value valid for `schema` (JSON text, keys in the order they must be written),
    `where` it stands (for the report of dropped keywords)."""

    schema: str
    where: str = "a value"


@dataclass(frozen=True)
class Until:
    """Free text (none of the grammar's excluded markers, or of `excluded` where it says
    which), then `marker`. `string`: where the text is a string value, the JSON text of its
    string keywords (`pattern`, `format`, `minLength`, `maxLength`), which the writer
    writes as far as it can and reports as dropped, found `where`, as far as it cannot."""

    marker: Lit | Token
    excluded: tuple[str, ...] | None = None
    string: str = ""
    where: str = ""


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Opt:
    item: Node


@dataclass(frozen=True)
class Star:
    item: Node


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Members:
    """`items` in any order, each at most once, the first `required` of them present,
    `sep` between two (object members, XML parameters, keyword arguments); a writer of
    one fixed order writes them in `order` (positions in `items`; default: as given)."""

    items: tuple[Node, ...]
    required: int
    sep: Node
    order: tuple[int, ...] = ()


Node = Union[Lit, Token, Pattern, Json, Until, Seq, Alt, Opt, Star, Ref, Members, "Free"]


@dataclass(frozen=True)
class Free:
    """Free text as `seq` receives it: it becomes an `Until` with the marker after it
    (`excluded`, `string` and `where` as the `Until`'s)."""

    excluded: tuple[str, ...] | None = None
    string: str = ""
    where: str = ""


STRING_KEYWORDS = ("pattern", "format", "minLength", "maxLength")
"""A string's constraints."""


def raw_string(schema: Any, where: str) -> Free:
    """Free text that is a string value valid for `schema` (its `STRING_KEYWORDS`)."""
    kept = {key: schema[key] for key in STRING_KEYWORDS if key in schema}
    return Free(string=json.dumps(kept, ensure_ascii=False) if kept else "", where=where)


FREE = Free()


def json_node(schema: Any, where: str) -> Json:
    return Json(json.dumps(schema, ensure_ascii=False, separators=(",", ":")), where)


def seq(*items: Node) -> Node:
    """The sequence of `items`, flattened, adjacent texts joined, and each `FREE` joined to
    the marker right after it, or to each alternative's (a `FREE` with none after it is a
    `UsageError`)."""
    flat: list[Node] = []
    for item in items:
        for part in item.items if isinstance(item, Seq) else (item,):
            if isinstance(part, Lit) and not part.text:
                continue
            last = flat[-1] if flat else None
            if isinstance(part, Lit) and isinstance(last, Lit):
                flat[-1] = Lit(last.text + part.text)
            elif isinstance(part, Lit | Token) and isinstance(last, Free):
                flat[-1] = Until(part, last.excluded, last.string, last.where)
            elif isinstance(part, Alt) and isinstance(last, Free):  # each ends at its own
                flat[-1] = alt(*(seq(last, item) for item in part.items))
            elif isinstance(last, Until) and isinstance(part, Lit) and isinstance(last.marker, Lit):
                flat[-1] = Until(Lit(last.marker.text + part.text), last.excluded, last.string,
                                 last.where)  # fmt: skip
            else:
                flat.append(part)
    if any(isinstance(part, Free) for part in flat):
        raise UsageError("free text in a grammar must end at a marker")
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def head(node: Node) -> tuple[str, Node]:
    """The text every match of `node` begins with, and `node` without it."""
    if isinstance(node, Lit):
        return node.text, Lit("")
    if isinstance(node, Seq):
        text, rest = head(node.items[0])
        return text, seq(rest, *node.items[1:])
    if isinstance(node, Alt):
        split = [head(item) for item in node.items]
        common = common_prefix([text for text, _ in split])
        if common:
            return common, alt(*(seq(Lit(text[len(common) :]), rest) for text, rest in split))
    return "", node


def common_prefix(texts: list[str]) -> str:
    """The longest text every one of `texts` begins with."""
    shortest = min(texts, key=len)
    for at, char in enumerate(shortest):
        if any(text[at] != char for text in texts):
            return shortest[:at]
    return shortest


def alt(*items: Node) -> Node:
    """The alternatives `items`, duplicates dropped."""
    unique = tuple(dict.fromkeys(items))
    return unique[0] if len(unique) == 1 else Alt(unique)


GAP = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())
"""The whitespace a `Grammar.heads` gap may hold: every character `str.isspace` takes (and a
regular expression's whitespace class matches), the parsers' whitespace or more."""


@dataclass
class Grammar:
    """Named rules (`start` first), the markers free text never contains (`excluded`),
    and the `openers` of calls that only their own beginning marks (`[get(`): free text
    ends at the first one, and holds none where it runs up to one. `heads`: the other
    spellings of such a call's beginning the parser reads (`[ get (`), each a run of texts
    with any `GAP` whitespace between them, which the default free text never holds
    either. `dropped`: the schema keywords the grammar does not express (one line each,
    added by whoever drops one)."""

    excluded: tuple[str, ...]
    rules: dict[str, Node] = field(default_factory=dict)
    openers: tuple[str, ...] = ()
    heads: tuple[tuple[str, ...], ...] = ()
    dropped: list[str] = field(default_factory=list)

    def rule(self, name: str, node: Node) -> Ref:
        """`node` as a rule named `name` (made unique), referred to by the returned `Ref`."""
        unique, number = name, 1
        while unique in self.rules:
            number += 1
            unique = f"{name}_{number}"
        self.rules[unique] = node
        return Ref(unique)


def reachable(grammar: Grammar) -> Grammar:
    """`grammar` with only the rules its `start` rule reaches."""
    found: set[str] = set()
    pending = ["start"]
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending += _refs(grammar.rules[name])
    rules = {name: node for name, node in grammar.rules.items() if name in found}
    return Grammar(grammar.excluded, rules, grammar.openers, grammar.heads)


def _refs(node: Node) -> list[str]:
    """The rules `node` refers to."""
    if isinstance(node, Ref):
        return [node.name]
    if isinstance(node, Seq | Alt):
        return [name for item in node.items for name in _refs(item)]
    if isinstance(node, Members):
        return [name for item in (*node.items, node.sep) for name in _refs(item)]
    if isinstance(node, Opt | Star):
        return _refs(node.item)
    return []
