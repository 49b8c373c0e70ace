"""Running a turn through a session, and comparing outcomes across chunkings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..events import (
    ContentDelta,
    Event,
    ReasoningDelta,
    ToolCallArgumentsDelta,
)
from ..formats import Format
from ..message import Message
from ..tools import Tool, Tools


@dataclass
class Outcome:
    """Everything a session produced for one chunking of a turn."""

    events: list[Event]
    message: Message
    per_chunk: list[list[Event]]

    @property
    def merged_events(self) -> list[Event]:
        """Events with consecutive deltas of the same kind merged: the chunking-invariant
        view of the stream (how text is split into deltas depends on the chunks)."""
        return merge_deltas(self.events)


def merge_deltas(events: Iterable[Event]) -> list[Event]:
    merged: list[Event] = []
    for event in events:
        last = merged[-1] if merged else None
        if isinstance(event, ContentDelta | ReasoningDelta) and type(last) is type(event):
            merged[-1] = type(event)(last.text + event.text)
        elif (
            isinstance(event, ToolCallArgumentsDelta)
            and isinstance(last, ToolCallArgumentsDelta)
            and last.index == event.index
        ):
            merged[-1] = ToolCallArgumentsDelta(event.index, last.text + event.text)
        else:
            merged.append(event)
    return merged


def stream(
    fmt: Format,
    chunks: Sequence[str | bytes],
    tools: Iterable[Mapping[str, Any] | Tool] | Tools | None = None,
    generation_prompt: str | None = None,
    **options: Any,
) -> Outcome:
    """Feed `chunks` to a fresh session (ids are deterministic: seed 0) and finish it."""
    options.setdefault("seed", 0)
    session = fmt.parser(tools, generation_prompt, **options)
    per_chunk = [session.feed(chunk) for chunk in chunks]
    per_chunk.append(session.finish())
    events = [event for batch in per_chunk for event in batch]
    return Outcome(events, session.message, per_chunk)
