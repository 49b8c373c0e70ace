"""How deep values nest in one run: a value parser's own bound, lowered by the run's.

A compiled grammar is shared by every session of its format, options and tools, so its
value parsers hold only their own bound (128 for JSON, 100 for Python literals); a session's
`max_depth` is the run's (`Input.max_depth`), read where a value starts. Levels count from
a call's arguments: the arguments object (or the parentheses of a pseudo-function call) is
the first level, so `max_depth=1` admits `{"a": 1}` and refuses `{"a": [1]}`.
"""

from __future__ import annotations

import functools

from ..combinators.stream import Input

Bound = tuple[int, tuple[str, ...]]
"""The deepest a value may nest, and what a bracket past it fails expecting."""


def nesting_bound(inp: Input, own: Bound) -> Bound:
    """The bound of a value read in `inp`'s run: the parser's `own`, or the run's
    `max_depth` where that is lower (a bracket past it then fails expecting a value
    nested at most that deep, naming the option)."""
    run = inp.max_depth
    if run is None or run >= own[0]:
        return own
    return run, _run_bound(run)


@functools.lru_cache(maxsize=16)
def _run_bound(depth: int) -> tuple[str, ...]:
    return (f"a value nested at most {depth} deep (max_depth)",)
