"""Ways to split a stream into deltas."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from hypothesis import strategies as st


def split_at(text: str, cuts: Sequence[int]) -> list[str]:
    """`text` cut at the given offsets (sorted, deduplicated; out-of-range ones ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(text)})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in pairwise(bounds) if b > a] or [text]


@st.composite
def chunkings(draw: st.DrawFn, text: str) -> list[str]:
    """One chunk, one character per chunk, or random cut points (all equally likely kinds)."""
    kind = draw(st.sampled_from(["one", "chars", "random"]))
    if kind == "one" or len(text) < 2:
        return [text]
    if kind == "chars":
        return list(text)
    cuts = draw(st.lists(st.integers(1, len(text) - 1), max_size=min(len(text), 40)))
    return split_at(text, cuts)
