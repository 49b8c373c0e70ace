"""Real OpenAI clients as consumers of protocall's deltas, with no network.

`sdk_accumulated` feeds chunks to the official SDK's own accumulator
(`ChatCompletionStreamState`); `sdk_streamed` serves them as a server-sent-events response
(through `httpx.MockTransport`) to `client.chat.completions.stream()`; `langchain_streamed`
serves them to LangChain's `ChatOpenAI.stream()`. Each gives what that client ends up with,
for the tests to compare with `session.message`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import httpx
from openai import LengthFinishReasonError, OpenAI
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk, ParsedChatCompletion, ParsedChoice

from protocall.message import Message
from protocall.openai import DeltaStream, chunk, finish_reason
from protocall.session import Session
from protocall.testing import split_at
from protocall.transcript import drive

URL = "http://protocall.test/v1"
MESSAGES = [{"role": "user", "content": "Go."}]


def strict(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI tool entries marked `strict` (the SDK then parses arguments as they stream)."""
    return [{**tool, "function": {**tool["function"], "strict": True}} for tool in tools]


def served(
    session: Session, chunks: Sequence[str | bytes], stream: DeltaStream | None = None
) -> list[dict[str, Any]]:
    """The `chat.completion.chunk` objects a server sends for `chunks` (fed until the
    session takes no more), ending with the `finish_reason` chunk."""
    stream = stream or DeltaStream()
    deltas = [delta for events in drive(session, chunks) for delta in stream.deltas(events)]
    out = [chunk(delta, id="chatcmpl-test", model="m", created=0) for delta in deltas]
    last = chunk({}, id="chatcmpl-test", model="m", created=0, finish_reason=stream.finish_reason())
    return [*out, last]


def sdk_accumulated(
    chunks: Iterable[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
) -> ParsedChoice[None]:
    """The choice the SDK's accumulator builds from `chunks` (with `tools` as its input
    tools); a `length` finish, which it raises for, gives the snapshot it raised with."""
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState(input_tools=tools)
    try:
        for piece in chunks:
            state.handle_chunk(ChatCompletionChunk.model_validate(piece))
        completion: ParsedChatCompletion[None] = state.get_final_completion()
    except LengthFinishReasonError as error:
        return error.completion.choices[0]  # type: ignore[return-value]
    return completion.choices[0]


def sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """`chunks` as a server-sent-events body, `[DONE]` last."""
    events = [f"data: {json.dumps(piece, ensure_ascii=False)}\n\n" for piece in chunks]
    return "".join([*events, "data: [DONE]\n\n"]).encode()


def transport(body: bytes, cuts: Iterable[int]) -> httpx.MockTransport:
    """A transport answering every request with `body` sent in pieces cut at `cuts`."""
    cuts = list(cuts)

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, content=iter(split_at(body, cuts)))

    return httpx.MockTransport(answer)


def sdk_streamed(
    chunks: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]], cuts: Iterable[int] = ()
) -> tuple[ParsedChoice[None], list[str]]:
    """The final choice of `client.chat.completions.stream()` over an SSE response of
    `chunks` (cut at the byte offsets `cuts`), and the types of the events it yielded (up
    to a `length` finish, which it raises for)."""
    http = httpx.Client(transport=transport(sse(chunks), cuts))
    client = OpenAI(api_key="test", base_url=URL, http_client=http, max_retries=0)
    kinds: list[str] = []
    request: dict[str, Any] = {"tools": tools} if tools else {}
    with client.chat.completions.stream(model="m", messages=MESSAGES, **request) as stream:
        try:
            for event in stream:
                kinds.append(event.type)
            return stream.get_final_completion().choices[0], kinds
        except LengthFinishReasonError as error:
            return error.completion.choices[0], kinds  # type: ignore[return-value]


def langchain_streamed(chunks: Sequence[dict[str, Any]], cuts: Iterable[int] = ()) -> Any:
    """The `AIMessageChunk` LangChain's `ChatOpenAI.stream()` adds up from an SSE response
    of `chunks`."""
    from langchain_core.messages import AIMessageChunk  # imported by the tests that use it:
    from langchain_openai import ChatOpenAI  # a second to import, at every collection else

    http = httpx.Client(transport=transport(sse(chunks), cuts))
    model = ChatOpenAI(model="m", api_key="test", base_url=URL, http_client=http, max_retries=0)
    total = AIMessageChunk(content="")
    for piece in model.stream(MESSAGES):
        total = total + piece
    return total


def seen(choice: ParsedChoice[None], reasoning_field: str = "reasoning_content") -> dict[str, Any]:
    """What a client reads from an accumulated choice, in `Message.to_openai()` shape, with
    the `finish_reason`; any other non-standard field (a misnamed reasoning field) too."""
    message = choice.message
    shape: dict[str, Any] = {"role": message.role, "content": message.content}
    shape.update(message.model_extra or {})
    shape.setdefault(reasoning_field, None)
    if message.tool_calls:
        shape["tool_calls"] = [
            {"id": c.id, "type": c.type, "function": {"name": c.function.name,
                                                      "arguments": c.function.arguments}}
            for c in message.tool_calls
        ]  # fmt: skip
    return {"message": shape, "finish_reason": choice.finish_reason}


def expected(message: Message, reasoning_field: str = "reasoning_content") -> dict[str, Any]:
    """What a client must end up with for `message`: the same `seen` shape."""
    return {
        "message": message.to_openai(reasoning_field),
        "finish_reason": finish_reason(message),
    }
