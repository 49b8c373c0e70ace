"""The run's shortcuts: `Run.feed` offers a delta to the absorber the suspended parser
left (`absorbers.py`) before resuming the tree; `Run._advance` puts what the run learned
in effect for the glances worked out meanwhile (`Learned`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..combinators.parser import Run
from ..combinators.result import DONE, FAILED, NEED_MORE, ParseFailure, Status, UsageError
from ..combinators.stream import RELEASE, new_text
from .absorbers import APPENDED
from .learned import running
from .registry import install


def feed(self: Run[Any], text: str, sink: Callable[[str], Any] | None = None) -> Any:
    """`Run.feed`: when the innermost parser can take `text` without
    a resume (`input.fast`), it does: the suspended tree is not touched. With a `sink`,
    text so taken while no choice is open and no item waits in `out` is final: it goes
    to `sink` instead of `out` (and its `(text, start)`, the fields of a `Text`, to
    `log`), and `feed` returns what `sink` returned; otherwise, with a sink, None (the
    items are in `out`, the status in `status`)."""
    inp = self._inp
    fast = inp.fast  # None unless the status is NEED_MORE (`_advance` and `finish` see to it)
    if fast is not None and text:
        taken = fast.absorb(inp, text)
        if taken is not None:  # by the innermost parser, without a resume
            piece = taken[0]
            if piece:
                if inp.out is inp.root and not inp.root and sink is not None:
                    self.log.append(taken)
                    return sink(piece)
                inp.out.append(new_text(taken))
            elif taken is APPENDED:  # the text is in: the parser decides
                advance(self)
                return self.status if sink is None else None
            return NEED_MORE if sink is None else None
    elif self._finished:
        raise UsageError("feed() after finish(): the run has ended")
    elif self.status is FAILED:
        raise UsageError(f"feed() after the parse failed: {self.error}")
    inp.append(text)
    if text and self.status is NEED_MORE:
        advance(self)
    return self.status if sink is None else None


def advance(self: Run[Any]) -> None:
    """`Run._advance`, with what the run learned in effect (see `Learned`), and no
    absorber left once the run has ended."""
    inp = self._inp
    outer = running.learned  # what the run learned, for the glances it computes
    if inp.learned is not outer:
        running.learned = inp.learned
    try:
        keep = self._steps.send(None)
    except StopIteration as stop:
        self.value, self.end = stop.value
        self.status = DONE
        inp.fast = None
    except ParseFailure as failure:
        self.status = FAILED
        self.error = self._error(failure)
        inp.fast = None
    else:
        if inp.eof:
            raise RuntimeError("a parser asked for more input after the end of input")
        if keep - inp.base >= RELEASE:
            inp.release(keep)
    finally:
        if running.learned is not outer:
            running.learned = outer


def finish(self: Run[Any]) -> Status:
    """`Run.finish`, the absorber dropped first: nothing may be fed after it."""
    self._inp.fast = None
    return FINISH(self)


FINISH = Run.finish
install(Run, "feed", feed)
install(Run, "_advance", advance)
install(Run, "finish", finish)
