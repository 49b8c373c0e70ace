"""Ways to split a stream into deltas: the chunkings a session must be invariant under.

Every strategy here shrinks towards fewer cuts; `describe_chunks` names a chunking for reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import TypeVar

from hypothesis import strategies as st

from .draws import choose, cut_points, integers

AnyStr = TypeVar("AnyStr", str, bytes)

TEXT_KINDS = ("one", "chars", "markers", "random", "spans")
"""Kinds of text chunking, simplest first (Hypothesis shrinks towards the front)."""
BYTE_KINDS = ("inside characters", "bytes", "random")


def split_at(text: AnyStr, cuts: Iterable[int]) -> list[AnyStr]:
    """`text` cut at the given offsets (sorted, deduplicated; out-of-range ones ignored)."""
    points: list[int] = sorted({c for c in cuts if 0 < c < len(text)})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in pairwise(bounds) if b > a] or [text]


def marker_cuts(text: str, markers: Iterable[str]) -> list[tuple[int, int]]:
    """The (start, end) of every occurrence of every marker in `text`."""
    found = []
    for marker in {m for m in markers if m}:
        at = text.find(marker)
        while at >= 0:
            found.append((at, at + len(marker)))
            at = text.find(marker, at + 1)
    return sorted(found)


@st.composite
def chunkings(
    draw: st.DrawFn,
    text: str,
    markers: Sequence[str] = (),
    spans: Sequence[tuple[int, int]] = (),
) -> list[str]:
    """A way to split `text`: one chunk, one character per chunk, cuts at the boundaries of
    `markers` and inside them (so every marker arrives split, and whole), random cuts, or —
    when `spans` are given (e.g. the calls' spans) — each span whole in one chunk and one
    character per chunk elsewhere."""
    if len(text) < 2:
        return [text]
    found = marker_cuts(text, markers)
    kinds = [k for k in TEXT_KINDS if (k != "markers" or found) and (k != "spans" or spans)]
    kind = choose(draw, kinds)
    if kind == "one":
        return [text]
    if kind == "chars":
        return list(text)
    if kind == "markers":
        cuts = []
        for start, end in found:
            cuts += [start, end]
            if end - start > 1:
                cuts.append(draw(integers(start + 1, end - 1)))
        return split_at(text, cuts)
    if kind == "spans":
        inside = {i for start, end in spans for i in range(start + 1, end)}
        return split_at(text, (i for i in range(1, len(text)) if i not in inside))
    return split_at(text, draw(cut_points(len(text))))


@st.composite
def byte_chunkings(draw: st.DrawFn, data: str | bytes) -> list[bytes]:
    """The UTF-8 bytes of `data` split inside multi-byte characters (every continuation
    byte starts a chunk), one byte per chunk, or at random byte offsets."""
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) < 2:
        return [raw]
    kind = choose(draw, BYTE_KINDS)
    if kind == "inside characters":
        return split_at(raw, (i for i, byte in enumerate(raw) if 0x80 <= byte < 0xC0))
    if kind == "bytes":
        return [raw[i : i + 1] for i in range(len(raw))]
    return split_at(raw, draw(cut_points(len(raw))))


def describe_chunks(chunks: Sequence[str | bytes], limit: int = 12) -> str:
    """`one chunk`, `one character per chunk`, or the first chunks' reprs."""
    if len(chunks) == 1:
        return "one chunk"
    unit = "byte" if isinstance(chunks[0], bytes) else "character"
    if all(len(chunk) == 1 for chunk in chunks):
        return f"one {unit} per chunk ({len(chunks)} chunks)"
    shown = ", ".join(repr(chunk) for chunk in chunks[:limit])
    more = f", … ({len(chunks)} chunks)" if len(chunks) > limit else ""
    return f"[{shown}{more}]"
