"""Testing kit: Hypothesis strategies and checks for formats (ours or yours).

`stream(fmt, text, chunks, ...)` runs a turn through a fresh session in the given pieces and
returns its `Outcome`; `chunkings(text)` draws ways to split a text.
"""

from .chunks import chunkings, split_at
from .run import Outcome, merge_deltas, stream

__all__ = ["Outcome", "chunkings", "merge_deltas", "split_at", "stream"]
