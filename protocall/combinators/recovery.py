"""Recovery: a region whose failure is decided afterwards, reported as one `error` node.

A region is a parser run behind a barrier. Where it matches, its output flows on. Where it
fails, `Recover` decides whether the failure is the region's: a failure after a `cut` when
it has a way to resync, and a backtrack cut off by the end of the stream when it reads
`cut_off` regions. Such a failure makes the region's raw text one `error` node whose value is
a `Recovered`, so nothing is lost; any other failure passes through, the region's output
dropped.

A model stuck in a loop may repeat a header that fails the same way (`<|start|>` over and
over, a call written up to its arguments and broken off by the next). Where the grammar
tries the region again wherever one ends, `recover(..., rivals=…)` takes such a run at once:
a region that the next one, failing the same way, would follow at once extends over it,
so the run is one `error` node (one report) and the repetitions after the first cost a
string comparison and the resync, not a parse.

`recurring(parser)` marks a parser whose failures before any cut may recur (a call head
that the next repetition breaks off): it parses as `parser` does, and a shortcut learns such
a header where it recurs, so that a text scan reads the later repetitions as text
(`protocall.shortcuts.recovery`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, NamedTuple

from .parser import Parser, Step, Wrapper
from .result import Backtrack, ParseFailure
from .stream import Close, Far, Input, Open, Text

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
    - With `rivals` (and `resync`), for a region the grammar tries again wherever one ends
      (a branch of a loop's body), `rivals` being the parsers it tries there first (the
      branches before it): where the text at the region's end starts with the text that
      decided its failure, and that text makes each of `rivals` fail before any cut, the
      next region would fail the same way, so the region extends over it, resyncing
      from the same offset after its start, and so on. The node's `Recovered` keeps the
      first failure; its raw text is the whole run. It needs more while that text may
      still be arriving (at most `HEADER` characters past the region's end), and ends as it would
      alone where it does not arrive, or the input ends first.

    Needs more while `parser` does.
    """

    def __init__(
        self,
        parser: Parser[Any],
        resync: Parser[Any] | None,
        *,
        cut_off: bool = False,
        rivals: tuple[Parser[Any], ...] | None = None,
    ) -> None:
        self.parser = parser
        self.resync = resync
        self.cut_off = cut_off
        self.rivals = rivals

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
            end = arrived = inp.end  # the text that decided the failure has arrived
            if resync is not None:
                at = min(max(failure.position, pos, inp.base), inp.end)
                _, end = yield from resync.step(inp, at)
                if self.rivals is not None and failure.position < inp.end:
                    header = inp.raw(pos, min(arrived, failure.position + HEADER))
                    end = yield from self._run(inp, pos, failure, header, resync, end)
            raw = inp.raw(pos, end)
            inp.close_choice(barrier, keep_output=after_cut)
            return error_node(inp, failure, raw, pos, end), end
        inp.close_choice(barrier, keep_output=True)
        return result

    def _run(
        self,
        inp: Input,
        pos: int,
        failure: ParseFailure,
        header: str,
        resync: Parser[Any],
        end: int,
    ) -> Generator[int, None, int]:
        """Where the run of regions failing as the one from `pos` to `end` does ends,
        `header` being the region's text from its start through at least what decided
        its failure (a member's failure may be decided after it: `judged`)."""
        offset = failure.position - pos
        if offset >= HEADER:
            return end
        if not (yield from self.follows(inp, end, header[: offset + 1])):
            return end
        decided = self.deciding(header, offset, failure.expected)
        if decided is None:
            return end
        while (yield from self.follows(inp, end, decided)):
            _, end = yield from resync.step(inp, end + offset)
        return end

    def deciding(self, header: str, offset: int, expected: tuple[str, ...]) -> str | None:
        """The shortest start of `header` that makes `parser` fail at `offset` expecting
        `expected` whatever follows it, if that start also makes each of `rivals` fail
        before any cut; else None."""
        failed = scratch_failure(self.parser, header)
        if failed is None or not failed.fails(offset, expected):
            return None
        for first in self.rivals or ():
            before = scratch_failure(first, failed.decided)
            if before is None or not isinstance(before.failure, Backtrack) or before.committed:
                return None
        return failed.decided

    @staticmethod
    def follows(inp: Input, at: int, text: str) -> Generator[int, None, bool]:
        """Whether the input at `at` starts with `text`, waiting while what has arrived
        there is a proper prefix of it."""
        while (starts := starts_with(inp, at, text)) is None:
            yield at
        return starts


def error_node(inp: Input, failure: ParseFailure, raw: str, pos: int, end: int) -> Recovered:
    """Output the region `[pos, end)` of raw text `raw`, which `failure` made one `error`
    node (truncated where the input ended at the failure), and give its `Recovered`."""
    truncated = inp.eof and failure.position >= inp.end
    recovered = Recovered(failure, raw, pos, truncated)
    inp.out.append(Open(ERROR, pos))
    inp.out.append(Text(raw, pos))
    inp.out.append(Close(ERROR, end, recovered))
    return recovered


def starts_with(inp: Input, at: int, text: str) -> bool | None:
    """Whether the input at `at` starts with `text`; None while what has arrived there is
    a proper prefix of it (and the input goes on)."""
    have = inp.text(at, min(at + len(text), inp.end))
    if not text.startswith(have):
        return False
    if len(have) == len(text):
        return True
    return False if inp.eof else None


class Scratch(NamedTuple):
    """How a parser failed on a scratch input (see `scratch_failure`): the failure, the text that
    decided it, whether it had cut, and the furthest failure it recorded (`Input.far`)."""

    failure: ParseFailure
    decided: str
    committed: bool
    far: Far | None

    def fails(self, offset: int, expected: tuple[str, ...]) -> bool:
        """Whether the failure is at `offset` expecting `expected`."""
        return (self.failure.position, self.failure.expected) == (offset, expected)


def scratch_failure(parser: Parser[Any], text: str, *, at_once: bool = False) -> Scratch | None:
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


def recover(
    parser: Parser[Any], resync: Parser[Any], *, rivals: tuple[Parser[Any], ...] | None = None
) -> Parser[Any]:
    """Turn a committed failure of `parser` into an `error` node and carry on, skipping with
    `resync`; with `rivals` (what the grammar tries first where a region ends), a run of
    regions failing the same way is one node (see `Recover`)."""
    return Recover(parser, resync, rivals=rivals)


def unfinished(parser: Parser[Any]) -> Parser[Any]:
    """`parser`, or a truncated `error` node running to the end if the stream ended inside
    it before any cut (see `Recover`)."""
    return Recover(parser, None, cut_off=True)


class Recurring(Wrapper[Any]):
    """`parser`, whose failures before any cut may recur in the input (see the module
    docstring): it matches, needs more and fails exactly as `parser` does. The parsers it
    `informs` glance through it (a shortcut tells them when what it knows changes)."""

    def __init__(self, parser: Parser[Any]) -> None:
        self.parser = parser
        self.informed: list[Parser[Any]] = []  # see `informs`

    def step(self, inp: Input, pos: int) -> Step[Any]:
        return (yield from self.parser.step(inp, pos))

    def informs(self, *parsers: Parser[Any]) -> None:
        """Declare `parsers` (and the parsers they wrap) as glancing through this one."""
        for parser in parsers:
            while True:
                self.informed.append(parser)
                if not isinstance(parser, Wrapper):
                    break
                parser = parser.parser


def recurring(parser: Parser[Any]) -> Recurring:
    """`parser`, whose failures before any cut may recur (see `Recurring`)."""
    return Recurring(parser)
