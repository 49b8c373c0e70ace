"""A string's `pattern`, `format` and lengths as one regular expression over the characters
of a string literal as a model writes them: JSON's (raw where JSON allows, `"`, `\\` and
control characters as their JSON escapes), a Python literal's (`repr`'s escapes), or raw
text (no escapes: the characters that begin a marker left out).

The regular expressions are those every engine reads in linear time (literals, `.`,
classes, `\\d \\w \\s` and their negations, groups, `|`, `? * + {m,n}`, `^` first and `$`
last), written in the subset GBNF and Lark share (`ranges`: classes, groups, `|`,
quantifiers; a literal character is a class of one). Anything else (back-references,
look-arounds, `\\b`, `\\D \\W \\S`, an anchor inside, a Unicode property) is outside: the
writer drops the pattern and reports it. Where a validator's regular expressions differ
(Python's `$` also before a final newline, its Unicode `\\d \\w \\s`), the expression is the
narrower: it admits no string the parser's validation refuses.

Lengths and a pattern (or format) together are one expression where the pattern's
strings vary in length in one place only (`^[a-z_]+$` with `maxLength` 64: `[a-z_]{1,64}`,
or a fixed part and one repetition); a length the pattern implies (`^[A-Z]{3}$` and
`minLength` 3) needs nothing more. Otherwise the lengths the pattern does not imply are
dropped (see `string`). Each unit of a length-bounded expression spells exactly one
character (no `\\u` escape of a surrogate, whose pair is one character).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_SHORT = {
    "d": ("0", "9"),
    "w": ("0", "9", "A", "Z", "_", "_", "a", "z"),
    "s": ("\t", "\r", " ", " "),
}
"""The ranges of the class escapes, ASCII only: narrower than a validator's Unicode `\\d`,
`\\w` and `\\s`, never wider (so their negations, which would be wider, are outside the
subset)."""
_LITERAL_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\x0c", "v": "\x0b", "0": "\x00"}
_MAX_REPEAT = 1000
"""The largest count `{m,n}` may give (a larger one would blow up the grammar)."""
_HEX = "[0-9a-fA-F]"
_NOT_SURROGATE = f"([0-9a-cA-CefEF]{_HEX}{{3}}|[dD][0-7]{_HEX}{{2}})"
"""Four hex digits of a `\\u` escape that spells one character on its own."""

FORMATS = {
    "date": "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
    "time": "^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$",
    "uuid": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
}
FORMATS["date-time"] = FORMATS["date"][:-1] + "[Tt ]" + FORMATS["time"][1:]
"""The string formats written as patterns (RFC 3339's, a `uuid`'s)."""


class _Unsupported(Exception):
    """The pattern is outside the subset."""


# -- the expression -------------------------------------------------------------------


@dataclass(frozen=True)
class Chars:
    """One character of `ranges` (of none of them where `negated`)."""

    ranges: tuple[tuple[str, str], ...]
    negated: bool = False


@dataclass(frozen=True)
class Cat:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Rep:
    item: Expr
    least: int
    most: int | None


@dataclass(frozen=True)
class Filler:
    """Any text (an unanchored end of a pattern)."""


Expr = Chars | Cat | Or | Rep | Filler
ANY = Chars((), negated=True)


def _lengths(expr: Expr) -> tuple[int, int | None]:
    """The fewest and the most characters a match of `expr` has (None: no most)."""
    if isinstance(expr, Chars):
        return 1, 1
    if isinstance(expr, Filler):
        return 0, None
    if isinstance(expr, Rep):
        least, most = _lengths(expr.item)
        top = None if most is None or expr.most is None else most * expr.most
        return least * expr.least, top
    spans = [_lengths(item) for item in expr.items]
    lows = [least for least, _ in spans]
    tops = [most for _, most in spans if most is not None]
    combine = sum if isinstance(expr, Cat) else max
    high = combine(tops) if len(tops) == len(spans) else None
    return (sum(lows) if isinstance(expr, Cat) else min(lows)), high


def _bounded(expr: Expr, least: int, most: int | None) -> Expr | None:
    """`expr`'s matches of `least` to `most` characters, where that is an expression of the
    same shape (it varies in length in one place only), else None."""
    low, high = _lengths(expr)
    if low >= least and (most is None or (high is not None and high <= most)):
        return expr
    if isinstance(expr, Filler):
        expr = Rep(ANY, 0, None)
    if isinstance(expr, Rep):
        width, wide = _lengths(expr.item)
        if width != wide or not width:
            return None
        fewest = max(expr.least, math.ceil(least / width))
        tops = [n for n in (expr.most, None if most is None else most // width) if n is not None]
        top = min(tops) if tops else None
        return None if top is not None and top < fewest else Rep(expr.item, fewest, top)
    if isinstance(expr, Cat):
        spans = [_lengths(item) for item in expr.items]
        varying = [n for n, (low, high) in enumerate(spans) if low != high]
        if len(varying) != 1:
            return None
        fixed = sum(low for n, (low, _) in enumerate(spans) if n != varying[0])
        if most is not None and most < fixed:
            return None
        inner = _bounded(
            expr.items[varying[0]], max(least - fixed, 0), None if most is None else most - fixed
        )
        if inner is None:
            return None
        items = list(expr.items)
        items[varying[0]] = inner
        return Cat(tuple(items))
    if isinstance(expr, Or):
        kept = []
        for item in expr.items:
            low, high = _lengths(item)
            if (high is not None and high < least) or (most is not None and low > most):
                continue  # no match of this branch has a length allowed
            bounded = _bounded(item, least, most)
            if bounded is None:
                return None
            kept.append(bounded)
        return Or(tuple(kept)) if kept else None
    return None


# -- reading a pattern ----------------------------------------------------------------


def parse(pattern: str) -> Expr | None:
    """The expression of the strings `pattern` matches when searched, as JSON Schema does
    (unanchored ends may hold any text), or None where it is outside the subset."""
    try:
        reader = _Reader(pattern)
        body = reader.alternatives()
        if reader.at != len(pattern):
            raise _Unsupported
        if reader.branches and (reader.anchored_start or reader.anchored_end):
            raise _Unsupported  # `^a|b`: an anchor of one branch only
    except (_Unsupported, IndexError, ValueError):
        return None
    items: list[Expr] = [] if reader.anchored_start else [Filler()]
    items.append(body)
    items += [] if reader.anchored_end else [Filler()]
    return Cat(tuple(items))


class _Reader:
    """A recursive-descent reader of the subset."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.anchored_start = pattern.startswith("^")
        self.at = int(self.anchored_start)
        self.anchored_end = False
        self.depth, self.branches = 0, False  # nesting; a `|` at the top level

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def alternatives(self) -> Expr:
        options = [self.sequence()]
        while self.peek() == "|":
            self.branches = self.branches or not self.depth
            self.at += 1
            options.append(self.sequence())
        return options[0] if len(options) == 1 else Or(tuple(options))

    def sequence(self) -> Expr:
        items = []
        while self.peek() not in ("", "|", ")"):
            if self.peek() == "$":
                self.at += 1
                if self.at != len(self.text):
                    raise _Unsupported  # `$` only at the very end
                self.anchored_end = True
                break
            items.append(self.quantified(self.atom()))
        return items[0] if len(items) == 1 else Cat(tuple(items))

    def atom(self) -> Expr:
        char = self.peek()
        self.at += 1
        if char == "(":
            if self.text.startswith("?:", self.at):
                self.at += 2
            elif self.peek() == "?":
                raise _Unsupported  # look-arounds, named groups
            self.depth += 1
            inner = self.alternatives()
            self.depth -= 1
            if self.peek() != ")":
                raise _Unsupported
            self.at += 1
            return inner
        if char == "[":
            return self.char_class()
        if char == ".":
            return Chars((("\n", "\n"),), negated=True)
        if char == "\\":
            escaped = self.peek()
            self.at += 1
            if escaped in _SHORT:
                return Chars(_pairs(_SHORT[escaped]))
            return Chars(((self._escaped_char(escaped),) * 2,))
        if char in "*+?{^":
            raise _Unsupported
        return Chars(((char, char),))

    def _escaped_char(self, char: str) -> str:
        if char in _LITERAL_ESCAPES:
            return _LITERAL_ESCAPES[char]
        if char in ("x", "u"):
            width = 2 if char == "x" else 4
            digits = self.text[self.at : self.at + width]
            if not re.fullmatch(f"{_HEX}{{{width}}}", digits):
                raise _Unsupported
            self.at += width
            return chr(int(digits, 16))
        if char.isalnum():
            raise _Unsupported  # \b, \B, back-references, \p{…}
        return char

    def char_class(self) -> Expr:
        negated = self.peek() == "^"
        self.at += negated
        ranges: list[tuple[str, str]] = []
        first = True
        while self.peek() != "]" or first:
            first = False
            char = self.peek()
            self.at += 1
            if char == "\\":
                escaped = self.peek()
                self.at += 1
                if escaped in _SHORT:
                    ranges += _pairs(_SHORT[escaped])
                    continue
                char = self._escaped_char(escaped)
            elif char == "[":
                raise _Unsupported  # nested classes, `[:alpha:]`
            if self.peek() == "-" and self.text[self.at + 1] != "]":
                self.at += 1
                high = self.peek()
                self.at += 1
                if high == "\\":
                    high = self._escaped_char(self.text[self.at])
                    self.at += 1
                if high < char:
                    raise _Unsupported
                ranges.append((char, high))
            else:
                ranges.append((char, char))
        self.at += 1
        return Chars(tuple(ranges), negated)

    def quantified(self, atom: Expr) -> Expr:
        char = self.peek()
        if char and char in "*+?":
            self.at += 1
            least, most = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        elif char == "{" and re.match(r"\{\d+(,\d*)?\}", self.text[self.at :]):
            found = re.match(r"\{(\d+)(,(\d*))?\}", self.text[self.at :])
            assert found is not None
            self.at += found.end()
            least = int(found[1])
            most = least if found[2] is None else (int(found[3]) if found[3] else None)
            if max(least, most or 0) > _MAX_REPEAT or (most is not None and most < least):
                raise _Unsupported
        else:
            return atom
        if self.peek() == "?":  # lazy: the same language
            self.at += 1
        if self.peek() in ("*", "+", "?", "{"):
            raise _Unsupported  # possessive or doubled quantifiers
        return Rep(atom, least, most)


def _pairs(flat: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((flat[i], flat[i + 1]) for i in range(0, len(flat), 2))


# -- writing it -----------------------------------------------------------------------


@dataclass(frozen=True)
class Spelling:
    """How a string literal writes a character: raw unless it is one of `escaped`, and
    as its escape in `escapes` where it has one (so a character of `escaped` without one
    is never written); `groups`: sets of characters whose escapes one expression spells
    as a whole (JSON's `\\u00XX` of the control characters); `filler`: any one character,
    any escape included (an unanchored end, where no length counts characters)."""

    escaped: frozenset[str]
    escapes: tuple[tuple[str, str], ...]
    groups: tuple[tuple[frozenset[str], str], ...] = ()
    filler: str = ""


def _chars(text: str) -> str:
    """`text`, each character a class of one."""
    return "".join(f"[{_class_char(c)}]" for c in text)


_CONTROLS = frozenset(map(chr, range(0x20)))
_JSON_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\x08": "\\b", "\x0c": "\\f"}  # fmt: skip
JSON = Spelling(
    frozenset({'"', "\\"} | _CONTROLS),
    tuple((c, _JSON_SHORT.get(c, f"\\u{ord(c):04x}")) for c in sorted({'"', "\\"} | _CONTROLS)),
    ((_CONTROLS, f"[\\\\][u][0][0][01]{_HEX}"),),
    f'[^"\\\\\\x00-\\x1F]|[\\\\](["\\\\/bfnrt]|[u]{_HEX}{{4}})',
)
"""A JSON string's characters."""


_PYTHON_SHORT = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def python(quote: str) -> Spelling:
    """The characters of a Python string literal in `quote`: raw but for the quote, `\\`,
    a line break and NUL, and as `repr` escapes them (`\\'`, `\\n`, `\\x01`)."""
    escapes = {c: _PYTHON_SHORT.get(c, f"\\x{ord(c):02x}") for c in (*_CONTROLS, "\x7f", "\\")}
    escapes[quote] = "\\" + quote
    q = _class_char(quote)
    simple = f"[\\\\]([\\\\'\"abfnrtv]|[x]{_HEX}{{2}}|[u]{_NOT_SURROGATE})"
    filler = f"[^{q}\\\\\\n\\r\\x00]|{simple}"
    excluded = frozenset({quote, "\\", "\n", "\r", "\x00"})
    group = (_CONTROLS, f"[\\\\][x][01]{_HEX}")
    return Spelling(excluded, tuple(sorted(escapes.items())), (group,), filler)


def raw(markers: tuple[str, ...]) -> Spelling:
    """Raw text that holds none of `markers`: no character that begins one."""
    firsts = frozenset(marker[0] for marker in markers if marker)
    return Spelling(firsts, ())


RAW = raw(())
"""Raw text of any characters (for an engine that excludes the markers otherwise)."""


def string(schema: Mapping[str, Any], spelling: Spelling) -> tuple[str | None, frozenset[str]]:
    """The expression of a string literal's characters (without its quotes) valid for
    `schema`'s `format` (one of `FORMATS`) or else its `pattern`, and its lengths, and the
    keywords of those it writes (a length the pattern implies among them). None: a string
    of any characters (nothing written, or no character spelled)."""
    return _string(json.dumps(schema, sort_keys=True), spelling)


@functools.lru_cache(maxsize=512)
def _string(schema_text: str, spelling: Spelling) -> tuple[str | None, frozenset[str]]:
    schema = json.loads(schema_text)
    least, most = schema.get("minLength", 0), schema.get("maxLength")
    lengths = {k for k in ("minLength", "maxLength") if k in schema}
    keyword = "format" if schema.get("format") in FORMATS else "pattern"
    source = FORMATS.get(schema.get("format")) or schema.get("pattern")
    expr = parse(source) if isinstance(source, str) else None
    written = {keyword} if expr is not None else set()
    if expr is not None and lengths:
        bounded = _bounded(expr, least, most)
        if bounded is not None:
            expr, written = bounded, written | lengths
        else:  # the lengths the pattern implies
            low, high = _lengths(expr)
            written |= {"minLength"} & lengths if low >= least else set()
            implied = most is not None and high is not None and high <= most
            written |= {"maxLength"} & lengths if implied else set()
    elif lengths:
        expr, written = Rep(ANY, least, most), set(lengths)
    if expr is None:
        return None, frozenset()
    try:
        return _write(expr, spelling), frozenset(written)
    except _Unsupported:  # a class of no character the literal spells: lengths alone
        if written - lengths:
            return _string(json.dumps({k: schema[k] for k in lengths}), spelling)
        return None, frozenset()


def _write(expr: Expr, spelling: Spelling) -> str:
    if isinstance(expr, Chars):
        return _class_of(expr, spelling)
    if isinstance(expr, Filler):
        if not spelling.filler:
            return _write(Rep(ANY, 0, None), spelling)
        return f"({spelling.filler})*"
    if isinstance(expr, Rep):
        inner = f"({_write(expr.item, spelling)})"
        if (expr.least, expr.most) == (0, None):
            return inner + "*"
        if (expr.least, expr.most) == (1, None):
            return inner + "+"
        if (expr.least, expr.most) == (0, 1):
            return inner + "?"
        if expr.least == expr.most:
            return inner + f"{{{expr.least}}}"
        return inner + f"{{{expr.least},{'' if expr.most is None else expr.most}}}"
    if isinstance(expr, Cat):
        return "".join(_write(item, spelling) for item in expr.items)
    return "(" + "|".join(_write(item, spelling) for item in expr.items) + ")"


def _class_of(expr: Chars, spelling: Spelling) -> str:
    """One character of `expr` as the literal spells it: raw where it may, else its
    escape (none where it has none)."""
    ranges = expr.ranges

    def inside(char: str) -> bool:
        return any(low <= char <= high for low, high in ranges) != expr.negated

    escapes = dict(spelling.escapes)
    special = {c for c in escapes if inside(c)}
    if expr.negated:
        excluded = (*ranges, *_runs(spelling.escaped)) or (("\x00", "\x00"),)  # (as `free`)
        options = ["[^" + "".join(map(_range, excluded)) + "]"]
    else:
        kept = _without(ranges, spelling.escaped)
        options = ["[" + "".join(map(_range, kept)) + "]"] if kept else []
    for group, written in spelling.groups:
        if group <= special:  # its members' escapes that it spells need no other
            options.append(written)
            special -= {c for c in group if re.fullmatch(written, escapes[c])}
    options += [_chars(escapes[c]) for c in sorted(special) if c in escapes]
    if not options:
        raise _Unsupported  # a class of no character
    return "(" + "|".join(options) + ")" if len(options) > 1 else options[0]


def _without(ranges: tuple[tuple[str, str], ...], chars: frozenset[str]) -> list[tuple[str, str]]:
    """`ranges` without `chars`."""
    kept = []
    for low, high in ranges:
        start = ord(low)
        for cut in sorted(ord(c) for c in chars if low <= c <= high):
            if start < cut:
                kept.append((chr(start), chr(cut - 1)))
            start = cut + 1
        if start <= ord(high):
            kept.append((chr(start), high))
    return kept


def _runs(chars: frozenset[str]) -> list[tuple[str, str]]:
    """`chars` as ranges of consecutive characters."""
    runs: list[tuple[str, str]] = []
    for char in sorted(chars):
        if runs and ord(char) == ord(runs[-1][1]) + 1:
            runs[-1] = (runs[-1][0], char)
        else:
            runs.append((char, char))
    return runs


def _range(pair: tuple[str, str]) -> str:
    low, high = pair
    return _class_char(low) if low == high else f"{_class_char(low)}-{_class_char(high)}"


def _class_char(char: str) -> str:
    if char in "\\]^-[":
        return "\\" + char
    if char == "\n":
        return "\\n"
    if char.isprintable() or ord(char) > 0xFFFF:
        return char
    return f"\\x{ord(char):02X}" if ord(char) < 0x100 else f"\\u{ord(char):04X}"
