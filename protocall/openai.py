"""OpenAI chat-completions adapter: session events → `chat.completion.chunk` deltas.

The first delta of call *i* carries `index`, `id`, `type` and `function.name` (with empty
`arguments`); later ones carry only `function.arguments` fragments, which concatenate to the
call's JSON arguments. With `buffer_calls=True` a call is sent whole, once complete, so a
client never sees a call that later turns out truncated or malformed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from .events import (
    ContentDelta,
    Event,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .message import Message


class DeltaStream:
    """Stateful translation of events into delta objects for one choice."""

    def __init__(self, *, buffer_calls: bool = False) -> None:
        self.buffer_calls = buffer_calls
        self._sent_role = False
        self._sent_calls = 0
        self._completed = 0
        self._truncated = False

    def deltas(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """The delta objects for `events` (the first one also carries `role`)."""
        out: list[dict[str, Any]] = []
        for event in events:
            delta = self._delta(event)
            if delta is not None:
                if not self._sent_role:
                    delta = {"role": "assistant", **delta}
                    self._sent_role = True
                out.append(delta)
        return out

    def _delta(self, event: Event) -> dict[str, Any] | None:
        if isinstance(event, ContentDelta):
            return {"content": event.text}
        if isinstance(event, ReasoningDelta):
            return {"reasoning_content": event.text}
        if isinstance(event, ToolCallEnd):
            self._completed += 1
            if not self.buffer_calls:
                return None
            call = event.call
            index, self._sent_calls = self._sent_calls, self._sent_calls + 1
            return {"tool_calls": [{"index": index, **call.to_openai()}]}
        if self.buffer_calls:
            if getattr(event, "code", None) == "truncated":
                self._truncated = True
            return None
        if isinstance(event, ToolCallStart):
            self._sent_calls += 1
            function = {"name": event.name, "arguments": ""}
            first = {"index": event.index, "id": event.id, "type": "function"}
            return {"tool_calls": [{**first, "function": function}]}
        if isinstance(event, ToolCallArgumentsDelta):
            return {"tool_calls": [{"index": event.index, "function": {"arguments": event.text}}]}
        if getattr(event, "code", None) == "truncated":
            self._truncated = True
        return None

    def finish_reason(self, *, length: bool = False) -> str:
        """`length` when the stream was cut inside a call (or `length=True` says the token
        limit stopped it); `tool_calls` when a call completed; otherwise `stop`."""
        if self._truncated or length:
            return "length"
        return "tool_calls" if self._completed else "stop"


def finish_reason(message: Message, *, length: bool = False) -> str:
    """The `finish_reason` for a complete message (same rule as `DeltaStream`)."""
    if length or any(error.code == "truncated" for error in message.errors):
        return "length"
    return "tool_calls" if message.tool_calls else "stop"


def chunk(
    delta: dict[str, Any],
    *,
    id: str,
    model: str,
    created: int | None = None,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    """A whole `chat.completion.chunk` object around one delta."""
    return {
        "id": id,
        "object": "chat.completion.chunk",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def accumulate(deltas: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Reassemble deltas the way OpenAI clients do (for tests and replay tools)."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "reasoning_content": None}
    calls: dict[int, dict[str, Any]] = {}
    for delta in deltas:
        for field in ("content", "reasoning_content"):
            if delta.get(field):
                message[field] = (message[field] or "") + delta[field]
        for part in delta.get("tool_calls", ()):
            call = calls.setdefault(
                part["index"],
                {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
            )
            call["id"] = part.get("id", call["id"])
            function = part.get("function", {})
            call["function"]["name"] += function.get("name", "")
            call["function"]["arguments"] += function.get("arguments", "")
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message
