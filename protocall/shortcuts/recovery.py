"""Recovery's shortcuts: a `recurring` parser learns the failing headers that recur, and
`recover` waits for a repeated header without a resume.

A header that fails before any cut (a call head the next repetition breaks off,
`<tool_call>\n<function=get_w<tool_call>…`) is no region: the text around it is content,
and only `glance` can spare the parse, where the grammar alone does not decide it (a tool
name is read to its end). A `recurring(parser)` learns such a header where it recurs: the
second time `parser` fails on the same text (from its start through the failing
character) elsewhere in the input, that text is replayed on a scratch input, and if it
fails the same way there, the glance knows the outcome wherever the input starts with it.
Where the input starts with such a header, the glance is the failure `parser` raises there
(with what it records), and where the input is a proper start of it, `WAITING`.

A failure is learned where `parser` raises it before any cut (the choice around it still
undecided) on a header it failed on before (one of the latest `KNOWN`) elsewhere in the
input, the header being at most `LEARNED` characters: replayed on a scratch input, it must
fail the same way there, before any cut. What it learns is the run's (`Input.learned`, see
`Learned`: the grammar is shared by the sessions of a tool set), and so are, from then
on, the run's glances and what they decide; glances it gave before are forgotten then, its
own and what the parsers it `informs` cached from them (another caller that cached an
undecided glance runs the parser, as it did).
"""

from __future__ import annotations

import functools
from collections.abc import Generator
from typing import Any

from ..combinators.parser import Step
from ..combinators.recovery import Recover, Recurring, scratch_failure, starts_with
from ..combinators.result import Backtrack
from ..combinators.stream import Choice, Input
from .cache import Cache
from .glance import WAITING, Glance, scratch_glance
from .learned import Learned, running
from .parser import wrapped_deciders
from .registry import analysis, install

LEARNED = 96
"""The longest header `recurring` learns (no longer than the widest glance,
`parser.REACH`), and how many characters it is worth a glance at."""

KNOWN = 16
"""Headers a `recurring` parser keeps per run (a cache: cleared when full)."""

_NOTHING: dict[str, Any] = {}
"""The headers known to a run that has learned none (never written)."""


def _known(self: Any, learned: Learned | None) -> dict[str, Glance]:
    """The run's learned headers: the text that decides a recurring failure, and the
    failure's glance."""
    if learned is None:
        return _NOTHING
    known: dict[str, Glance] | None = learned.headers.get(self)
    if known is None:
        known = learned.headers[self] = {}
    return known


def recurring_step(self: Recurring, inp: Input, pos: int) -> Step[Any]:
    """`Recurring.step`, noting each failure before any cut (`_met`)."""
    choices = inp.choices
    around: Choice | None = choices[-1] if choices and not choices[-1].committed else None
    try:
        return (yield from self.parser.step(inp, pos))
    except Backtrack as failure:
        if around is not None and not around.committed and choices[-1] is around:
            _met(self, inp, pos, failure)
        raise


def _met(self: Recurring, inp: Input, pos: int, failure: Backtrack) -> None:
    """Note a failure before any cut at `pos`; learn it where it recurs."""
    at = failure.position
    if not pos <= at < min(inp.end, pos + LEARNED) or pos < inp.base:
        return
    header = inp.text(pos, at + 1)
    if any(header.startswith(decided) for decided in _known(self, inp.learned)):
        return  # known: a caller ran `parser` on a glance it had cached
    seen: dict[str, int] = inp.local.setdefault(self, {})  # latest headers, where they began
    if seen.get(header, pos) == pos:  # not seen, or tried again where it was
        if len(seen) >= KNOWN:
            seen.clear()
        seen[header] = pos
        return
    failed = scratch_failure(self.parser, header, at_once=True)
    if failed is None or failed.committed or not failed.fails(at - pos, failure.expected):
        return
    raised = failed.failure
    learned = inp.learned
    if learned is None:  # the run learns: its glances are its own from now on
        learned = inp.learned = running.learned = Learned()
    known = _known(self, learned)
    if len(known) >= KNOWN:
        known.clear()
    known[failed.decided] = scratch_glance(raised, failed.far)
    for parser in (self, *self.informed):  # what they glanced before, from the old glance
        learned.caches.pop(parser, None)


def _recurring_glance(self: Any, window: str) -> Glance | None:
    glance: Glance | None = self.parser.glance(window)
    learned = running.learned
    if glance is not None or learned is None:
        return glance
    for decided, known in _known(self, learned).items():
        if window.startswith(decided):
            return known
        if decided.startswith(window):
            return WAITING
    return None


def _recover_deciders(self: Any, window: str) -> tuple[Any, ...] | None:
    # not with `cut_off`: a failure at the end of a finished stream may be recovered
    return None if self.cut_off else wrapped_deciders(self, window)


def follows(inp: Input, at: int, text: str) -> Generator[int, None, bool]:
    """`Recover.follows`, buffering more of `text` without a resume while it arrives."""
    while (starts := starts_with(inp, at, text)) is None:
        inp.fast = _Following(text, at)
        yield at
        inp.fast = None
    return starts


PLAIN_DECIDING = Recover.deciding


class _Deciding(Recover):
    """The attributes the shortcuts give it (for the type checker only)."""

    decided: Cache[None, str]  # the last text that decided a failure


def _deciding(self: _Deciding, header: str, offset: int, expected: tuple[str, ...]) -> str | None:
    """`Recover.deciding`, remembering the last text that decided (a header that starts
    with it is decided by it: a run of regions failing alike works it out once)."""
    decided = self.decided.get(None)
    if decided is None or not header.startswith(decided):
        decided = PLAIN_DECIDING(self, header, offset, expected)
        if decided is not None:
            self.decided.keep(None, decided)
    return decided


class _Following:
    """`_follows` waiting at `at` for the rest of `text`: more input that keeps what has
    arrived there a proper prefix of it is only buffered, without resuming the parser
    tree (a run of repetitions then costs a string comparison per delta)."""

    __slots__ = ("at", "text")

    def __init__(self, text: str, at: int) -> None:
        self.text = text
        self.at = at

    def absorb(self, inp: Input, more: str) -> tuple[str, int] | None:
        have = inp.buf[self.at - inp.base :] + more
        if len(have) >= len(self.text) or not self.text.startswith(have):
            return None
        inp.append(more)
        return "", self.at


install(Recurring, "step", recurring_step)
analysis(Recurring, "_glance", _recurring_glance)
analysis(Recurring, "_reach", lambda self: max(self.parser.reach(), LEARNED))
analysis(Recurring, "deciders", wrapped_deciders)  # asked where the glance is undecided
# A failure before any cut passes through, and where the window is, the input did not end:
# a region the window rules out is ruled out.
analysis(Recover, "_glance", lambda self, window: self.parser.glance(window))
analysis(Recover, "deciders", _recover_deciders)
install(Recover, "follows", staticmethod(follows))
install(Recover, "deciding", _deciding)
install(Recover, "decided", functools.cached_property(lambda self: Cache(1)))
