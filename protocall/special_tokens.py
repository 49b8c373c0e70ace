"""Special tokens: markers recognised only where they arrived as special tokens.

A model's vocabulary holds most protocol markers (`<tool_call>`, `<|tool_call_begin|>`) as
single special tokens. A model can also spell the same text out of ordinary tokens, when it
copies a document or a user message that contains it; read as text alone, that copy would
open a call (marker injection). A session told which texts are special tokens (the
`special_tokens` option) reads them as markers only where they arrived as special tokens
(`Session.feed(text, special=True)`); an occurrence in ordinary text stays text, verbatim.

How, without touching any grammar: before ordinary text reaches the grammar, the first
character of every occurrence of a special token in it is replaced by a stand-in (a Unicode
noncharacter, which no grammar matches), so no marker that contains the token can match
there; everything the grammar gives back (text, names, argument values, raw error text) has
the stand-ins put back. One character for one: stream offsets are unchanged. A character
that is itself one of the stand-ins, in any text fed, is shifted to the next unused one in a
fixed sequence (the 66 noncharacters, the last 1,022 private-use characters, the lone
surrogates), so putting back is exact, but for two limits at the far end of that sequence
(as many characters as the tokens have distinct first characters, usually one or two): its
last lone surrogates cannot be fed (a `UsageError`: a lone surrogate is not text),
and its last private-use characters (U+10FFFD, ...) are shifted to lone surrogates, which a
format whose arguments are Python literals writes as `\\u` escapes in its arguments JSON,
where they would come back escaped.

An ordinary tail that is a proper prefix of a special token is held back until the next
input decides it (at most the longest token's length), so the result does not depend on how
the text is chunked; at the end of the stream it is masked too: ordinary text cannot end in
a truncated special token.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from .combinators import UsageError
from .combinators.text import longest_first, proper_prefixes

_NONCHARACTERS = [chr(c) for c in range(0xFDD0, 0xFDF0)] + [
    chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF)
]
_SEQUENCE = [
    *_NONCHARACTERS,
    *map(chr, range(0x10FC00, 0x10FFFE)),  # the end of the last private use plane
    *map(chr, range(0xD800, 0xE000)),  # lone surrogates, which text never holds
]
"""The stand-ins, in order: the first ones stand for special tokens' first characters, each
further one for a character of this sequence that arrived in the text itself."""
_IN_SEQUENCE = "".join(_NONCHARACTERS) + "\U0010fc00-\U0010fffd\ud800-\udfff"
_STAND_INS = re.compile(f"[{_IN_SEQUENCE}]")


class SpecialTokens:
    """The special-token texts of one session and the text kept back between feeds.

    `ordinary(text)` and `special(text)` give the text to parse for the next input (ordinary
    text with its occurrences of special tokens masked, a tail that could still become one
    held back); `flush()` gives the held tail at the end of the stream; `restore` and
    `restore_value` put the masked characters back in what the grammar gives. `masked`
    tells whether any text given so far was changed (until then there is nothing to put
    back).
    """

    __slots__ = (
        "_held",
        "_hold",
        "_longest",
        "_masks",
        "_maybe",
        "_shift",
        "_stand_in",
        "_tokens",
        "_top",
        "masked",
        "tokens",
    )

    def __init__(self, texts: Iterable[str]) -> None:
        tokens = tuple(dict.fromkeys(texts))
        if not tokens or not all(isinstance(t, str) and t for t in tokens):
            raise UsageError(f"special_tokens must be non-empty strings, got {tokens!r}")
        firsts = "".join(sorted({token[0] for token in tokens}))
        if _STAND_INS.search(firsts):
            raise UsageError("a special token cannot start with a noncharacter or a surrogate")
        self.tokens = tokens
        self._stand_in, self._shift, self._masks, self._top = _tables(firsts)
        self._tokens, self._hold, self._maybe = _patterns(tokens, firsts)
        self._longest = max(map(len, tokens))
        self._held = ""
        self.masked = False

    def ordinary(self, text: str) -> str:
        """The part of ordinary `text` (after the held tail) that can be parsed now."""
        if not self._held and self._maybe.search(text) is None:
            return text  # the common delta: nothing that could start a special token
        text = self._held + self._shifted(text)
        hold = self._hold.search(text, max(len(text) - self._longest + 1, 0))
        cut = len(text) if hold is None else hold.start()
        self._held = text[cut:]
        return self._mask(text, cut)[:cut]

    def special(self, text: str) -> str:
        """The held tail and `text`, which arrived as special tokens (parsed as is; an
        occurrence that starts in the held tail is still ordinary text; no text: nothing)."""
        if not text:
            return ""
        held, self._held = self._held, ""
        text = self._shifted(text)
        return self._mask(held + text, len(held)) if held else text

    def flush(self) -> str:
        """The held tail, at the end of the stream: each special token, or beginning of one,
        in it masked (ordinary text cannot end in a truncated special token)."""
        held, self._held = self._held, ""
        held = self._mask(held, len(held))
        starts = [p for p in range(len(held)) if self._hold.match(held, p)]
        if not starts:
            return held
        self.masked = True
        chars = list(held)
        for start in starts:
            chars[start] = self._stand_in[held[start]]
        return "".join(chars)

    def restore(self, text: str) -> str:
        """`text` from the grammar with every masked character put back (a search first:
        `translate` with a table costs a lookup per character)."""
        return text if _STAND_INS.search(text) is None else text.translate(self._masks)

    def restore_value(self, value: Any) -> Any:
        """A parsed value (strings, lists, dicts) with every masked character put back."""
        if isinstance(value, str):
            return self.restore(value)
        if isinstance(value, dict):
            return {self.restore_value(k): self.restore_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.restore_value(v) for v in value]
        return value

    def _shifted(self, text: str) -> str:
        """`text` with each stand-in character it holds shifted to the next in sequence."""
        if _STAND_INS.search(text) is None:
            return text
        bad = next((c for c in text if c in self._top), None)
        if bad is not None:
            raise UsageError(f"U+{ord(bad):04X} (a lone surrogate) is not text")
        self.masked = True
        return text.translate(self._shift)

    def _mask(self, text: str, limit: int) -> str:
        """`text` with the first character of each special token starting before `limit`
        replaced by its stand-in (overlapping occurrences included)."""
        chars: list[str] | None = None
        match = self._tokens.search(text)
        while match is not None and match.start() < limit:
            start = match.start()
            if chars is None:
                chars = list(text)
                self.masked = True
            chars[start] = self._stand_in[text[start]]
            match = self._tokens.search(text, start + 1)
        return text if chars is None else "".join(chars)


@functools.lru_cache(maxsize=64)
def _patterns(
    tokens: tuple[str, ...], firsts: str
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """For `tokens` starting with the characters `firsts`: the regexes that find a token,
    a proper prefix of one ending the text, and a character that may start one (built
    once per set: a server passes the same special tokens to every session)."""
    return (
        re.compile(longest_first(tokens)),
        re.compile(f"(?:{proper_prefixes(sorted(tokens))})\\Z"),
        re.compile(f"[{re.escape(firsts)}{_IN_SEQUENCE}]"),
    )


@functools.lru_cache(maxsize=64)
def _tables(firsts: str) -> tuple[dict[str, str], dict[int, str], dict[int, str], frozenset[str]]:
    """For special tokens starting with the characters `firsts`: each first character's
    stand-in, the shift of characters of the sequence that arrive as text, the table that
    puts both back, and the characters that cannot be fed (built once per set: sessions
    are built per request)."""
    width = len(firsts)
    stand_in = {first: _SEQUENCE[i] for i, first in enumerate(firsts)}
    shift = {ord(c): _SEQUENCE[i + width] for i, c in enumerate(_SEQUENCE[:-width])}
    masks = {ord(_SEQUENCE[i]): first for i, first in enumerate(firsts)}
    masks.update({ord(shifted): chr(code) for code, shifted in shift.items()})
    return stand_in, shift, masks, frozenset(_SEQUENCE[-width:])
