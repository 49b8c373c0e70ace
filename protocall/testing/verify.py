"""One hand-written turn, checked under several chunkings with every property of the kit."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..formats import Format
from ..message import Message
from ..tools import normalize_tools
from .chunks import split_at
from .properties import PROPERTIES, Trial
from .run import stream
from .strategies import Case


def verify(
    fmt: Format,
    text: str,
    prompt: str | None = None,
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    expected: dict[str, Any] | None = None,
    chunkings: Iterable[Sequence[str]] = (),
) -> Message:
    """Parse `text` in one chunk, per character, in 3-character chunks and in each of
    `chunkings` (e.g. each call in one chunk); assert that every property holds for each
    (same events and message as one chunk, deltas adding up, final names, …; with
    `expected`, parsing back to it without errors). Returns the one-chunk message."""
    declared = normalize_tools(tools)
    case = Case(text, declared, prompt, fmt.start_state(prompt), expected=expected)
    whole = stream(fmt, [text], tools, prompt)
    for chunks in (list(text), split_at(text, range(3, len(text), 3)), *chunkings):
        trial = Trial(fmt, case, list(chunks), whole, stream(fmt, chunks, tools, prompt))
        for prop in PROPERTIES:
            problem = prop.check(trial)
            assert problem is None, f"{prop.name}: expected {problem.expected}, got {problem.got}"
    return whole.message
