"""Checking a parser's absorbers: the shortcut a waiting parser takes for a delta must do
exactly what resuming it would (docs/semantics.md, "The common delta: absorbers")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..combinators import NEED_MORE, Parser, Run

Trace = tuple[list[tuple[Any, ...]], Any, Any, Any, str | None, list[Any]]
"""Per chunk fed, the status and the items taken; then, after `finish`, the status, the
value, the end, the error message and the items taken last."""


def fed_and_resumed(parser: Parser[Any], chunks: Sequence[str]) -> tuple[Trace, Trace]:
    """`parser` run over `chunks` twice: fed (a waiting parser's absorber offered each chunk
    first) and resumed on every chunk (`Run.resume`, no absorber). Its absorbers are right
    when the two traces are equal. Chunks after the run has decided are not fed."""
    traces = []
    for shortcut in (True, False):
        run: Run[Any] = parser.run()
        steps = []
        for chunk in chunks:
            if run.status is NEED_MORE:
                status = run.feed(chunk) if shortcut else run.resume(chunk)
                steps.append((status, run.take()))
        if run.status is NEED_MORE:
            run.finish()
        error = None if run.error is None else str(run.error)
        traces.append((steps, run.status, run.value, run.end, error, run.take()))
    return traces[0], traces[1]
