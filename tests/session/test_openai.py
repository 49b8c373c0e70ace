"""The OpenAI boundary in every format: what a client may rely on once deltas leave the
library (calls only once complete and valid, `role` first, unique ids, the reasoning
field's name), and what the `tentative_calls` opt-in risks. Consumers are the real ones
(tests/clients.py): the official SDK's accumulator, its `strict` tool parsing, LangChain."""

from __future__ import annotations

import pytest
from clients import expected, langchain_streamed, sdk_accumulated, seen, served, strict
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import UsageError
from protocall.formats import Format
from protocall.message import Message, ToolCall
from protocall.openai import (
    SSE_DONE,
    DeltaStream,
    bad_request,
    chunk,
    completion,
    sse,
    usage,
    usage_chunk,
)
from protocall.session import Session
from protocall.testing import byte_chunkings, chunkings
from protocall.testing.strategies import start_states

NAMES = formats.names()
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["location"],
        },
    },
}
TOOLS = [WEATHER]


def rendered(fmt: Format, *parts: str | ToolUse) -> tuple[str, str | None]:
    """A turn of `fmt` made of `parts`, as the model writes it, and its generation prompt."""
    start = start_states(fmt)[0]
    return fmt.render(Turn(None, parts), start), fmt.prompt_for(start)


def session(fmt: Format, prompt: str | None, **options: object) -> Session:
    return fmt.parser(TOOLS, prompt, seed=0, **options)


def berlin_cut_off(fmt: Format) -> tuple[str, str | None]:
    """A turn whose only call is cut off inside its argument string (`{"location": "Ber`)."""
    text, prompt = rendered(fmt, ToolUse("get_weather", {"location": "Berlin"}))
    return text[: text.index("Berlin") + 3], prompt


# -- calls reach a client only once complete -----------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_call_cut_off_never_reaches_the_client(name: str) -> None:
    fmt = formats.get(name)
    text, prompt = berlin_cut_off(fmt)
    parsed = session(fmt, prompt)
    sent = served(parsed, list(text))
    assert parsed.truncated and not parsed.message.tool_calls
    assert not any("tool_calls" in piece["choices"][0]["delta"] for piece in sent)
    assert seen(sdk_accumulated(sent, strict(TOOLS)))["finish_reason"] == "length"
    assert langchain_streamed(sent).tool_calls == []


@pytest.mark.parametrize("name", NAMES)
def test_tentative_calls_show_the_cut_off_call_and_end_length(name: str) -> None:
    """The risk the opt-in documents: the client holds the partial call."""
    fmt = formats.get(name)
    text, prompt = berlin_cut_off(fmt)
    sent = served(session(fmt, prompt), list(text), DeltaStream(tentative_calls=True))
    [call] = langchain_streamed(sent).tool_calls
    assert (call["name"], sent[-1]["choices"][0]["finish_reason"]) == ("get_weather", "length")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("tentative", [False, True])
def test_a_call_rejected_by_validation_never_reaches_the_client(name: str, tentative: bool) -> None:
    fmt = formats.get(name)
    good = ToolUse("get_weather", {"location": "Paris", "days": 2})
    bad = ToolUse("get_weather", {"location": "Rome", "days": "many"})
    text, prompt = rendered(fmt, good, bad)
    parsed = session(fmt, prompt, reject_invalid=True)
    sent = served(parsed, list(text), DeltaStream(tentative_calls=tentative))
    assert [error.code for error in parsed.message.errors] == ["invalid_arguments"]
    got = seen(sdk_accumulated(sent, strict(TOOLS)))
    if not tentative:
        assert got == expected(parsed.message)
        assert [c.arguments for c in parsed.message.tool_calls] == [good.arguments]
    else:  # sent before it was rejected: the turn must not say `tool_calls`
        assert (len(got["message"]["tool_calls"]), got["finish_reason"]) == (2, "stop")


def test_a_malformed_call_reaches_the_client_neither_empty_nor_as_a_parse_error() -> None:
    hermes = formats.get("hermes")
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Ber"x}}\n</tool_call>'
    parsed = session(hermes, None)
    sent = served(parsed, list(text))
    assert seen(sdk_accumulated(sent, strict(TOOLS))) == expected(parsed.message)
    assert langchain_streamed(sent).tool_calls == []
    tentative = served(session(hermes, None), list(text), DeltaStream(tentative_calls=True))
    with pytest.raises(ValueError):  # the SDK's streaming parse of `strict` arguments
        sdk_accumulated(tentative, strict(TOOLS))


# -- role first ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("turn", ["empty", "end of turn only", "whitespace", "call cut off"])
def test_the_first_chunk_says_role_assistant_whatever_the_turn(name: str, turn: str) -> None:
    fmt = formats.get(name)
    text, prompt = {
        "empty": ("", rendered(fmt)[1]),
        "end of turn only": rendered(fmt),
        "whitespace": (" \n ", rendered(fmt)[1]),
        "call cut off": berlin_cut_off(fmt),
    }[turn]
    for tentative in (False, True):
        stream = DeltaStream(tentative_calls=tentative)
        sent = served(session(fmt, prompt), [text] if text else [], stream)
        assert sent[0]["choices"][0]["delta"] == {"role": "assistant"}
        assert seen(sdk_accumulated(sent))["message"]["role"] == "assistant"


def test_role_is_sent_once_even_when_the_first_events_come_late() -> None:
    stream = DeltaStream()
    assert stream.deltas([]) == [{"role": "assistant"}]
    assert stream.deltas([]) == []


# -- ids -----------------------------------------------------------------------------------


KIMI_ID = "functions.get_weather:0"


@pytest.mark.parametrize(
    ("name", "model_id", "unique"),
    [
        ("cohere", "0", ["0", "0_1", "0_2"]),
        ("kimi-k2", "functions.get_weather:0", [KIMI_ID, f"{KIMI_ID}_1", f"{KIMI_ID}_2"]),
        ("mistral", "abc123XYZ", ["abc123XYZ", "abc123XYZ_1", "abc123XYZ_2"]),
    ],
)  # fmt: skip
@settings(max_examples=20)
@given(data=st.data())
def test_repeated_model_ids_become_unique_and_stable(
    name: str, model_id: str, unique: list[str], data: st.DataObject
) -> None:
    fmt = formats.get(name)
    calls = [ToolUse("get_weather", {"location": place}, model_id) for place in ("A", "B", "C")]
    text, _ = rendered(fmt, *calls)
    chunks = data.draw(chunkings(text, fmt.reserved) | byte_chunkings(text))
    parsed = fmt.parser(TOOLS, rendered(fmt)[1], seed=data.draw(st.integers(0, 9)))
    sent = served(parsed, chunks)
    assert [call.id for call in parsed.message.tool_calls] == unique
    assert [call.model_id for call in parsed.message.tool_calls] == [model_id] * 3
    got = seen(sdk_accumulated(sent))["message"]["tool_calls"]
    assert [call["id"] for call in got] == unique


@settings(max_examples=20)
@given(data=st.data())
def test_an_empty_model_id_is_replaced_by_a_new_one(data: st.DataObject) -> None:
    fmt = formats.get("solar-open")  # `<|tool_call:begin|>{id}<|tool_call:name|>`
    call = "<|tool_call:begin|><|tool_call:name|>get_weather<|tool_call:args|>{}<|tool_call:end|>"
    text = f"<|tool_calls|>{call}{call}<|calls|>"
    parsed = fmt.parser(TOOLS, fmt.prompts[None], id_factory=lambda index: f"call{index}")
    served(parsed, data.draw(chunkings(text, fmt.reserved)))
    ids = [(call.id, call.model_id) for call in parsed.message.tool_calls]
    assert ids == [("call0", ""), ("call1", "")]


def test_an_id_factory_repeating_itself_still_gives_unique_ids() -> None:
    hermes = formats.get("hermes")
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "A"}}\n</tool_call>'
    parsed = hermes.parser(TOOLS, id_factory=lambda index: "call")
    parsed.feed(call * 3)
    parsed.finish()
    calls = parsed.message.tool_calls
    assert [(c.id, c.model_id) for c in calls] == [
        ("call", None),
        ("call_1", None),
        ("call_2", None),
    ]


# -- the reasoning field -------------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_the_reasoning_field_is_named_as_asked(field: str) -> None:
    hermes = formats.get("hermes")
    parsed = hermes.parser(TOOLS)
    sent = served(
        parsed, list("<think>Hmm.</think>Hi.<|im_end|>"), DeltaStream(reasoning_field=field)
    )
    assert seen(sdk_accumulated(sent), field) == expected(parsed.message, field)
    assert parsed.message.to_openai(field)[field] == "Hmm."


@pytest.mark.parametrize("make", [lambda: DeltaStream(reasoning_field="thinking"),
                                  lambda: Message().to_openai("thinking")])  # fmt: skip
def test_an_unknown_reasoning_field_is_a_usage_error(make: object) -> None:
    with pytest.raises(
        UsageError, match="reasoning field must be one of reasoning_content, reasoning"
    ):
        make()  # type: ignore[operator]


# -- the envelopes a server sends ---------------------------------------------------------------


def test_sse_frames_one_json_event_and_done_ends_the_stream() -> None:
    assert sse({"a": "é"}) == 'data: {"a":"é"}\n\n'.encode()
    assert SSE_DONE == b"data: [DONE]\n\n"


def test_a_completion_has_a_choice_per_message_and_usage_only_when_given() -> None:
    called = Message(tool_calls=(ToolCall("call_1", "f", {}, "{}"),))
    body = completion([Message(content="Hi"), called], id="c", model="m", created=0)
    assert [(c["index"], c["finish_reason"]) for c in body["choices"]] == [
        (0, "stop"),
        (1, "tool_calls"),
    ]
    assert body["choices"][0]["message"]["content"] == "Hi" and "usage" not in body
    counted = completion(Message(), id="c", model="m", usage=usage(3, 4))
    assert counted["usage"] == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    with pytest.raises(UsageError, match="2 messages but 1 finish reasons"):
        completion([Message(), Message()], id="c", model="m", finish_reasons=["stop"])


def test_a_bad_tool_schema_maps_to_a_400_error_object() -> None:
    with pytest.raises(UsageError) as raised:
        formats.get("hermes").parser([{"name": "f", "parameters": {"type": "nonsense"}}])
    status, body = bad_request(raised.value, "tools")
    assert status == 400
    assert body["error"]["type"] == "invalid_request_error" and body["error"]["param"] == "tools"
    assert body["error"]["message"] == str(raised.value)


def test_a_chunk_names_its_choice_and_a_usage_chunk_has_none() -> None:
    assert chunk({}, id="c", model="m", created=0, index=2)["choices"][0]["index"] == 2
    assert usage_chunk(usage(1, 2), id="c", model="m", created=0)["choices"] == []
