"""The `kimi-k3` format (FORMATS.md §3), one-shot and streamed in every test."""

from __future__ import annotations

import json

import pytest

from protocall import formats
from protocall.events import ContentDelta, ReasoningDelta, ToolCallStart
from protocall.message import Message
from protocall.testing import (
    stream,
    verify,
)

FMT = formats.get("kimi-k3")
MESSAGE = '<|open|>message role="assistant"<|sep|>'
THINKING = MESSAGE + "<|open|>think<|sep|>"
THINKING_OFF = MESSAGE + "<|open|>response<|sep|>"
END = "<|close|>message<|sep|><|end_of_msg|>"


def tool(name: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


STRING = {"type": "string"}
TOOLS = [
    tool("get_weather", location=STRING, days={"type": "integer"}, hourly={"type": "boolean"}),
    tool("get_weather_forecast", location=STRING),
    tool("get_time", zone=STRING),
    tool("write_file", path=STRING, content=STRING),
    tool("set_config", options={"type": "object"}),
    tool('say "hi" & go', text=STRING),
]


def argument(key: str, value: object, kind: str = "string") -> str:
    raw = value if isinstance(value, str) else json.dumps(value)
    return f'<|open|>argument key="{key}" type="{kind}"<|sep|>{raw}<|close|>argument<|sep|>'


def call(name: str, *arguments: str, index: int = 1) -> str:
    return (
        f'<|open|>call tool="{name}" index="{index}"<|sep|>{"".join(arguments)}<|close|>call<|sep|>'
    )


def tools(*calls: str) -> str:
    return "<|open|>tools<|sep|>" + "".join(calls) + "<|close|>tools<|sep|>"


def response(text: str) -> str:
    return f"<|open|>response<|sep|>{text}<|close|>response<|sep|>"


def verified(
    text: str,
    prompt: str | None = None,
    *,
    declared: list[dict[str, object]] | None = TOOLS,
    expected: dict[str, object] | None = None,
) -> Message:
    """Every property of the testing kit, one chunk against several (`verify`)."""
    return verify(FMT, text, prompt, tools=declared, expected=expected)


def names(message: Message) -> list[str]:
    return [c.name for c in message.tool_calls]


# -- FORMATS.md §3 examples -------------------------------------------------------------------

EXAMPLES = [
    ("User greets me; reply briefly.<|close|>think<|sep|>" + response("Hello! How can I help?")
     + END, None,
     {"reasoning_content": "User greets me; reply briefly.", "content": "Hello! How can I help?",
      "tool_calls": []}),
    ("Need the forecast.<|close|>think<|sep|>" + response("Checking.") + tools(call(
        "get_weather", argument("location", "Paris"), argument("days", 3, "number"))) + END, None,
     {"reasoning_content": "Need the forecast.", "content": "Checking.",
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}]}),
    ("Two calls.<|close|>think<|sep|>" + response("") + tools(
        call("get_weather", argument("location", "Paris"), argument("hourly", True, "boolean")),
        call("set_config", argument("options", '{"unit":"celsius"}', "object"), index=2)) + END,
     None,
     {"reasoning_content": "Two calls.", "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris", "hourly": True}},
         {"name": "set_config", "arguments": {"options": {"unit": "celsius"}}}]}),
    ("I should look this up." + tools(call("get_time", argument("zone", "Europe/Paris"))) + END,
     None,
     {"reasoning_content": "I should look this up.", "content": None,
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]}),
    ("Paris is the capital of France.<|close|>response<|sep|>" + END, THINKING_OFF,
     {"reasoning_content": None, "content": "Paris is the capital of France.", "tool_calls": []}),
]  # fmt: skip


def test_whole_call_in_one_delta() -> None:
    whole_call = call("get_time", argument("zone", "UTC"))
    text = "Hm.<|close|>think<|sep|>" + tools(whole_call) + END
    at = text.index(whole_call)
    chunks = [*text[:at], whole_call, *text[at + len(whole_call) :]]
    outcome = stream(FMT, chunks, TOOLS)
    assert outcome.message == stream(FMT, [text], TOOLS).message
    assert names(outcome.message) == ["get_time"]


# -- channels and the generation prompt ---------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FMT.start_state(None) == "reasoning"  # thinking is on by default
    assert FMT.start_state(THINKING) == "reasoning"
    assert FMT.start_state(THINKING_OFF) == "content"
    assert FMT.start_state(MESSAGE) is None


def test_channels_opened_by_the_model_when_none_is_pre_opened() -> None:
    text = "<|open|>think<|sep|>T<|close|>think<|sep|>" + response("R") + END
    message = verified(text, MESSAGE)
    assert (message.reasoning_content, message.content) == ("T", "R")


@pytest.mark.parametrize("boundary", ["<|open|>response<|sep|>", "<|open|>tools<|sep|>"])
def test_reasoning_ends_implicitly_at_a_response_or_tools_opener(boundary: str) -> None:
    rest = response("Ok.") if "response" in boundary else tools(call("get_time"))
    message = verified("Thinking" + rest + END)
    assert message.reasoning_content == "Thinking"
    assert (message.content, names(message)) in (("Ok.", []), (None, ["get_time"]))


def test_truncated_response_channel_ends_at_tools_or_message_close() -> None:
    message = verified("T<|close|>think<|sep|><|open|>response<|sep|>C" + tools(call("get_time")))
    assert (message.content, names(message)) == ("C", ["get_time"])
    message = verified("C" + END, THINKING_OFF)
    assert message.content == "C"


def test_multi_token_markers_are_held_back() -> None:
    session = FMT.parser(TOOLS, THINKING_OFF)
    events = [e for piece in ("Hello <|open|>", "too", "ls<|sep|>") for e in session.feed(piece)]
    assert [e.text for e in events if isinstance(e, ContentDelta)] == ["Hello"]
    events = (
        session.feed(call("get_time")) + session.feed("<|close|>tools<|sep|>") + session.finish()
    )
    assert names(session.message) == ["get_time"] and session.message.errors == ()
    assert not any(isinstance(e, ContentDelta) for e in events)


def test_call_like_text_in_closed_reasoning_and_in_content_stays_text() -> None:
    quoted = 'I may write <|open|>tools<|sep|> or <|open|>call tool="get_time"<|sep|> later.'
    text = quoted + "<|close|>think<|sep|>" + response(quoted.replace("I may", "You may")) + END
    message = verified(text)
    assert message.reasoning_content == quoted
    assert message.content == quoted.replace("I may", "You may") and message.tool_calls == ()


def test_a_token_that_begins_no_marker_is_text_and_stray_closes_are_dropped() -> None:
    text = "a <|open|>foo<|sep|> b<|close|>response<|sep|><|close|>response<|sep|> c" + END
    message = verified(text, THINKING_OFF)
    assert message.content == "a <|open|>foo<|sep|> b c" and message.errors == ()


def test_a_dangling_token_at_the_end_is_truncated_not_text() -> None:
    for tail in ("<|close|>", "<|close|>resp", "<|open|>tools<|sep|>", "<|close|>message<|sep|>"
                 "<|close|>"):  # fmt: skip
        message = verified("Answer." + tail, THINKING_OFF)
        assert message.content == "Answer."
        assert [e.code for e in message.errors] == ["truncated"] and tail.endswith(
            message.errors[0].raw
        )


# -- calls ------------------------------------------------------------------------------------


def test_json_body_alternative() -> None:
    body = '<|open|>json type="object"<|sep|>{"options": {"a": [1, null]}}<|close|>json<|sep|>'
    message = verified("T" + tools(call("set_config", body)) + END)
    assert message.tool_calls[0].arguments == {"options": {"a": [1, None]}}


def test_malformed_json_body_is_an_error_not_a_call() -> None:
    body = '<|open|>json type="object"<|sep|>{options}<|close|>json<|sep|>'
    message = verified("T" + tools(call("set_config", body), call("get_time", index=2)) + END)
    assert names(message) == ["get_time"]
    assert [e.code for e in message.errors] == ["malformed"]


def test_attribute_values_are_entity_decoded() -> None:
    text = tools(call("say &quot;hi&quot; &amp; go", argument("te&quot;xt", "a &amp;quot; b")))
    (result,) = verified("T" + text + END).tool_calls
    assert result.name == 'say "hi" & go'
    assert result.arguments == {'te"xt': "a &amp;quot; b"}  # bodies are raw text
    (other,) = verified("T" + tools(call("a&amp;quot;b")), declared=None).tool_calls
    assert other.name == "a&quot;b"  # `&quot;` is decoded before `&amp;`


def test_typed_values_from_the_type_attribute() -> None:
    arguments = [argument("i", -3, "number"), argument("f", 2.5, "number"),
                 argument("b", False, "boolean"), argument("z", None, "null"),
                 argument("o", '{"k": [1]}', "object"), argument("a", "[1, \"x\"]", "array"),
                 argument("s", " 42 \\n ", "string")]  # fmt: skip
    (result,) = verified("T" + tools(call("anything", *arguments)), declared=None).tool_calls
    assert result.arguments == {"i": -3, "f": 2.5, "b": False, "z": None, "o": {"k": [1]},
                                "a": [1, "x"], "s": " 42 \\n "}  # fmt: skip


def test_parallel_calls_with_content_before() -> None:
    text = "T" + response("Looking.") + tools(call("get_time", argument("zone", "UTC")),
        call("get_weather", argument("location", "Oslo"), index=2)) + END  # fmt: skip
    message = verified(text)
    assert message.content == "Looking." and names(message) == ["get_time", "get_weather"]


def test_content_after_the_tools_channel_is_kept() -> None:
    message = verified("T" + response("A") + tools(call("get_time")) + "B" + END)
    assert message.content == "AB" and names(message) == ["get_time"]


def test_whitespace_between_tags_is_tolerated() -> None:
    text = ("T<|close|>think<|sep|>\n<|open|>tools<|sep|>\n  <|open|>call tool=\"get_time\" "
            "index=\"1\"<|sep|>\n" + argument("zone", "UTC") + "\n<|close|>call<|sep|>\n"
            "<|close|>tools<|sep|>\n" + END)  # fmt: skip
    assert verified(text).tool_calls[0].arguments == {"zone": "UTC"}


def test_empty_arguments_and_values() -> None:
    message = verified("T" + tools(call("get_time"), call("write_file", argument("path", "")))
                       + END)  # fmt: skip
    assert [c.arguments for c in message.tool_calls] == [{}, {"path": ""}]


def test_cjk_and_emoji() -> None:
    text = "考え中 🤔<|close|>think<|sep|>" + response("東京です 🗼") + tools(
        call("get_weather", argument("location", "東京 🌦"))) + END  # fmt: skip
    message = verified(text)
    assert (message.reasoning_content, message.content) == ("考え中 🤔", "東京です 🗼")
    assert message.tool_calls[0].arguments == {"location": "東京 🌦"}
    data = text.encode()
    assert stream(FMT, [data[i : i + 1] for i in range(len(data))], TOOLS).message == (
        stream(FMT, [text], TOOLS).message
    )


def test_undeclared_tool_is_reported_never_called() -> None:
    text = "T" + tools(call("get_time"), call("rm_rf", argument("path", "/"), index=2)) + END
    outcome = stream(FMT, list(text), TOOLS)
    assert names(outcome.message) == ["get_time"]
    (error,) = outcome.message.errors
    assert error.code == "unknown_tool" and "rm_rf" in error.message
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    verified(text)


def test_output_stopping_inside_a_value_is_truncated() -> None:
    text = "T" + "<|open|>tools<|sep|>" + call("get_time") + '<|open|>call tool="write_file"'
    message = verified(
        text + ' index="2"<|sep|><|open|>argument key="content" type="string"<|sep|>ha'
    )
    assert names(message) == ["get_time"] and message.content is None
    (error,) = message.errors
    assert error.code == "truncated" and "write_file" in error.message
    assert "content" in error.message


def test_reasoning_streams_before_the_channel_closes() -> None:
    events = stream(FMT, list("Long thought here.<|close|>think<|sep|>"), TOOLS).events
    assert [type(e) for e in events[:3]] == [ReasoningDelta] * 3


# -- truncation -------------------------------------------------------------------------------


# -- issue #35: a value never swallows the next argument's markers ----------------------------

CODE = argument("content", "print(1)")


@pytest.mark.parametrize(
    "broken",
    [
        '<|open|>argument name="path"<|sep|>a.py<|close|>argument<|sep|>',
        '<|open|>argument key="path" type=string<|sep|>a.py<|close|>argument<|sep|>',
        '<|open|>argument key="path"',
    ],
)
def test_a_malformed_next_argument_is_an_error_never_value_text(broken: str) -> None:
    text = "T" + tools(call("write_file", CODE + broken), call("get_time", index=2)) + END
    message = verified(text)
    assert names(message) == ["get_time"]
    (error,) = message.errors
    assert error.code == "malformed" and "write_file" in error.message
    assert "print(1)<|close|>argument" not in str([c.arguments for c in message.tool_calls])


def test_an_undeclared_next_argument_is_its_own_argument() -> None:
    text = "T" + tools(call("write_file", CODE, argument("mode", "w"))) + END
    (result,) = verified(text).tool_calls
    assert result.arguments == {"content": "print(1)", "mode": "w"}
