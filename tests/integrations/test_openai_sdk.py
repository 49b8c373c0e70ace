"""Every format's deltas as real OpenAI clients accumulate them.

For turns of every format (valid ones, their truncations and mutations, from the testing
kit), in text and byte chunkings (bytes split inside characters), the chunks a server sends
through `DeltaStream` are fed to the official SDK's accumulator, to
`client.chat.completions.stream()` over a mocked SSE response, and to LangChain's
`ChatOpenAI`: each must end up with exactly `session.message` (complete calls only, with
unique ids, arguments the SDK parses as strict-tool JSON) and its `finish_reason`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from clients import (
    expected,
    langchain_streamed,
    sdk_accumulated,
    sdk_streamed,
    seen,
    served,
    strict,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.formats import Format
from protocall.message import REASONING_FIELDS
from protocall.openai import DeltaStream
from protocall.session import Session
from protocall.testing import Case, byte_chunkings, cases, chunkings, mutations, truncations

NAMES = formats.names()

pytestmark = pytest.mark.slow  # every format through each client, Hypothesis-drawn: CI runs it


@st.composite
def inputs(draw: st.DrawFn, fmt: Format) -> tuple[Case, list[str] | list[bytes]]:
    """A valid turn of `fmt`, one of its truncations or one of its mutations, and a way
    to chunk it: text chunkings (markers split) or bytes split inside characters."""
    case = draw(cases(fmt))
    kind = draw(st.sampled_from(["valid", "truncated", "mutated"]))
    if kind == "truncated":
        case = draw(truncations(case))
    elif kind == "mutated":
        case = draw(mutations(fmt, case))
    if case.data is not None:
        return case, draw(byte_chunkings(case.data))
    return case, draw(chunkings(case.text, fmt.reserved) | byte_chunkings(case.text))


def drawn(name: str, data: st.DataObject) -> tuple[Case, list[str] | list[bytes], Session]:
    """An input of format `name` (see `inputs`) and a session for it, with or without
    `reject_invalid`."""
    fmt = formats.get(name)
    case, chunks = data.draw(inputs(fmt))
    options = {"seed": 0, "reject_invalid": data.draw(st.booleans())}
    return case, chunks, fmt.parser(case.tools, case.generation_prompt, **options)


def tools_of(case: Case) -> list[dict[str, Any]]:
    """The case's tools as strict OpenAI tool entries (what the request declared)."""
    assert case.tools is not None
    return strict(
        {"type": "function", "function": {"name": t.name, "parameters": dict(t.parameters)}}
        for t in case.tools.values()
    )


def check_chunks(sent: list[dict[str, Any]]) -> None:
    """The first chunk says `role: "assistant"`, no other does; only the last has a
    `finish_reason`."""
    deltas = [piece["choices"][0]["delta"] for piece in sent]
    assert deltas[0].get("role") == "assistant", deltas[:2]
    assert not any("role" in delta for delta in deltas[1:])
    reasons = [piece["choices"][0]["finish_reason"] for piece in sent]
    assert reasons[:-1] == [None] * (len(sent) - 1) and reasons[-1] is not None


def check_calls(session: Session, choice: Any) -> None:
    """Ids unique; each call's arguments JSON is its arguments, and what the SDK parsed as
    strict-tool JSON (it parses none on a `length` finish)."""
    calls = session.message.tool_calls
    assert len({call.id for call in calls}) == len(calls)
    assert [json.loads(call.arguments_json) for call in calls] == [c.arguments for c in calls]
    if choice.finish_reason != "length":
        parsed = [c.function.parsed_arguments for c in choice.message.tool_calls or ()]
        assert parsed == [c.arguments for c in calls]


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=20)
@given(data=st.data())
def test_the_sdk_accumulates_exactly_the_message(name: str, data: st.DataObject) -> None:
    case, chunks, session = drawn(name, data)
    field = data.draw(st.sampled_from(REASONING_FIELDS))
    sent = served(session, chunks, DeltaStream(reasoning_field=field))
    check_chunks(sent)
    choice = sdk_accumulated(sent, tools_of(case))
    assert seen(choice, field) == expected(session.message, field)
    check_calls(session, choice)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=6)
@given(data=st.data())
def test_chat_completions_stream_over_sse_gives_the_message(name: str, data: st.DataObject) -> None:
    case, chunks, session = drawn(name, data)
    sent = served(session, chunks)
    cuts = data.draw(st.lists(st.integers(1, 4096), max_size=12))  # SSE bytes cut anywhere
    choice, kinds = sdk_streamed(sent, tools_of(case), cuts)
    assert seen(choice) == expected(session.message)
    check_calls(session, choice)
    if choice.finish_reason != "length":
        done = kinds.count("tool_calls.function.arguments.done")
        assert done == len(session.message.tool_calls)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4)
@given(data=st.data())
def test_langchain_gets_exactly_the_complete_calls(name: str, data: st.DataObject) -> None:
    _, chunks, session = drawn(name, data)
    total = langchain_streamed(served(session, chunks))
    message = session.message
    assert total.content == (message.content or "")
    calls = [{"name": c.name, "args": c.arguments, "id": c.id, "type": "tool_call"}
             for c in message.tool_calls]  # fmt: skip
    assert (total.tool_calls, total.invalid_tool_calls) == (calls, [])


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=6)
@given(data=st.data())
def test_tentative_calls_say_tool_calls_only_when_every_sent_call_completed(
    name: str, data: st.DataObject
) -> None:
    case, chunks, session = drawn(name, data)
    sent = served(session, chunks, DeltaStream(tentative_calls=True))
    check_chunks(sent)
    choice = seen(sdk_accumulated(sent))
    if case.label == "valid turn":
        assert choice == expected(session.message)
    truncated = session.truncated
    assert (choice["finish_reason"] == "length") == truncated
    if choice["finish_reason"] == "tool_calls":
        assert choice == expected(session.message)
