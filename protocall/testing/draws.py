"""Cheap draws: building a Hypothesis strategy costs far more than drawing from one, so the
kit draws integers and choices from strategies built once per range."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


@lru_cache(maxsize=4096)
def integers(low: int, high: int) -> st.SearchStrategy[int]:
    """`st.integers(low, high)`, built once."""
    return st.integers(low, high)


def choose(draw: st.DrawFn, items: Sequence[T]) -> T:
    """One of `items` (shrinks towards the first)."""
    return items[draw(integers(0, len(items) - 1))]


@lru_cache(maxsize=1024)
def cut_points(length: int, max_cuts: int = 40) -> st.SearchStrategy[list[int]]:
    """Up to `max_cuts` offsets strictly inside a text of `length` (at least 2)."""
    return st.lists(integers(1, length - 1), max_size=min(length, max_cuts))
