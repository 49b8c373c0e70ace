"""The `cohere` format (FORMATS.md §6.9), one-shot and streamed in every test."""

from __future__ import annotations

import json

import pytest

from protocall import formats
from protocall.formats.cohere import FORMAT
from protocall.message import Message
from protocall.testing import (
    verify,
)

THINK, END_THINK = "<|START_THINKING|>", "<|END_THINKING|>"
RESPONSE, END_RESPONSE = "<|START_RESPONSE|>", "<|END_RESPONSE|>"
ACTION, END_ACTION, EOT = "<|START_ACTION|>", "<|END_ACTION|>", "<|END_OF_TURN_TOKEN|>"
PROMPT = "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"


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
]


def action(*calls: tuple[str, dict[str, object]]) -> str:
    """Calls as the template writes them: ids from 0, one object per line."""
    objects = [
        json.dumps(
            {"tool_call_id": str(i), "tool_name": name, "parameters": args}, ensure_ascii=False
        )
        for i, (name, args) in enumerate(calls)
    ]
    return ACTION + "[\n    " + ",\n    ".join(objects) + "\n]" + END_ACTION


def verified(
    text: str,
    prompt: str | None = PROMPT,
    *,
    tools: list[dict[str, object]] | None = TOOLS,
    expected: dict[str, object] | None = None,
) -> Message:
    """Every property of the testing kit, one chunk against several, each call whole too."""
    return verify(FORMAT, text, prompt, tools=tools, expected=expected)


def names(message: Message) -> list[str]:
    return [c.name for c in message.tool_calls]


# -- FORMATS.md §6.16 example ------------------------------------------------------------------

EXAMPLES = [
    ('<|START_THINKING|>I should check.<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": '
     '"0", "tool_name": "get_weather", "parameters": {"location": "Paris"}}\n]<|END_ACTION|>'
     "<|END_OF_TURN_TOKEN|>", PROMPT,
     {"reasoning_content": "I should check.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}),
    (THINK + "Two." + END_THINK + action(("get_time", {"zone": "UTC"}),
                                         ("get_weather", {"location": "Oslo", "days": 2})) + EOT,
     PROMPT,
     {"reasoning_content": "Two.", "content": None, "tool_calls": [
         {"name": "get_time", "arguments": {"zone": "UTC"}},
         {"name": "get_weather", "arguments": {"location": "Oslo", "days": 2}}]}),
    ("It is sunny.<|END_THINKING|><|START_RESPONSE|>Sunny in Paris.<|END_RESPONSE|>"
     "<|END_OF_TURN_TOKEN|>", PROMPT + THINK,
     {"reasoning_content": "It is sunny.", "content": "Sunny in Paris.", "tool_calls": []}),
]  # fmt: skip


def test_registered() -> None:
    assert formats.get("cohere") is FORMAT


# -- ids, regions --------------------------------------------------------------------------------


def test_tool_call_id_is_kept_as_the_call_id() -> None:
    text = action(("get_time", {"zone": "UTC"}), ("get_weather", {})) + EOT
    assert [c.id for c in verified(text).tool_calls] == ["0", "1"]
    text = (
        f'{ACTION}[{{"tool_call_id": 7, "tool_name": "get_time", "parameters": {{}}}}]{END_ACTION}'
    )
    assert [c.id for c in verified(text).tool_calls] == ["7"]


def test_members_in_any_order_and_other_members_skipped() -> None:
    text = (f'{ACTION}[{{"parameters": {{"zone": "UTC"}}, "note": [1, {{"a": null}}], '
            f'"tool_name": "get_time"}}]{END_ACTION}')  # fmt: skip
    (result,) = verified(text).tool_calls
    assert (result.name, result.arguments) == ("get_time", {"zone": "UTC"})


def test_regions_in_any_order_and_repeated() -> None:
    text = (RESPONSE + "First." + END_RESPONSE + THINK + "Then think." + END_THINK
            + action(("get_time", {})) + " Bare text. " + RESPONSE + "Last." + END_RESPONSE
            + EOT)  # fmt: skip
    message = verified(text)
    assert message.reasoning_content == "Then think."
    assert message.content == "First. Bare text. Last." and names(message) == ["get_time"]


def test_command_a_vision_text_region_is_content() -> None:
    message = verified("<|START_TEXT|>A cat.<|END_TEXT|>" + EOT)
    assert message.content == "A cat."


def test_citations_stay_text() -> None:
    answer = "Paris is <co>sunny</co: 0:[1]> today."
    assert verified(RESPONSE + answer + END_RESPONSE + EOT).content == answer


def test_stray_closes_are_dropped_and_stray_tokens_are_text() -> None:
    message = verified("a <|b|> c" + END_ACTION + END_RESPONSE + " d" + EOT)
    assert message.content == "a <|b|> c d" and message.errors == ()


def test_a_thinking_close_with_no_thinking_open_is_dropped_and_reported() -> None:
    message = verified("a" + END_THINK + " d" + EOT)
    assert message.content == "a d"
    assert [(error.code, error.raw) for error in message.errors] == [
        ("unopened_reasoning", END_THINK)
    ]


def test_an_action_opener_that_heads_no_call_is_text() -> None:
    prose = f"Write {ACTION} then [ and a call, or {ACTION}[ x."
    message = verified(RESPONSE + prose + END_RESPONSE + EOT)
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- reasoning -----------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FORMAT.start_state(PROMPT) is None and FORMAT.start_state(None) is None
    assert FORMAT.start_state(PROMPT + THINK) == "reasoning"
    assert FORMAT.start_state(PROMPT + THINK + END_THINK) is None


@pytest.mark.parametrize("terminator", [END_THINK, RESPONSE, EOT, ""])
def test_reasoning_terminators(terminator: str) -> None:
    message = verified(THINK + "Hmm. " + terminator + "x")
    assert message.reasoning_content == "Hmm." + ("" if terminator else " x")
    assert message.content == ("x" if terminator else None)


@pytest.mark.parametrize(("prefix", "prompt"), [(THINK, PROMPT), ("", PROMPT + THINK)])
def test_an_action_ends_open_reasoning(prefix: str, prompt: str) -> None:
    message = verified(prefix + "Look it up." + action(("get_time", {"zone": "UTC"})) + EOT, prompt)
    assert (message.reasoning_content, message.content) == ("Look it up.", None)
    assert names(message) == ["get_time"]


# -- calls ---------------------------------------------------------------------------------------


def test_typed_values_keep_their_json_types() -> None:
    arguments = {"days": 3, "ratio": -1.5e3, "hourly": True, "unit": None, "list": [1, "two"],
                 "options": {"a": {"b": False}}, "zone": "42",
                 "n": 12345678901234567890}  # fmt: skip
    (result,) = verified(action(("set_config", arguments)), tools=None).tool_calls
    assert result.arguments == arguments and json.loads(result.arguments_json) == arguments


def test_undeclared_tool_is_reported_and_the_others_kept() -> None:
    text = action(("get_time", {"zone": "UTC"}), ("launch", {"n": 3}), ("get_weather", {})) + EOT
    message = verified(text)
    assert names(message) == ["get_time", "get_weather"]
    (error,) = message.errors
    assert error.code == "unknown_tool" and "launch" in error.message


def test_an_invalid_sibling_is_an_error_of_its_own() -> None:
    text = (
        f'{ACTION}[{{"tool_name": "get_time", "parameters": {{}}}}, {{"tool_name": 3}}]{END_ACTION}'
    )
    message = verified(text + EOT)
    assert names(message) == ["get_time"]
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == '{"tool_name": 3}'


# -- truncation ----------------------------------------------------------------------------------
