"""The `apertus` format (FORMATS.md §6.13), one-shot and streamed in every test."""

from __future__ import annotations

import json

import pytest

from protocall import formats
from protocall.formats.apertus import FORMAT
from protocall.message import Message
from protocall.testing import (
    verify,
)

THINK, END_THINK = "<|inner_prefix|>", "<|inner_suffix|>"
TOOLS_OPEN, TOOLS_CLOSE, END = "<|tools_prefix|>", "<|tools_suffix|>", "<|assistant_end|>"
PROMPT, THINKING = "<|assistant_start|>", "<|assistant_start|><|inner_prefix|>"


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


def section(*calls: tuple[str, dict[str, object]]) -> str:
    body = json.dumps([{name: arguments} for name, arguments in calls], ensure_ascii=False)
    return TOOLS_OPEN + body + TOOLS_CLOSE


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
    ('<|inner_prefix|>Need weather.<|inner_suffix|><|tools_prefix|>[{"get_weather": {"location": '
     '"Paris"}}]<|tools_suffix|><|assistant_end|>', PROMPT,
     {"reasoning_content": "Need weather.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}),
    ("I will check. " + section(("get_weather", {"location": "Paris", "days": 3}),
                                ("get_time", {"zone": "UTC"})) + " Done." + END, PROMPT,
     {"reasoning_content": None, "content": "I will check.  Done.", "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}},
         {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
    ("Thinking first." + END_THINK + "Hello!" + END, THINKING,
     {"reasoning_content": "Thinking first.", "content": "Hello!", "tool_calls": []}),
]  # fmt: skip


def test_registered() -> None:
    assert formats.get("apertus") is FORMAT


# -- reasoning -----------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FORMAT.start_state(PROMPT) is None and FORMAT.start_state(None) is None
    assert FORMAT.start_state(THINKING) == "reasoning"
    assert FORMAT.start_state(THINKING + END_THINK) is None


def test_thinking_off_prompt_starts_in_content() -> None:
    message = verified("Paris." + END, THINKING + END_THINK)
    assert (message.reasoning_content, message.content) == (None, "Paris.")


@pytest.mark.parametrize(("prefix", "prompt"), [(THINK, PROMPT), ("", THINKING)])
def test_a_tool_section_ends_open_reasoning(prefix: str, prompt: str) -> None:
    text = prefix + "Look it up." + section(("get_time", {"zone": "UTC"})) + END
    message = verified(text, prompt)
    assert (message.reasoning_content, message.content) == ("Look it up.", None)
    assert names(message) == ["get_time"]


@pytest.mark.parametrize("terminator", [END_THINK, END, ""])
def test_reasoning_terminators(terminator: str) -> None:
    message = verified(THINK + " Hmm. " + terminator + "x", PROMPT)
    assert message.reasoning_content == "Hmm." + ("" if terminator else " x")
    assert message.content == ("x" if terminator else None)


def test_marker_text_quoted_in_closed_reasoning_and_content_stays_text() -> None:
    thought = f"Maybe {TOOLS_OPEN} then [ or {TOOLS_OPEN}x and {TOOLS_CLOSE}."
    message = verified(THINK + thought + END_THINK + f"Use {TOOLS_OPEN} like this." + END)
    assert message.reasoning_content == thought
    assert message.content == f"Use {TOOLS_OPEN} like this." and message.tool_calls == ()


# -- calls ---------------------------------------------------------------------------------------


def test_parallel_calls_and_sections() -> None:
    text = (section(("get_time", {"zone": "UTC"}), ("get_weather", {"location": "Rome"}))
            + " and " + section(("get_weather_forecast", {"location": "Oslo"})) + END)  # fmt: skip
    message = verified(text)
    assert names(message) == ["get_time", "get_weather", "get_weather_forecast"]
    assert message.content == "and"


@pytest.mark.parametrize("gap", ["", " ", "\n", "\n  \t"])
def test_whitespace_inside_the_array(gap: str) -> None:
    text = (f'{TOOLS_OPEN}{gap}[{gap}{{{gap}"get_time"{gap}:{gap}{{"zone": "UTC"}}{gap}}}{gap},'
            f'{gap}{{"get_time": {{}}}}{gap}]{gap}{TOOLS_CLOSE}{END}')  # fmt: skip
    message = verified(text)
    assert [c.arguments for c in message.tool_calls] == [{"zone": "UTC"}, {}]


def test_missing_suffix_is_tolerated() -> None:
    message = verified(TOOLS_OPEN + '[{"get_time": {"zone": "UTC"}}]' + END)
    assert names(message) == ["get_time"] and message.errors == ()
    message = verified(TOOLS_OPEN + '[{"get_time": {}}] then text')
    assert names(message) == ["get_time"] and message.content == "then text"


def test_typed_values_keep_their_json_types() -> None:
    arguments = {
        "days": 3,
        "ratio": -1.5e3,
        "hourly": True,
        "unit": None,
        "list": [1, "two"],
        "options": {"a": {"b": False}},
        "zone": "42",
        "n": 12345678901234567890,
    }
    (result,) = verified(section(("set_config", arguments)), tools=None).tool_calls
    assert result.arguments == arguments and json.loads(result.arguments_json) == arguments


def test_cjk_and_emoji() -> None:
    arguments = {"location": "東京 🌸", "note": "晴れ ☀️"}
    message = verified(
        THINK + "天気 🤔" + END_THINK + "了解 👍" + section(("get_weather", arguments))
    )
    assert (message.reasoning_content, message.content) == ("天気 🤔", "了解 👍")
    assert message.tool_calls[0].arguments == arguments


def test_undeclared_tool_is_reported_and_the_others_kept() -> None:
    text = section(("get_time", {"zone": "UTC"}), ("launch", {"n": 3}), ("get_weather", {})) + END
    message = verified(text)
    assert names(message) == ["get_time", "get_weather"]
    (error,) = message.errors
    assert error.code == "unknown_tool" and "launch" in error.message


def test_an_invalid_sibling_is_an_error_of_its_own() -> None:
    text = (
        f'{TOOLS_OPEN}[{{"get_time": {{"zone": "UTC"}}}}, {{"get_weather": nope}}]{TOOLS_CLOSE}ok'
    )
    message = verified(text)
    assert names(message) == ["get_time"]
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == '{"get_weather": nope}'
    assert message.content == error.raw + "ok"


def test_a_sibling_whose_brackets_do_not_close_makes_the_whole_list_malformed() -> None:
    text = f'{TOOLS_OPEN}[{{"get_time": {{"zone": "UTC"}}}}, {{"get_weather": [}}]{TOOLS_CLOSE}ok'
    message = verified(text)
    assert names(message) == []
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == text[: -len("ok")]


def test_a_second_key_in_a_call_object_is_malformed() -> None:
    message = verified(TOOLS_OPEN + '[{"get_time": {}, "x": 1}]' + TOOLS_CLOSE)
    assert message.tool_calls == () and [e.code for e in message.errors] == ["malformed"]


# -- truncation ----------------------------------------------------------------------------------
