"""The `granite` format (FORMATS.md §6.10): IBM Granite 3.x."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocall import formats
from protocall.events import ReasoningDelta
from protocall.message import Message
from protocall.testing import stream, verify

GRANITE = formats.get("granite")
CALL, EOT = "<|tool_call|>", "<|end_of_text|>"
PROMPT = "<|start_of_role|>assistant<|end_of_role|>"


def function(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


STRING = {"type": "string"}
TOOLS = [
    function("get_weather", location=STRING, days={"type": "integer"}),
    function("get_weather_forecast", location=STRING),
    function("get_time", zone=STRING),
    function("write_file", path=STRING, content=STRING),
]


def obj(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def calls(*objects: str, opener: str = CALL) -> str:
    return opener + "[" + ", ".join(objects) + "]"


def parse(text: str, prompt: str | None = PROMPT, tools: Any = TOOLS) -> Message:
    """`text` parsed every way (`verify`: one chunk, per character, in 3-character and
    random chunkings, each call whole), every property of the testing kit holding."""
    return verify(GRANITE, text, prompt, tools=tools)


def calls_of(message: Message) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]


# -- FORMATS.md §6.16 (6.10) -------------------------------------------------------------------

EXAMPLE = '<|tool_call|>[{"name": "get_weather", "arguments": {"location": "Paris"}}]'
EXPECTED = {
    "reasoning_content": None,
    "content": None,
    "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
}
EXAMPLES = [(EXAMPLE, None, EXPECTED)]  # with the generic tests in tests/test_families


def test_formats_md_example() -> None:
    message = parse(EXAMPLE)
    assert message.to_dict() == EXPECTED and message.errors == ()


# -- calls -----------------------------------------------------------------------------------------


def test_parallel_calls_with_content_before_and_after() -> None:
    text = ("Sure. " + calls(obj("get_time", {"zone": "UTC"}), obj("get_weather", {"days": 2}))
            + " Anything else?" + EOT)  # fmt: skip
    message = parse(text)
    assert message.content == "Sure.  Anything else?"
    assert [c.name for c in message.tool_calls] == ["get_time", "get_weather"]


def test_granite_3_1_opener_spelling() -> None:
    message = parse(calls(obj("get_time", {"zone": "UTC"}), opener="<tool_call>") + EOT)
    assert [c.name for c in message.tool_calls] == ["get_time"] and message.content is None


def test_opener_without_a_list_stays_text() -> None:
    text = 'Use <|tool_call|> then a list; <tool_call>{"name": "get_time"}</tool_call> is Hermes.'
    message = parse(text)
    assert message.content == text and message.tool_calls == ()


def test_arguments_before_the_name_are_given_after_it() -> None:
    text = CALL + '[{"arguments": {"zone": "UTC"}, "name": "get_time"}]'
    message = parse(text)
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert message.tool_calls[0].arguments_json == '{"zone": "UTC"}'


def test_undeclared_tool_is_reported_and_the_other_calls_kept() -> None:
    message = parse(calls(obj("launch_rockets", {"n": 3}), obj("get_time", {"zone": "UTC"})))
    assert [c.name for c in message.tool_calls] == ["get_time"]
    assert [e.code for e in message.errors] == ["unknown_tool"]


def test_typed_values_keep_their_json_types() -> None:
    arguments = {"n": 12345678901234567890, "x": -1.5e3, "b": True, "z": None,
                 "list": [1, "two", [3.0]], "o": {"a": {"b": False}}, "s": "42"}  # fmt: skip
    (done,) = parse(calls(obj("set_config", arguments)), tools=None).tool_calls
    assert done.arguments == arguments and json.loads(done.arguments_json) == arguments


# -- reasoning -------------------------------------------------------------------------------------


def test_granite_3_3_think_and_response_tags() -> None:
    text = "<think>The user wants Paris.</think><response>Let me check.</response>"
    message = parse(text + calls(obj("get_weather", {"location": "Paris"})) + EOT)
    assert (message.reasoning_content, message.content) == (
        "The user wants Paris.",
        "Let me check.",
    )
    assert [c.name for c in message.tool_calls] == ["get_weather"]


@pytest.mark.parametrize("spelling", ["Here is", "Here's"])
def test_granite_3_2_thought_and_response_phrases(spelling: str) -> None:
    text = f"{spelling} my thought process:\nNeed weather.\n{spelling} my response:\nSure."
    message = parse(text + EOT)
    assert (message.reasoning_content, message.content) == ("Need weather.", "Sure.")


def test_thought_phrase_counts_only_at_the_start() -> None:
    text = "Well. Here is my thought process: none. Here is my response: ok."
    message = parse(text)
    assert message.reasoning_content is None and message.content == text


def test_thought_phrase_is_held_back_until_decided() -> None:
    session = GRANITE.parser(TOOLS, seed=0)
    assert session.feed("Here is my thought") == []
    events = session.feed(" process: hmm")
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "hmm"
    session = GRANITE.parser(TOOLS, seed=0)
    assert session.feed("Here is my") == []
    assert session.feed(" answer") != []


@pytest.mark.parametrize(
    "text",
    [
        "<think>Need weather." + calls(obj("get_weather", {"location": "Paris"})),
        "Here is my thought process: Need weather."
        + calls(obj("get_weather", {"location": "Paris"})),
    ],
)
def test_call_ends_an_unclosed_reasoning_block(text: str) -> None:
    message = parse(text + EOT)
    assert message.reasoning_content == "Need weather." and message.content is None
    assert [c.name for c in message.tool_calls] == ["get_weather"]


def test_opener_quoted_in_reasoning_stays_reasoning() -> None:
    message = parse("<think>I could write <|tool_call|> now.</think>Done.")
    assert message.reasoning_content == "I could write <|tool_call|> now."
    assert message.content == "Done." and message.tool_calls == ()


def test_generation_prompt_starts_in_content_and_reasoning_may_follow() -> None:
    assert GRANITE.start_state(PROMPT) is None
    assert parse("Hi." + EOT, PROMPT).content == "Hi."
    assert parse("<think>x</think>Hi.", None).to_dict()["reasoning_content"] == "x"


# -- truncation and errors -------------------------------------------------------------------------


def test_truncated_error_names_the_call() -> None:
    text = calls(obj("get_time", {"zone": "UTC"}), obj("get_weather", {"location": "Paris"}))[:-8]
    message = stream(GRANITE, [text], TOOLS).message
    assert [c.name for c in message.tool_calls] == []  # the list never closed
    (error,) = message.errors
    assert error.code == "truncated" and "get_weather" in error.message


def test_malformed_call_is_reported_and_passed_through() -> None:
    text = CALL + '[{"name": "get_time", "arguments": {"zone": UTC}}]' + EOT
    message = parse(text)
    (error,) = message.errors
    assert error.code == "malformed" and message.tool_calls == ()
    assert message.content == error.raw == text[len(CALL) + 1 : -len("]" + EOT)]
