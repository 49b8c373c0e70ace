"""Recovery: a region whose failure is decided afterwards, reported as one `error` node.

A region is a parser run behind a barrier. Where it matches, its output flows on. Where it
fails, `Recover` decides whether the failure is the region's: a failure after a `cut` when
it has a way to resync, and a backtrack cut off by the end of the stream when it reads
`cut_off` regions. Such a failure makes the region's raw text one `error` node whose value is
a `Recovered`, so nothing is lost; any other failure passes through, the region's output
dropped.

A model stuck in a loop may repeat a header that fails the same way (`<|start|>` over and
over, a call written up to its arguments and broken off by the next). Where the grammar
tries the region again wherever one ends, `recover(..., runs=…)` takes such a run at once:
a region that the next one, failing the same way, would follow at once extends over it,
so the run is one `error` node (one report) and the repetitions after the first cost a
string comparison and the resync, not a parse.

A header that fails before any cut (a call head the next repetition breaks off,
`<tool_call>\n<function=get_w<tool_call>…`) is no region: the text around it is content,
and only `glance` can spare the parse, where the grammar alone does not decide it (a tool
name is read to its end). `recurring(parser)` learns such a header where it recurs: the
second time `parser` fails on the same text (from its start through the failing
character) elsewhere in the input, that text is replayed on a scratch input, and if it
fails the same way there, the glance knows the outcome wherever the input starts with it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, NamedTuple

from ..shortcuts.glance import WAITING, Glance, scratch_glance
from .parser import Parser, Step, Wrapper
from .result import Backtrack, ParseFailure
from .stream import Choice, Close, Far, Input, Learned, Open, Text, running

ERROR = "error"

HEADER = 256
"""The longest failing header (from a region's start to just past its failure) that a run
of repetitions is looked for after: a longer region ends where its resync stops."""

LEARNED = 96
"""The longest header `recurring` learns (no longer than the widest glance,
`parser._REACH`), and how many characters it is worth a glance at."""

KNOWN = 16
"""Headers a `recurring` parser keeps per run (a cache: cleared when full)."""

_NOTHING: dict[str, Any] = {}
"""The headers known to a run that has learned none (never written)."""


class Recovered:
    """What a recovered region gives: the failure, the raw text, where it started and
    whether the input ended inside it (`truncated`)."""

    __slots__ = ("failure", "raw", "start", "truncated")

    def __init__(self, failure: ParseFailure, raw: str, start: int, truncated: bool) -> None:
        self.failure = failure
        self.raw = raw
        self.start = start
        self.truncated = truncated

    def __repr__(self) -> str:
        return f"Recovered({self.raw!r}, truncated={self.truncated})"


class Recover(Wrapper[Any]):
    """Run `parser`; a failure that is the region's becomes an `error` node (see the module
    docstring), the match running on to where the region ends.

    - With `resync`, a failure after a cut: the region runs from the start to where
      `resync` (started where the failure happened; it must not fail, e.g. an `until`)
      stops. Nodes the region opened stay unclosed before it.
    - With `cut_off`, a failure before any cut at the very end of a finished stream, the
      region having started on some text: the region runs to the end, truncated, and what
      `parser` emitted is dropped. So an opener whose head was cut off
      (`<tool_call>\\n<function=get_w` at the end) is an unfinished call, never text.
    - With `runs` (and `resync`), for a region the grammar tries again wherever one ends
      (a branch of a loop's body), `runs` being the parsers it tries there first (the
      branches before it): where the text at the region's end starts with the text that
      decided its failure, and that text makes each of `runs` fail before any cut, the
      next region would fail the same way, so the region extends over it, resyncing
      from the same offset after its start, and so on. The node's `Recovered` keeps the
      first failure; its raw text is the whole run. It needs more while that text may
      still be arriving (at most `HEADER` characters past the region's end; more input
      that keeps it a proper start is buffered without a resume), and ends as it would
      alone where it does not arrive, or the input ends first.

    Needs more while `parser` does.
    """

    def __init__(
        self,
        parser: Parser[Any],
        resync: Parser[Any] | None,
        *,
        cut_off: bool = False,
        runs: tuple[Parser[Any], ...] | None = None,
    ) -> None:
        self.parser = parser
        self.resync = resync
        self.cut_off = cut_off
        self.runs = runs
        self._decided: str | None = None  # the last text that decided a failure (a cache)

    def step(self, inp: Input, pos: int) -> Step[Any]:
        barrier = inp.open_choice(pos, barrier=True)
        try:
            result = yield from self.parser.step(inp, pos)
        except ParseFailure as failure:
            after_cut = barrier.committed or not isinstance(failure, Backtrack)
            resync = self.resync if after_cut else None
            ended = inp.eof and failure.position >= inp.end > pos
            if resync is None and (after_cut or not (self.cut_off and ended)):
                inp.close_choice(barrier, keep_output=False)
                raise
            failure.detach()  # kept in the result: not the frames and failures it crossed
            end = inp.end
            if resync is not None:
                at = min(max(failure.position, pos, inp.base), inp.end)
                _, end = yield from resync.step(inp, at)
                if self.runs is not None and failure.position < inp.end:
                    end = yield from self._run(inp, pos, failure, resync, end)
            truncated = inp.eof and failure.position >= inp.end
            recovered = Recovered(failure, inp.raw(pos, end), pos, truncated)
            inp.close_choice(barrier, keep_output=after_cut)
            inp.out.append(Open(ERROR, pos))
            inp.out.append(Text(recovered.raw, pos))
            inp.out.append(Close(ERROR, end, recovered))
            return recovered, end
        inp.close_choice(barrier, keep_output=True)
        return result

    def _run(
        self, inp: Input, pos: int, failure: ParseFailure, resync: Parser[Any], end: int
    ) -> Generator[int, None, int]:
        """Where the run of regions failing as the one from `pos` to `end` does ends."""
        offset = failure.position - pos
        if offset >= HEADER:
            return end
        header = inp.raw(pos, failure.position + 1)
        if not (yield from _follows(inp, end, header)):
            return end
        decided = self._decided
        if decided is None or not header.startswith(decided):
            decided = self._decided = self._deciding(header, offset, failure.expected)
        if decided is None:
            return end
        while (yield from _follows(inp, end, decided)):
            _, end = yield from resync.step(inp, end + offset)
        return end

    def _deciding(self, header: str, offset: int, expected: tuple[str, ...]) -> str | None:
        """The shortest start of `header` that makes `parser` fail at `offset` expecting
        `expected` whatever follows it, if that start also makes each of `runs` fail
        before any cut; else None."""
        failed = _failure(self.parser, header)
        if failed is None or not failed.fails(offset, expected):
            return None
        for first in self.runs or ():
            before = _failure(first, failed.decided)
            if before is None or not isinstance(before.failure, Backtrack) or before.committed:
                return None
        return failed.decided

    def _glance(self, window: str) -> Glance | None:
        # A failure before any cut passes through, and where the window is the input did
        # not end: a region the window rules out is ruled out.
        return self.parser.glance(window)

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        # not with `cut_off`: a failure at the end of a finished stream may be recovered
        return None if self.cut_off else self.parser.deciders(window)


class Scratch(NamedTuple):
    """How a parser failed on a scratch input (see `_failure`): the failure, the text that
    decided it, whether it had cut, and the furthest failure it recorded (`Input.far`)."""

    failure: ParseFailure
    decided: str
    committed: bool
    far: Far | None

    def fails(self, offset: int, expected: tuple[str, ...]) -> bool:
        """Whether the failure is at `offset` expecting `expected`."""
        return (self.failure.position, self.failure.expected) == (offset, expected)


def _failure(parser: Parser[Any], text: str, *, at_once: bool = False) -> Scratch | None:
    """How `parser` fails on an input that starts with `text`, whatever follows: the
    failure, the shortest start of `text` that decides it (fed character by character,
    the parser fails once that much has arrived; the parse depends on nothing else; fed
    `at_once`, `text` itself), whether it failed after a cut and what it recorded. None
    where `text` decides no failure."""
    inp = Input()
    choice = inp.open_choice(0)
    steps = parser.step(inp, 0)
    try:
        next(steps)
        for char in [text] if at_once else text:
            inp.append(char)
            steps.send(None)
    except ParseFailure as failure:
        return Scratch(failure.detach(), inp.buf, choice.committed, inp.far)
    except StopIteration:
        return None
    return None


def _follows(inp: Input, at: int, text: str) -> Generator[int, None, bool]:
    """Whether the input at `at` starts with `text`, waiting while what has arrived there
    is a proper prefix of it."""
    while True:
        have = inp.text(at, min(at + len(text), inp.end))
        if not text.startswith(have):
            return False
        if len(have) == len(text):
            return True
        if inp.eof:
            return False
        inp.fast = _Following(text, at)
        yield at
        inp.fast = None


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


def recover(
    parser: Parser[Any], resync: Parser[Any], *, runs: tuple[Parser[Any], ...] | None = None
) -> Parser[Any]:
    """Turn a committed failure of `parser` into an `error` node and carry on, skipping with
    `resync`; with `runs` (what the grammar tries first where a region ends), a run of
    regions failing the same way is one node (see `Recover`)."""
    return Recover(parser, resync, runs=runs)


def unfinished(parser: Parser[Any]) -> Parser[Any]:
    """`parser`, or a truncated `error` node running to the end if the stream ended inside
    it before any cut (see `Recover`)."""
    return Recover(parser, None, cut_off=True)


class Recurring(Wrapper[Any]):
    """`parser`, whose glance also knows the headers it failed on more than once (see the
    module docstring): where the input starts with such a header, the glance is the
    failure `parser` raises there (with what it records), and where the input is a proper
    start of it, `WAITING` (`parser` reads a header through to the character it fails at:
    before that one, it only waits).

    A failure is learned where `parser` raises it before any cut (the choice around it
    still undecided) on a header it failed on before (one of the latest `KNOWN`)
    elsewhere in the input, the header being the text from its start through the failing
    character, at most `LEARNED` characters: replayed on a scratch input, it must fail the
    same way there, before any cut. What it learns is the run's (`Input.learned`, see
    `Learned`: the grammar is shared by the sessions of a tool set), and so are, from then
    on, the run's glances and what they decide; glances it gave before are forgotten then,
    its own and what the parsers it `informs` cached from them (another caller that cached
    an undecided glance runs the parser, as it did). Matches, needs
    more and fails exactly as `parser` does; its glance differs from `parser`'s only where
    `parser`'s is undecided."""

    def __init__(self, parser: Parser[Any]) -> None:
        self.parser = parser
        self._informed: list[Parser[Any]] = []  # see `informs`

    def _known(self, learned: Learned | None) -> dict[str, Glance]:
        """The run's learned headers: the text that decides a recurring failure, and the
        failure's glance."""
        if learned is None:
            return _NOTHING
        known: dict[str, Glance] | None = learned.headers.get(self)
        if known is None:
            known = learned.headers[self] = {}
        return known

    def step(self, inp: Input, pos: int) -> Step[Any]:
        choices = inp.choices
        around: Choice | None = choices[-1] if choices and not choices[-1].committed else None
        try:
            return (yield from self.parser.step(inp, pos))
        except Backtrack as failure:
            if around is not None and not around.committed and choices[-1] is around:
                self._met(inp, pos, failure)
            raise

    def _met(self, inp: Input, pos: int, failure: Backtrack) -> None:
        """Note a failure before any cut at `pos`; learn it where it recurs."""
        at = failure.position
        if not pos <= at < min(inp.end, pos + LEARNED) or pos < inp.base:
            return
        header = inp.text(pos, at + 1)
        if any(header.startswith(decided) for decided in self._known(inp.learned)):
            return  # known: a caller ran `parser` on a glance it had cached
        seen: dict[str, int] = inp.local.setdefault(self, {})  # latest headers, where they began
        if seen.get(header, pos) == pos:  # not seen, or tried again where it was
            if len(seen) >= KNOWN:
                seen.clear()
            seen[header] = pos
            return
        failed = _failure(self.parser, header, at_once=True)
        if failed is None or failed.committed or not failed.fails(at - pos, failure.expected):
            return
        raised = failed.failure
        learned = inp.learned
        if learned is None:  # the run learns: its glances are its own from now on
            learned = inp.learned = running.learned = Learned()
        known = self._known(learned)
        if len(known) >= KNOWN:
            known.clear()
        known[failed.decided] = scratch_glance(raised, failed.far)
        for parser in (self, *self._informed):  # what they glanced before, from the old glance
            learned.caches.pop(parser, None)

    def informs(self, *parsers: Parser[Any]) -> None:
        """Declare `parsers` (and the parsers they wrap) as glancing through this one: what
        they cached from its glance is forgotten when it learns, so that what the grammar
        does at a learned header never depends on what was glanced before."""
        for parser in parsers:
            while True:
                self._informed.append(parser)
                if not isinstance(parser, Wrapper):
                    break
                parser = parser.parser

    def _glance(self, window: str) -> Glance | None:
        glance = self.parser.glance(window)
        learned = running.learned
        if glance is not None or learned is None:
            return glance
        for decided, known in self._known(learned).items():
            if window.startswith(decided):
                return known
            if decided.startswith(window):
                return WAITING
        return None

    def _reach(self) -> int:
        return max(self.parser.reach(), LEARNED)

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        return self.parser.deciders(window)  # asked where the glance, learned or not, is undecided


def recurring(parser: Parser[Any]) -> Recurring:
    """`parser`, whose glance learns the failing headers that recur (see `Recurring`)."""
    return Recurring(parser)
