"""JSON Schema `pattern`s as GBNF: the regular expressions every engine reads in linear
time (literals, `.`, classes, `\\d \\w \\s` and their negations, groups, `|`, `? * + {m,n}`,
`^` first and `$` last), written over the characters of a JSON string as a model writes
them: raw where JSON allows, `"`, `\\` and control characters as their JSON escapes.
Anything else (back-references, look-arounds, `\\b`, `\\D \\W \\S`, an anchor inside, a
Unicode property) is `None`: the writer drops the pattern and reports it. Where a
validator's regular expressions differ (Python's `$` also before a final newline, its
Unicode `\\d \\w \\s`), the GBNF is the narrower: it admits no string the parser's
validation refuses."""

from __future__ import annotations

import re

_SHORT = {
    "d": ("0", "9"),
    "w": ("0", "9", "A", "Z", "_", "_", "a", "z"),
    "s": ("\t", "\r", " ", " "),
}
"""The ranges of the class escapes, ASCII only: narrower than a validator's Unicode `\\d`,
`\\w` and `\\s`, never wider (so their negations, which would be wider, are outside the
subset)."""
_LITERAL_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\x0c", "v": "\x0b", "0": "\x00"}
_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                 "\x08": "\\b", "\x0c": "\\f"}  # fmt: skip
_MAX_REPEAT = 1000
"""The largest count `{m,n}` may give (a larger one would blow up the grammar)."""


class _Unsupported(Exception):
    """The pattern is outside the subset."""


def gbnf_pattern(pattern: str) -> str | None:
    """The GBNF of a JSON string's characters (without its quotes) that `pattern` matches
    (searched, as JSON Schema does: unanchored ends may hold any characters), or None
    where the pattern is outside the subset."""
    try:
        reader = _Reader(pattern)
        body = reader.alternatives()
        if reader.at != len(pattern):
            raise _Unsupported
        if reader.branches and (reader.anchored_start or reader.anchored_end):
            raise _Unsupported  # `^a|b`: an anchor of one branch only
    except (_Unsupported, IndexError, ValueError):
        return None
    anything = '([^"\\\\\\x00-\\x1f] | ' + _escaped_any() + ")*"
    return " ".join(
        part for part in (
            "" if reader.anchored_start else anything, f"({body})",
            "" if reader.anchored_end else anything,
        ) if part
    )  # fmt: skip


def _escaped_any() -> str:
    return '"\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})'


class _Reader:
    """A recursive-descent reader of the subset, writing GBNF as it goes."""

    def __init__(self, pattern: str) -> None:
        self.text, self.at = pattern, 0
        self.anchored_start = pattern.startswith("^")
        self.at = int(self.anchored_start)
        self.anchored_end = False
        self.depth, self.branches = 0, False  # nesting; a `|` at the top level

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def alternatives(self) -> str:
        options = [self.sequence()]
        while self.peek() == "|":
            self.branches = self.branches or not self.depth
            self.at += 1
            options.append(self.sequence())
        return " | ".join(options)

    def sequence(self) -> str:
        items = []
        while self.peek() not in ("", "|", ")"):
            if self.peek() == "$":
                self.at += 1
                if self.at != len(self.text):
                    raise _Unsupported  # `$` only at the very end
                self.anchored_end = True
                break
            items.append(self.quantified(self.atom()))
        return " ".join(items) or '""'

    def atom(self) -> str:
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
            return f"({inner})"
        if char == "[":
            return self.char_class()
        if char == ".":
            return _class_of([("\n", "\n")], negated=True)
        if char == "\\":
            return self.escape()
        if char in "*+?{^":
            raise _Unsupported
        return _class_of([(char, char)])

    def escape(self) -> str:
        char = self.peek()
        self.at += 1
        if char in _SHORT:
            return _class_of(_pairs(_SHORT[char]))
        return _class_of([(self._escaped_char(char),) * 2])

    def _escaped_char(self, char: str) -> str:
        if char in _LITERAL_ESCAPES:
            return _LITERAL_ESCAPES[char]
        if char in ("x", "u"):
            width = 2 if char == "x" else 4
            digits = self.text[self.at : self.at + width]
            if not re.fullmatch(f"[0-9a-fA-F]{{{width}}}", digits):
                raise _Unsupported
            self.at += width
            return chr(int(digits, 16))
        if char.isalnum():
            raise _Unsupported  # \b, \B, back-references, \p{…}
        return char

    def char_class(self) -> str:
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
        return _class_of(ranges, negated)

    def quantified(self, atom: str) -> str:
        char = self.peek()
        if char and char in "*+?":
            self.at += 1
            written = f"({atom}){char}"
        elif char == "{" and re.match(r"\{\d+(,\d*)?\}", self.text[self.at :]):
            found = re.match(r"\{(\d+)(,(\d*))?\}", self.text[self.at :])
            assert found is not None
            self.at += found.end()
            least = int(found[1])
            most = least if found[2] is None else (int(found[3]) if found[3] else None)
            if max(least, most or 0) > _MAX_REPEAT or (most is not None and most < least):
                raise _Unsupported
            written = f"({atom}){{{least},{'' if most is None else most}}}"
        else:
            return atom
        if self.peek() == "?":  # lazy: the same language
            self.at += 1
        if self.peek() in ("*", "+", "?", "{"):
            raise _Unsupported  # possessive or doubled quantifiers
        return written


def _pairs(flat: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


def _class_of(ranges: list[tuple[str, str]], negated: bool = False) -> str:
    """One character of `ranges` (or of none of them) as a JSON string writes it: raw where
    JSON allows it, else escaped (an escape for `"`, `\\` and each control character)."""
    special = [c for c in ('"', "\\", *map(chr, range(0x20)))
               if any(low <= c <= high for low, high in ranges) != negated]  # fmt: skip
    if negated:
        raw = "[^" + "".join(map(_range, ranges)) + '"\\\\\\x00-\\x1F]'
    else:
        kept = _raw(ranges)
        raw = "[" + "".join(map(_range, kept)) + "]" if kept else ""
    options = [raw] if raw else []
    if len(special) == 0x22:  # every one: any control character's escape
        special = ['"', "\\", *(c for c in _JSON_ESCAPES if c not in '"\\')]
        options.append('"\\\\u00" [01] [0-9a-fA-F]')
    options += ['"' + _gbnf_escape(_JSON_ESCAPES.get(c, f"\\u{ord(c):04x}")) + '"' for c in special]
    if not options:
        raise _Unsupported  # a class of no character
    return "(" + " | ".join(options) + ")" if len(options) > 1 else options[0]


def _raw(ranges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`ranges` without the characters JSON escapes (`"`, `\\`, the controls)."""
    kept = []
    for low, high in ranges:
        start = max(ord(low), 0x20)
        for cut in (0x22, 0x5C, ord(high) + 1):
            if start < cut:
                end = min(cut - 1, ord(high))
                if start <= end:
                    kept.append((chr(start), chr(end)))
            start = max(start, cut + 1)
    return kept


def _range(pair: tuple[str, str]) -> str:
    low, high = pair
    return _class_char(low) if low == high else f"{_class_char(low)}-{_class_char(high)}"


def _class_char(char: str) -> str:
    if char in "\\]^-[":
        return "\\" + char
    if char.isprintable():
        return char
    return f"\\x{ord(char):02X}" if ord(char) < 0x100 else f"\\u{ord(char):04X}"


def _gbnf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
