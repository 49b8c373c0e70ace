"""OpenAI chat-completions adapter: session events → `chat.completion.chunk` deltas.

By default a tool call is sent whole, in one delta, once the session has completed it (and,
with `reject_invalid`, validated it): the `tool_calls` an OpenAI client accumulates are
then exactly the message's complete calls, whatever happens later in the stream. A call cut
off, malformed or rejected is never sent. `tentative_calls=True` streams each call as it
arrives instead (for UIs only; see `DeltaStream`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Literal

from .events import (
    ContentDelta,
    Event,
    ProtocolError,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .message import Message, checked_reasoning_field

FinishReason = Literal["stop", "length", "tool_calls"]
"""The `finish_reason`s a turn parsed by protocall can end with."""


class DeltaStream:
    """Stateful translation of events into delta objects for one choice.

    The first call of `deltas` starts with the delta `{"role": "assistant"}`, also when the
    events give nothing to send (an empty turn, only whitespace, a call that never
    completed), as OpenAI's own servers do; no later delta repeats it (clients concatenate
    every string field, `role` included). Pass it every batch of events, empty ones
    (`finish()` of an empty turn) included.

    `reasoning_field` names the reasoning delta: `reasoning_content` (the default:
    DeepSeek's API, SGLang, llama.cpp, older vLLM) or `reasoning` (current vLLM,
    OpenRouter).

    `tentative_calls=True` sends call *i*'s `index`, `id`, `type` and `function.name` (with
    empty `arguments`) as soon as its name is final, then its `function.arguments`
    fragments as they arrive. A client then accumulates calls that may never complete: one
    cut off keeps its partial arguments (`finish_reason` `length`), one malformed or
    rejected by validation stays in `tool_calls` (`finish_reason` `stop`). Use it to show
    progress, never to execute: run calls from the session's `ToolCallEnd` events.
    """

    def __init__(
        self, *, tentative_calls: bool = False, reasoning_field: str = "reasoning_content"
    ) -> None:
        self.tentative_calls = tentative_calls
        self.reasoning_field = checked_reasoning_field(reasoning_field)
        self._sent_role = False
        self._sent: set[int] = set()  # session indices of the calls sent (in part)
        self._completed: set[int] = set()
        self._truncated = False

    def deltas(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """The delta objects for `events` (see the class docstring for `role`)."""
        out = [delta for delta in map(self._delta, events) if delta is not None]
        if not self._sent_role:
            self._sent_role = True
            out.insert(0, {"role": "assistant"})
        return out

    def _delta(self, event: Event) -> dict[str, Any] | None:
        if isinstance(event, ContentDelta):
            return {"content": event.text}
        if isinstance(event, ReasoningDelta):
            return {self.reasoning_field: event.text}
        if isinstance(event, ProtocolError):
            self._truncated |= event.code == "truncated"
            return None
        if isinstance(event, ToolCallEnd):
            self._completed.add(event.index)
            if self.tentative_calls:
                return None
            index = len(self._sent)
            self._sent.add(event.index)
            return {"tool_calls": [{"index": index, **event.call.to_openai()}]}
        if not self.tentative_calls:
            return None
        if isinstance(event, ToolCallStart):
            self._sent.add(event.index)
            function = {"name": event.name, "arguments": ""}
            first = {"index": event.index, "id": event.id, "type": "function"}
            return {"tool_calls": [{**first, "function": function}]}
        assert isinstance(event, ToolCallArgumentsDelta)
        return {"tool_calls": [{"index": event.index, "function": {"arguments": event.text}}]}

    def finish_reason(self, *, length: bool = False) -> FinishReason:
        """`length` when the stream was cut inside a call (or `length=True` says the token
        limit stopped it); `tool_calls` when calls were sent and every one completed;
        otherwise `stop` (with `tentative_calls`, also after a call sent but never
        completed: malformed or rejected)."""
        if self._truncated or length:
            return "length"
        return "tool_calls" if self._sent and self._sent <= self._completed else "stop"


def finish_reason(message: Message, *, length: bool = False) -> FinishReason:
    """The `finish_reason` for a complete message (the rule of the default `DeltaStream`)."""
    if length or any(error.code == "truncated" for error in message.errors):
        return "length"
    return "tool_calls" if message.tool_calls else "stop"


def chunk(
    delta: dict[str, Any],
    *,
    id: str,
    model: str,
    created: int | None = None,
    finish_reason: FinishReason | None = None,
) -> dict[str, Any]:
    """A whole `chat.completion.chunk` object around one delta."""
    return {
        "id": id,
        "object": "chat.completion.chunk",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
