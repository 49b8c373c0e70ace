"""The analyses every parser answers, from the grammar alone, and those of the sequencing
combinators (`seq`, `map`, `bind`, `desc`, `forward`, `end_of_input`).

- `glance(window)`: what the parser does where the input starts with `window`, when those
  characters decide it (see `glance.Glance`), or None. Worked out once per window.
- `reach()`: how many characters are worth a glance (as many as its leading literals have).
- `waits()`: with no input at its position yet, it can only wait for some (it decides,
  emits and commits nothing before a character arrives).
- `deciders(window)`: parsers starting where it starts whose failure there, all of them,
  makes it fail there too, for a caller that asks each (`fails_at`) where the glance
  leaves it undecided; None: none known.
- `fails_at(inp, pos)`: whether the parser fails at `pos`, told without running it in the
  grammar: True, or None while the input so far does not tell; False when it does not
  fail there or cannot tell (the default).
"""

from __future__ import annotations

from typing import Any

from ..combinators.parser import Bind, Desc, EndOfInput, Forward, Map, Parser, Seq, Wrapper
from ..combinators.stream import Input
from .cache import Cache
from .glance import EMPTY, WAITING, Glance, before_value, failing
from .learned import running
from .registry import analysis

GLANCES = 256
"""Windows whose outcome a parser keeps."""
REACH = 96
"""The longest window glanced at."""
_UNSEEN: Any = object()


def glance(self: Any, window: str) -> Glance | None:
    """What this parser does at a position where the input starts with `window`, when
    those characters decide it whatever follows (see `Glance`), or None: it may read
    further, or is not analysed. Worked out once per window (a cache, the grammar's, or
    the run's once it has learned something: see `Learned`; None meanwhile: a recursive
    grammar's cycle is undecided). An empty window (a sequence glancing past the
    characters there are) is `WAITING` for a parser that `waits`: the characters after
    it decide, so a choice waits for them rather than run it."""
    if not window:
        return WAITING if self.waits() else None
    learned = running.learned
    if learned is None:
        memo: Cache[str, Glance | None] | None = self.__dict__.get("_glances")
        if memo is None:
            memo = self.__dict__["_glances"] = Cache(GLANCES)
    else:
        memo = learned.cache(self, "_glances", GLANCES)
    found: Glance | None = memo.get(window, _UNSEEN)  # one lookup: a thread may clear it
    if found is not _UNSEEN:
        return found
    pending, key = running.pending, (id(self), window)
    if key in pending:
        return None
    pending.add(key)
    try:
        outcome = self._glance(window)
    finally:
        pending.discard(key)
    return memo.keep(window, outcome)


def reach(self: Any) -> int:
    """How many characters are worth a `glance` (at least 1, at most `REACH`), once."""
    found: int | None = self.__dict__.get("_reached")
    if found is None:
        pending, key = running.pending, (id(self), None)
        if key in pending:
            return 1  # meanwhile, for a recursive grammar
        pending.add(key)
        try:
            found = min(max(self._reach(), 1), REACH)
        finally:
            pending.discard(key)
        self.__dict__["_reached"] = found
    return found


def glance_of(parser: Parser[Any], window: str) -> Glance | None:
    """`parser.glance(window)`, for callers the type checker sees (every parser has the
    analyses from `protocall.shortcuts` on, installed for good)."""
    analysed: Any = parser
    found: Glance | None = analysed.glance(window)
    return found


def deciders_of(parser: Parser[Any], window: str) -> tuple[Parser[Any], ...] | None:
    """`parser.deciders(window)`, as `glance_of`."""
    analysed: Any = parser
    found: tuple[Parser[Any], ...] | None = analysed.deciders(window)
    return found


def _seq_glance(self: Any, window: str) -> Glance | None:
    outcome = EMPTY
    for parser in self.parsers:
        glance = parser.glance(window[outcome.at :])
        if glance is None:
            return None
        outcome = outcome.then(glance)
        if glance.expected is not None or glance.waits:
            break
    return outcome


def wrapped_deciders(self: Any, window: str) -> tuple[Parser[Any], ...] | None:
    """The deciders of a parser whose failure is its `parser`'s."""
    deciders: tuple[Parser[Any], ...] | None = self.parser.deciders(window)
    return deciders


def wrapped_glance(self: Any, window: str) -> Glance | None:
    """The glance of a parser that does what its `parser` does."""
    found: Glance | None = self.parser.glance(window)
    return found


def _desc_glance(self: Any, window: str) -> Glance | None:
    found = self.parser.glance(window)
    return None if found is None else found.named(self.description)


def _none(self: Any, *args: Any) -> None:
    return None


def _false(self: Any, *args: Any) -> bool:
    return False


def _fails_at(self: Any, inp: Input, pos: int) -> bool | None:
    return False  # cannot tell


analysis(Parser, "glance", glance)
analysis(Parser, "_glance", _none)
analysis(Parser, "reach", reach)
analysis(Parser, "_reach", lambda self: 1)
analysis(Parser, "deciders", _none)
analysis(Parser, "fails_at", _fails_at)
analysis(Parser, "waits", _false)
analysis(Wrapper, "_reach", lambda self: self.parser.reach())
analysis(Wrapper, "waits", lambda self: self.parser.waits())
analysis(Seq, "_glance", _seq_glance)
analysis(Seq, "_reach", lambda self: sum(parser.reach() for parser in self.parsers))
analysis(Seq, "deciders", lambda self, w: self.parsers[0].deciders(w) if self.parsers else None)
analysis(Seq, "waits", lambda self: bool(self.parsers) and self.parsers[0].waits())
analysis(Map, "_glance", wrapped_glance)
analysis(Bind, "_glance", lambda self, window: before_value(self.parser.glance(window)))
analysis(Bind, "deciders", wrapped_deciders)
analysis(Desc, "_glance", _desc_glance)
analysis(Forward, "_glance", lambda self, w: None if self.parser is None else self.parser.glance(w))
analysis(Forward, "_reach", lambda self: 1 if self.parser is None else self.parser.reach())
analysis(Forward, "waits", lambda self: self.parser is not None and self.parser.waits())
analysis(EndOfInput, "_glance", lambda self, window: failing(("end of input",)))
analysis(EndOfInput, "waits", lambda self: True)
