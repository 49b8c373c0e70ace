"""Recovery: a region whose failure is decided afterwards, reported as one `error` node.

A region is a parser run behind a barrier. Where it matches, its output flows on. Where it
fails, `Recover` decides whether the failure is the region's: a failure after a `cut` when
it has a way to resync, and a backtrack cut off by the end of the stream when it reads
`cut_off` regions. Such a failure makes the region's raw text one `error` node whose value is
a `Recovered`, so nothing is lost; any other failure passes through, the region's output
dropped.
"""

from __future__ import annotations

from typing import Any

from .glance import Glance
from .parser import Parser, Step, Wrapper
from .result import Backtrack, ParseFailure
from .stream import Close, Input, Open, Text

ERROR = "error"


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

    Needs more while `parser` does.
    """

    def __init__(
        self, parser: Parser[Any], resync: Parser[Any] | None, *, cut_off: bool = False
    ) -> None:
        self.parser = parser
        self.resync = resync
        self.cut_off = cut_off

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
            truncated = inp.eof and failure.position >= inp.end
            recovered = Recovered(failure, inp.raw(pos, end), pos, truncated)
            inp.close_choice(barrier, keep_output=after_cut)
            inp.out.append(Open(ERROR, pos))
            inp.out.append(Text(recovered.raw, pos))
            inp.out.append(Close(ERROR, end, recovered))
            return recovered, end
        inp.close_choice(barrier, keep_output=True)
        return result

    def _glance(self, window: str) -> Glance | None:
        # A failure before any cut passes through, and where the window is the input did
        # not end: a region the window rules out is ruled out.
        return self.parser.glance(window)


def recover(parser: Parser[Any], resync: Parser[Any]) -> Parser[Any]:
    """Turn a committed failure of `parser` into an `error` node and carry on, skipping with
    `resync` (see `Recover`)."""
    return Recover(parser, resync)


def unfinished(parser: Parser[Any]) -> Parser[Any]:
    """`parser`, or a truncated `error` node running to the end if the stream ended inside
    it before any cut (see `Recover`)."""
    return Recover(parser, None, cut_off=True)
