"""OpenAI chat-completions adapter: session events → `chat.completion.chunk` deltas, and
the envelopes an OpenAI-compatible server sends around them.

By default a tool call is sent whole, in one delta, once the session has completed it (and,
with `reject_invalid`, validated it): the `tool_calls` an OpenAI client accumulates are
then exactly the message's complete calls, whatever happens later in the stream. A call cut
off, malformed or rejected is never sent. `tentative_calls=True` streams each call as it
arrives instead (for UIs only; see `DeltaStream`).

The envelopes (what every proxy writes otherwise): `chunk` (one delta of choice `index`),
`usage_chunk` (the last chunk when the client asked for usage), `sse` and `SSE_DONE`
(server-sent-events framing), `completion` (the non-streaming `chat.completion` object,
choice `i` for message `i`), `usage` and `error` (the error object of a bad request, as
an HTTP 400 carries it; `bad_request` maps protocall's `UsageError`, a bad tool schema
say, to it).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import orjson

from .combinators import UsageError
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
    index: int = 0,
) -> dict[str, Any]:
    """A whole `chat.completion.chunk` object around one delta of choice `index` (one
    `DeltaStream` per choice when a request asks for `n` > 1)."""
    return {
        "id": id,
        "object": "chat.completion.chunk",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [{"index": index, "delta": delta, "finish_reason": finish_reason}],
    }


def usage_chunk(
    usage: Mapping[str, Any], *, id: str, model: str, created: int | None = None
) -> dict[str, Any]:
    """The chunk that ends a stream whose request set `stream_options.include_usage`: no
    choices, the `usage` of the whole request."""
    return {
        "id": id,
        "object": "chat.completion.chunk",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [],
        "usage": dict(usage),
    }


def sse(data: Mapping[str, Any]) -> bytes:
    """One server-sent event carrying `data` as JSON (`data: {…}` and a blank line)."""
    return b"data: " + orjson.dumps(data) + b"\n\n"


SSE_DONE = b"data: [DONE]\n\n"
"""The event that ends an OpenAI stream, after the last chunk."""


def completion(
    messages: Message | Sequence[Message],
    *,
    id: str,
    model: str,
    created: int | None = None,
    finish_reasons: Sequence[FinishReason] | None = None,
    usage: Mapping[str, Any] | None = None,
    reasoning_field: str = "reasoning_content",
) -> dict[str, Any]:
    """The non-streaming `chat.completion` object: choice `i` is message `i` (one message,
    or one per choice of a request with `n` > 1) with its `finish_reason` (by default
    `finish_reason(message)`); `usage` is included when given."""
    if isinstance(messages, Message):
        messages = [messages]
    reasons = finish_reasons or [finish_reason(message) for message in messages]
    if len(reasons) != len(messages):
        raise UsageError(f"{len(messages)} messages but {len(reasons)} finish reasons")
    body: dict[str, Any] = {
        "id": id,
        "object": "chat.completion",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [
            {
                "index": index,
                "message": message.to_openai(reasoning_field),
                "logprobs": None,
                "finish_reason": reason,
            }
            for index, (message, reason) in enumerate(zip(messages, reasons, strict=True))
        ],
    }
    if usage is not None:
        body["usage"] = dict(usage)
    return body


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    """The `usage` object: the two counts and their total."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def error(
    message: str,
    *,
    type: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
) -> dict[str, Any]:
    """The body of an error response (`{"error": {message, type, param, code}}`), as
    OpenAI's API sends it with a 4xx or 5xx status; its SDK raises it as `APIStatusError`
    (`BadRequestError` for 400) with this message."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def bad_request(problem: UsageError, param: str | None = None) -> tuple[int, dict[str, Any]]:
    """HTTP 400 and its error body for a request protocall refuses: a `UsageError` from
    `Format.parser` (a bad tool schema, `param="tools"`) or from rendering its messages.
    The client sent it, so it is the client's error, not the server's 500."""
    return 400, error(str(problem), param=param)
