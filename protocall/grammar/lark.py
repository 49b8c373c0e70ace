"""A `Grammar` in llguidance's Lark dialect (`%json` for JSON values, `<|…|>` for special
tokens, free text as a lexeme that ends at its marker)."""

from __future__ import annotations

import json
import re

from ..combinators import UsageError
from . import patterns, schemas
from .free_text import straddling
from .ir import (
    GAP,
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


def write(grammar: Grammar) -> str:
    """The Lark text of `grammar` (its first rule is `start`)."""
    writer = _Writer(grammar)
    rules = [f"{name}: {writer.node(node)}" for name, node in grammar.rules.items()]
    return "\n".join(["%llguidance {}", "", *rules, *writer.rules, "", *writer.terminals, ""])


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _regex(pattern: str) -> str:
    return "/" + pattern.replace("/", "\\/") + "/"


class _Writer:
    def __init__(self, grammar: Grammar) -> None:
        self.terminals: list[str] = []
        self.frees: dict[
            tuple[tuple[str, ...], tuple[tuple[str, ...], ...], tuple[str, ...]], str
        ] = {}
        self.excluded = (*grammar.excluded, *grammar.openers)
        self.heads = grammar.heads
        self._free(None)
        self.untils: dict[tuple[str, str], str] = {}
        self.strings: dict[str, str] = {}
        self.openers = grammar.openers
        self.rules: list[str] = []
        self.members = 0
        self.dropped = grammar.dropped

    def node(self, node: Node) -> str:
        if isinstance(node, Lit):
            return _string(node.text) if node.text else '""'
        if isinstance(node, Token):
            return node.text
        if isinstance(node, Pattern):
            return _regex(node.regex)
        if isinstance(node, Json):
            return f"%json {self._json(node)}"
        if isinstance(node, Until):
            markers = self.excluded if node.excluded is None else node.excluded
            free = self._free(node.excluded, straddling(markers, node.marker.text))
            if node.string:
                free = self._raw_string(node, free)
            if isinstance(node.marker, Token):
                return f"{free} {node.marker.text}"
            return self._until(node.marker.text, free)
        if isinstance(node, Ref):
            return node.name
        if isinstance(node, Seq):
            return " ".join(self.node(item) for item in node.items)
        if isinstance(node, Alt):
            return "(" + " | ".join(self.node(item) for item in node.items) + ")"
        if isinstance(node, Members):
            return self._members(node)
        if isinstance(node, Opt):
            return f"({self.node(node.item)})?"
        assert isinstance(node, Star)
        return f"({self.node(node.item)})*"

    def _json(self, node: Json) -> str:
        """The node's schema, without the string formats llguidance does not know
        (reported as dropped)."""
        if '"format"' not in node.schema:
            return node.schema
        found: list[str] = []
        known = schemas.known_formats(
            json.loads(node.schema), schemas.LARK_FORMATS, node.where, found
        )
        self.dropped += found
        return json.dumps(known, ensure_ascii=False, separators=(",", ":"))

    def _free(self, excluded: tuple[str, ...] | None, before: tuple[str, ...] = ()) -> str:
        """The terminal of free text that holds none of `excluded` (default: the grammar's
        excluded markers and openers, and none of its call `heads` either) and ends with
        none of `before` (`free_text.straddling`)."""
        markers = self.excluded if excluded is None else excluded
        heads = self.heads if excluded is None else ()
        if (markers, heads, before) not in self.frees:
            name = f"FREE_{len(self.frees)}" if self.frees else "FREE"
            pattern = "/(?s:.*)/"
            if markers or heads:
                gap = "[" + "".join(f"\\u{ord(c):04X}" for c in GAP) + "]*"
                spaced = (gap.join(map(re.escape, texts)) for texts in heads)
                either = "|".join([*map(re.escape, markers), *spaced])
                pattern += " & ~" + _regex(f"(?s:.*)(?:{either})(?s:.*)")
            if before:
                ending = "|".join(map(re.escape, before))
                pattern += " & ~" + _regex(f"(?s:.*)(?:{ending})")
            self.terminals.append(f"{name}: {pattern}")
            self.frees[markers, heads, before] = name
        return self.frees[markers, heads, before]

    def _raw_string(self, node: Until, free: str) -> str:
        """The terminal of free text (`free`) that is a string value valid for the string
        keywords of `node` (`Until.string`): its pattern (or format) and its lengths, each
        a regular expression the text must match too; a pattern outside the subset
        `patterns` reads is reported as dropped."""
        schema = json.loads(node.string)
        lengths = {k: v for k, v in schema.items() if k in ("minLength", "maxLength")}
        kept = {k: v for k, v in schema.items() if k not in lengths}
        found = [patterns.string(part, patterns.RAW) for part in (kept, lengths) if part]
        written = frozenset().union(*(keys for _, keys in found))
        for key in (key for key in schema if key not in written):
            shown = json.dumps(schema[key], ensure_ascii=False)
            self.dropped.append(f"{node.where}: {key} {shown}")
        regexes = [_regex(f"(?s:{expression})") for expression, _ in found if expression]
        if not regexes:
            return free
        key = " & ".join([*regexes, free])
        if key not in self.strings:
            self.strings[key] = f"STRING_{len(self.strings)}"
            self.terminals.append(f"{self.strings[key]}: {key}")
        return self.strings[key]

    def _until(self, marker: str, free: str) -> str:
        """Free text (the terminal `free`) and `marker` as one lexeme: it ends at the first
        `marker` (an excluded one, which free text never holds; an opener, as a lazy
        lexeme)."""
        key = (marker, free)
        if key not in self.untils:
            if marker in self.openers:
                name = f"until_{len(self.untils)}"
                self.rules.append(f"{name}[lazy]: {free} {_string(marker)}")
            else:
                name = f"UNTIL_{len(self.untils)}"
                self.terminals.append(f"{name}: {free} {_string(marker)}")
            self.untils[key] = name
        return self.untils[key]

    def _members(self, node: Members) -> str:
        """Items in any order, each at most once, as a parametric rule: bit k of its
        parameter is set once item k is written; it may end once the required ones (the
        first bits) are all set. An item's first text is written with the separator before
        it as one lexeme, so that no separator is a lexeme that a longer one extends."""
        if not node.items:
            return '""'
        if len(node.items) > 64:
            raise UsageError(f"no Lark grammar for more than 64 parameters ({len(node.items)})")
        self.members += 1
        number = self.members  # nested members count on
        first, later = f"members_{number}", f"members_{number}_more"
        done = f"is_ones([0:{node.required}])" if node.required else "true"
        options: dict[str, list[str]] = {first: [f'"" %if {done}'], later: [f'"" %if {done}']}
        for k, item in enumerate(node.items):
            text, rest = head(item)
            body = f"member_{number}_{k}"
            self.rules.append(f"{body}: {self.node(rest)}")
            for name, lead in ((first, Lit(text)), (later, seq(node.sep, Lit(text)))):
                written = self.node(lead) if lead != Lit("") else ""
                step = f"{later}::set_bit({k}) %if bit_clear({k})"
                options[name].append(" ".join(filter(None, (written, body, step))))
        for name, alternatives in options.items():
            self.rules.append(f"{name}::_ : " + "\n    | ".join(alternatives))
        return f"{first}::0x0"
