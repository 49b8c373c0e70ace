"""A character-level recognizer of GBNF, as llama.cpp matches a grammar (every alternative
kept, no lexer): the oracle of the exported GBNF, for the syntax `protocall.grammar.gbnf`
writes (literals, character classes, rule names, groups, `?`, `*`, `+`, `{m,n}`)."""

from __future__ import annotations

import re
import sys
from typing import Any

_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|(\[(?:[^\]\\]|\\.)*\])|([a-zA-Z0-9-]+)|(\{\d*,?\d*\})|([()|?*+]))'
)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "]": "]", "[": "[", "^": "^",
            "-": "-"}  # fmt: skip


def _characters(text: str) -> list[tuple[str, bool]]:
    """The characters of a literal's or class's text, each with whether it was escaped."""
    chars, at = [], 0
    while at < len(text):
        if text[at] != "\\":
            chars.append((text[at], False))
            at += 1
        elif text[at + 1] in "xu":
            width = 2 if text[at + 1] == "x" else 4
            chars.append((chr(int(text[at + 2 : at + 2 + width], 16)), True))
            at += 2 + width
        else:
            chars.append((_ESCAPES[text[at + 1]], True))
            at += 2
    return chars


def _char_class(text: str) -> tuple[bool, list[tuple[str, str]]]:
    """`[...]` as (negated, ranges); an unescaped `-` between two characters is a range."""
    body = text[1:-1]
    negated = body.startswith("^")
    chars = _characters(body[1:] if negated else body)
    ranges, at = [], 0
    while at < len(chars):
        if at + 2 < len(chars) and chars[at + 1] == ("-", False):
            ranges.append((chars[at][0], chars[at + 2][0]))
            at += 3
        else:
            ranges.append((chars[at][0], chars[at][0]))
            at += 1
    return negated, ranges


def parse(text: str) -> dict[str, Any]:
    """The rules of a GBNF text (one rule per line)."""
    rules = {}
    for line in text.splitlines():
        if line.strip():
            name, _, body = line.partition(" ::= ")
            tokens = [m for m in _TOKEN.finditer(body)]
            node, rest = _alternatives(tokens, 0)
            assert rest == len(tokens), f"unparsed GBNF: {line!r}"
            rules[name.strip()] = node
    return rules


def _alternatives(tokens: list[re.Match[str]], at: int) -> tuple[Any, int]:
    options = []
    while True:
        sequence, at = _sequence(tokens, at)
        options.append(sequence)
        if at < len(tokens) and tokens[at][5] == "|":
            at += 1
            continue
        return ("alt", options), at


def _sequence(tokens: list[re.Match[str]], at: int) -> tuple[Any, int]:
    items = []
    while at < len(tokens) and tokens[at][5] not in ("|", ")"):
        token = tokens[at]
        if token[1]:
            item: Any = ("lit", "".join(c for c, _ in _characters(token[1][1:-1])))
        elif token[2]:
            item = ("cls", *_char_class(token[2]))
        elif token[3]:
            item = ("ref", token[3])
        elif token[5] == "(":
            item, at = _alternatives(tokens, at + 1)
            assert tokens[at][5] == ")"
        else:
            raise AssertionError(f"unexpected GBNF token {token[0]!r}")
        at += 1
        while at < len(tokens) and (tokens[at][4] or tokens[at][5] in ("?", "*", "+")):
            op = tokens[at][4] or tokens[at][5]
            low, high = {"?": (0, 1), "*": (0, None), "+": (1, None)}.get(op, (None, None))
            if op.startswith("{"):
                lo, _, hi = op[1:-1].partition(",")
                low, high = int(lo or 0), (int(hi) if hi else (None if "," in op else int(lo)))
            item = ("rep", item, low, high)
            at += 1
        items.append(item)
    return ("seq", items), at


class Recognizer:
    def __init__(self, gbnf: str) -> None:
        self.rules = parse(gbnf)

    def accepts(self, text: str) -> bool:
        """Whether `root` matches the whole of `text`."""
        return len(text) in self.ends(text, 0)

    def ends(self, text: str, at: int) -> frozenset[int]:
        """Where a match of `root` in `text` that starts at `at` can end."""
        self.text, self.memo = text, {}
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20 * len(text) + 1000))
        try:
            return self._ends(("ref", "root"), at)
        finally:
            sys.setrecursionlimit(limit)

    def _ends(self, node: Any, at: int) -> frozenset[int]:
        key = (id(node), at)
        if key not in self.memo:
            self.memo[key] = frozenset()  # a left-recursive loop matches nothing more
            self.memo[key] = self._match(node, at)
        return self.memo[key]

    def _match(self, node: Any, at: int) -> frozenset[int]:
        kind, text = node[0], self.text
        if kind == "lit":
            return frozenset([at + len(node[1])]) if text.startswith(node[1], at) else frozenset()
        if kind == "cls":
            if at >= len(text):
                return frozenset()
            inside = any(low <= text[at] <= high for low, high in node[2])
            return frozenset([at + 1]) if inside != node[1] else frozenset()
        if kind == "ref":
            return self._ends(self.rules[node[1]], at)
        if kind == "alt":
            return frozenset().union(*(self._ends(option, at) for option in node[1]))
        if kind == "seq":
            positions = frozenset([at])
            for item in node[1]:
                positions = frozenset().union(*(self._ends(item, p) for p in positions))
            return positions
        _, item, low, high = node
        reached, frontier, count = set(), {at}, 0
        if low == 0:
            reached.add(at)
        while frontier and (high is None or count < high):
            count += 1
            frontier = set().union(*(self._ends(item, p) for p in frontier)) - (
                reached if count > low else set()
            )
            if count >= low:
                reached |= frontier
        return frozenset(reached)
