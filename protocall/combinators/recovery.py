"""Recovery: a region whose failure is decided afterwards, reported as one `error` node.

A region is a parser run behind a barrier. Where it matches, its output flows on. Where it
fails, `Recover` decides whether the failure is the region's: a failure after a `cut` when
it has a way to resync, and a backtrack cut off by the end of the stream when it reads
`cut_off` regions. Such a failure makes the region's raw text one `error` node whose value is
a `Recovered`, so nothing is lost; any other failure passes through, the region's output
dropped.

A model stuck in a loop may repeat a header that fails the same way (`<|start|>` over and
over). Where the grammar tries the region again wherever one ends, `recover(..., runs=…)`
takes such a run at once: a region that the next one, failing the same way,
would follow at once extends over it, so the run is one `error` node (one report) and the
repetitions after the first cost a string comparison and the resync, not a parse.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from .glance import Glance
from .parser import Parser, Step, Wrapper
from .result import Backtrack, ParseFailure
from .stream import Close, Input, Open, Text

ERROR = "error"

HEADER = 256
"""The longest failing header (from a region's start to just past its failure) that a run
of repetitions is looked for after: a longer region ends where its resync stops."""


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
      still be arriving (at most `HEADER` characters past the region's end), and ends as
      it would alone where it does not arrive, or the input ends first.

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
        if failed is None or (failed[0].position, failed[0].expected) != (offset, expected):
            return None
        decided = failed[1]
        for first in self.runs or ():
            before = _failure(first, decided)
            if before is None or not isinstance(before[0], Backtrack) or before[2]:
                return None
        return decided

    def _glance(self, window: str) -> Glance | None:
        # A failure before any cut passes through, and where the window is the input did
        # not end: a region the window rules out is ruled out.
        return self.parser.glance(window)

    def deciders(self, window: str) -> tuple[Parser[Any], ...] | None:
        # not with `cut_off`: a failure at the end of a finished stream may be recovered
        return None if self.cut_off else self.parser.deciders(window)


def _failure(parser: Parser[Any], text: str) -> tuple[ParseFailure, str, bool] | None:
    """How `parser` fails on an input that starts with `text`, whatever follows: the
    failure, the shortest start of `text` that decides it (fed character by character,
    the parser fails once that much has arrived; the parse depends on nothing else) and
    whether it failed after a cut. None where `text` decides no failure."""
    inp = Input()
    choice = inp.open_choice(0)
    steps = parser.step(inp, 0)
    try:
        next(steps)
        for char in text:
            inp.append(char)
            steps.send(None)
    except ParseFailure as failure:
        return failure.detach(), inp.buf, choice.committed
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
        yield at


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
