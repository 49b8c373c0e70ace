"""Existing parsy grammars as leaves of a protocall grammar, run once over a delimited span.

parsy is an optional dependency (`pip install 'protocall[parsy]'`), imported by `from_parsy`
only: a grammar without parsy leaves never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .parser import Parser, Step
from .result import Backtrack, UsageError
from .stream import Input
from .text import Until

if TYPE_CHECKING:
    import parsy  # type: ignore[import-untyped]


class FromParsy(Parser[Any]):
    """`parser` (a parsy parser) over the text up to, not including, the earliest delimiter.

    It does not stream: nothing is emitted, and the value appears only once a delimiter has
    arrived, when the parsy parser runs once over the whole span and must consume all of it.
    While the span grows it needs more; a tail that could be the start of a delimiter is held
    back until the next input completes or rules it out, so a delimiter split across deltas
    is still found. At end of input without a delimiter the span runs to the end, or, with
    `required=True`, the leaf fails there expecting a delimiter. A parsy failure fails the
    leaf (backtrackably) at the stream position of parsy's failure index within the span,
    expecting what parsy expected there. The delimiter itself is not consumed.
    """

    def __init__(self, parser: parsy.Parser, until: tuple[str, ...], required: bool) -> None:
        self.parser = parser
        self.span = Until(*until, emit=False, required=required)
        self.parse_error: type[parsy.ParseError] = _parsy().ParseError

    def step(self, inp: Input, pos: int) -> Step[Any]:
        text, end = yield from self.span.step(inp, pos)
        try:
            value = self.parser.parse(text)
        except self.parse_error as error:
            raise Backtrack(pos + error.index, tuple(sorted(error.expected))) from None
        return value, end


def from_parsy(
    parser: parsy.Parser, until: str | tuple[str, ...], *, required: bool = False
) -> Parser[Any]:
    """Run the parsy `parser` once over the span up to the earliest of the `until`
    delimiter(s); see `FromParsy` (it does not stream inside the leaf)."""
    return FromParsy(parser, (until,) if isinstance(until, str) else tuple(until), required)


def _parsy() -> Any:
    """The parsy module, or a `UsageError` saying how to install it."""
    try:
        import parsy
    except ImportError:
        raise UsageError("from_parsy needs parsy: pip install 'protocall[parsy]'") from None
    return parsy
