"""Running a turn through a session, and comparing event streams across chunkings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from typing_extensions import Unpack

from ..ast import Node
from ..events import ContentDelta, Event, ReasoningDelta, ToolCallArgumentsDelta
from ..formats import Format
from ..message import Message
from ..session import SessionOptions
from ..tools import Tool, Tools


@dataclass
class Outcome:
    """Everything a session produced for one chunking of a turn: the events in order, the
    events each `feed` returned (`per_chunk`, the last entry being `finish()`'s), the final
    message and the semantic tree."""

    events: list[Event]
    message: Message
    per_chunk: list[list[Event]]
    tree: Node

    @property
    def merged_events(self) -> list[Event]:
        """Events with consecutive deltas of the same kind merged: the chunking-invariant
        view of the stream (how text is split into deltas depends on the chunks)."""
        return merge_deltas(self.events)


def merge_deltas(events: Iterable[Event]) -> list[Event]:
    """Consecutive content, reasoning or same-call arguments deltas joined into one."""
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


def is_event_prefix(before: Sequence[Event], full: Sequence[Event]) -> bool:
    """`before` is a prefix of `full` once deltas are merged; its last delta may be a
    prefix of the corresponding (longer) delta of `full` (more text of it arrived later)."""
    a, b = merge_deltas(before), merge_deltas(full)
    if not a:
        return True
    if len(a) > len(b) or a[:-1] != b[: len(a) - 1]:
        return False
    last, other = a[-1], b[len(a) - 1]
    if last == other:
        return True
    if not isinstance(last, ContentDelta | ReasoningDelta | ToolCallArgumentsDelta):
        return False
    return (
        type(last) is type(other)
        and getattr(last, "index", None) == getattr(other, "index", None)
        and other.text.startswith(last.text)
    )


def stream(
    fmt: Format,
    chunks: Sequence[str | bytes],
    tools: Iterable[Mapping[str, Any] | Tool] | Tools | None = None,
    generation_prompt: str | None = None,
    **options: Unpack[SessionOptions],
) -> Outcome:
    """Feed `chunks` to a fresh session (ids are deterministic: seed 0) and finish it."""
    options.setdefault("seed", 0)
    session = fmt.parser(tools, generation_prompt, **options)
    per_chunk = [session.feed(chunk) for chunk in chunks]
    per_chunk.append(session.finish())
    events = [event for batch in per_chunk for event in batch]
    return Outcome(events, session.message, per_chunk, session.ast)
