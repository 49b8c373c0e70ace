"""The `ling-3` format (FORMATS.md §4), one-shot and streamed in every test."""

from __future__ import annotations

import pytest

from protocall import formats
from protocall.events import ReasoningDelta, ToolCallEnd, ToolCallStart
from protocall.message import Message
from protocall.testing import (
    PROPERTIES,
    Case,
    Trial,
    stream,
    verify,
)
from protocall.tools import normalize_tools

FMT = formats.get("ling-3")
THINKING = "<role>ASSISTANT</role>\n<think>"
THINKING_OFF = "<role>ASSISTANT</role>\n<think></think>"


def tool(name: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


STRING, INTEGER = {"type": "string"}, {"type": "integer"}
TOOLS = [
    tool("get_weather", location=STRING, days=INTEGER, hourly={"type": "boolean"}),
    tool("get_weather_forecast", location=STRING),
    tool("get_time", zone=STRING),
    tool("write_file", path=STRING, content=STRING),
    tool("typed", n=INTEGER, x={"type": "number"}, flag={"type": "boolean"},
         items={"type": "array"}, options={"type": "object"}, maybe={"type": ["integer", "null"]},
         either={"anyOf": [{"type": "integer"}, {"type": "string"}]}, code=STRING),
]  # fmt: skip


def call(name: str, **values: str) -> str:
    """A call as the template renders it; values are raw text."""
    pairs = "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in values.items()
    )
    return f"<tool_call>{name}\n{pairs}</tool_call>"


def verified(
    text: str,
    prompt: str | None = None,
    *,
    tools: list[dict[str, object]] | None = TOOLS,
    expected: dict[str, object] | None = None,
) -> Message:
    """Every property of the testing kit, one chunk against several (`verify`)."""
    return verify(FMT, text, prompt, tools=tools, expected=expected)


def names(message: Message) -> list[str]:
    return [c.name for c in message.tool_calls]


# -- FORMATS.md §4 examples -------------------------------------------------------------------

EXAMPLES = [
    ("Simple arithmetic.</think>2 + 2 = 4.<|role_end|>", None,
     {"reasoning_content": "Simple arithmetic.", "content": "2 + 2 = 4.", "tool_calls": []}),
    ("The user wants the Paris forecast.</think>Let me look that up.\n<tool_call>get_weather\n"
     "<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n"
     "<arg_value>3</arg_value>\n</tool_call><|role_end|>", None,
     {"reasoning_content": "The user wants the Paris forecast.", "content": "Let me look that up.",
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}]}),
    ("</think><tool_call>get_weather<arg_key>location</arg_key><arg_value>Paris</arg_value>"
     "</tool_call>\n<tool_call>get_time\n<arg_key>zone</arg_key>\n<arg_value>Europe/Paris"
     "</arg_value>\n</tool_call><|role_end|>", None,
     {"reasoning_content": None, "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris"}},
         {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]}),
    ("I should call the weather tool.\n<tool_call>get_weather\n<arg_key>location</arg_key>\n"
     "<arg_value>Paris</arg_value>\n</tool_call><|role_end|>", THINKING,
     {"reasoning_content": "I should call the weather tool.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}),
    ("Paris is the capital of France.<|role_end|>", THINKING_OFF,
     {"reasoning_content": None, "content": "Paris is the capital of France.", "tool_calls": []}),
]  # fmt: skip


# -- reasoning and the generation prompt ----------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FMT.start_state(None) == "reasoning"  # the template default is thinking on
    assert FMT.start_state(THINKING) == "reasoning"
    assert FMT.start_state(THINKING_OFF) is None


def test_call_inside_the_open_reasoning_block_is_a_call() -> None:
    """The motivating bug (llama.cpp #27462): `<tool_call>` before `</think>`."""
    text = "Let me check both.\n" + call("get_time", zone="UTC") + "\n" + call("get_weather",
        location="Oslo") + "<|role_end|>"  # fmt: skip
    for prompt in (None, THINKING):
        message = verified(text, prompt)
        assert message.reasoning_content == "Let me check both." and message.content is None
        assert names(message) == ["get_time", "get_weather"]
    data = text.encode()
    by_byte = stream(FMT, [data[i : i + 1] for i in range(len(data))], TOOLS).message
    assert by_byte == stream(FMT, [text], TOOLS).message


def test_reasoning_deltas_stop_at_the_call() -> None:
    text = "Think." + call("get_time", zone="UTC")
    events = stream(FMT, list(text), TOOLS).merged_events
    assert events[0] == ReasoningDelta("Think.")
    assert isinstance(events[1], ToolCallStart)


def test_thinking_off_everything_is_content() -> None:
    message = verified("Answer." + call("get_time", zone="UTC"), THINKING_OFF)
    assert (message.reasoning_content, message.content) == (None, "Answer.")


def test_model_opened_reasoning_when_thinking_is_off() -> None:
    message = verified("<think>Hmm.</think>Answer.", THINKING_OFF)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Answer.")


def test_call_like_text_quoted_in_closed_reasoning_stays_reasoning() -> None:
    thought = "I will emit <tool_call> get_weather next, then <tool_call>get_time."
    message = verified(f"{thought}</think>Done." + call("get_time", zone="UTC"))
    assert message.reasoning_content == thought
    assert message.content == "Done." and names(message) == ["get_time"]


def test_call_like_text_in_content_prose_stays_content() -> None:
    prose = "Wrap it in <tool_call> tags: <tool_call>name then <arg_key>… (see docs)."
    message = verified(prose + "<|role_end|>", THINKING_OFF)
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- calls ------------------------------------------------------------------------------------


def test_prose_after_the_last_call_is_content() -> None:
    text = "A " + call("get_time", zone="UTC") + "\nB\n" + call("get_time", zone="CET") + " C"
    message = verified(text, THINKING_OFF)
    assert message.content == "A \nB\n C" and len(message.tool_calls) == 2


def test_whitespace_between_consecutive_calls_is_not_content() -> None:
    text = "A\n" + call("get_time", zone="UTC") + "\n\n" + call("get_time", zone="CET") + "\nB"
    assert verified(text, THINKING_OFF).content == "A\n\nB"


@pytest.mark.parametrize("gap", ["", "\n", " ", "\n\t  \n"])
def test_optional_whitespace_between_every_tag(gap: str) -> None:
    text = (f"<tool_call>get_weather{gap}<arg_key>location</arg_key>{gap}<arg_value>Paris"
            f"</arg_value>{gap}<arg_key>days</arg_key>{gap}<arg_value>2</arg_value>{gap}"
            "</tool_call><|role_end|>")  # fmt: skip
    (result,) = verified(text, THINKING_OFF).tool_calls
    assert result.arguments == {"location": "Paris", "days": 2}


def test_name_is_stripped_and_ended_by_whitespace_key_or_close() -> None:
    text = ("<tool_call> get_time \n<arg_key>zone</arg_key><arg_value>UTC</arg_value></tool_call>"
            "<tool_call>get_time<arg_key>zone</arg_key><arg_value>CET</arg_value></tool_call>"
            "<tool_call>get_time</tool_call><tool_call>\nget_time\n</tool_call>")  # fmt: skip
    message = verified(text, THINKING_OFF)
    assert [c.arguments for c in message.tool_calls] == [{"zone": "UTC"}, {"zone": "CET"}, {}, {}]


def test_values_are_verbatim() -> None:
    value = "\n  def f():\n      return '<x>'\n"
    (result,) = verified(call("write_file", content=value), THINKING_OFF).tool_calls
    assert result.arguments == {"content": value}


def test_empty_values() -> None:
    (result,) = verified(call("write_file", path="", content=""), THINKING_OFF).tool_calls
    assert result.arguments == {"path": "", "content": ""}


def test_cjk_and_emoji() -> None:
    text = "東京の天気 🌦</think>調べます。" + call("get_weather", location="東京 🗼")
    message = verified(text)
    assert (message.reasoning_content, message.content) == ("東京の天気 🌦", "調べます。")
    assert message.tool_calls[0].arguments == {"location": "東京 🗼"}


def test_stray_invalid_utf8_bytes_are_replaced_never_a_crash() -> None:
    data = (b"Hm \xff\xfe.</think>A \xc3<tool_call>get_time<arg_key>zone</arg_key><arg_value>U"
            b"\xe6\x9c</arg_value></tool_call><|role_end|>")  # fmt: skip
    whole = stream(FMT, [data], TOOLS).message
    assert whole == stream(FMT, [data[i : i + 1] for i in range(len(data))], TOOLS).message
    assert (whole.reasoning_content, whole.content) == ("Hm \ufffd\ufffd.", "A \ufffd")
    assert whole.tool_calls[0].arguments == {"zone": "U\ufffd"} and not whole.errors


def test_typed_values_from_the_schema() -> None:
    text = call("typed", n="7", x="-0.5", flag="false", items='["a", 2]', options='{"k": null}',
                maybe="null", either="12", code="0012")  # fmt: skip
    (result,) = verified(text, THINKING_OFF).tool_calls
    assert result.arguments == {"n": 7, "x": -0.5, "flag": False, "items": ["a", 2],
                                "options": {"k": None}, "maybe": None, "either": 12,
                                "code": "0012"}  # fmt: skip


def test_unions_fall_back_to_the_raw_string_and_numeric_strings_stay_strings() -> None:
    text = call("typed", either="twelve") + call("get_weather", location="2026-01-15")
    first, second = verified(text, THINKING_OFF).tool_calls
    assert first.arguments == {"either": "twelve"}
    assert second.arguments == {"location": "2026-01-15"}


def test_undeclared_tool_is_reported_never_called() -> None:
    text = call("get_time", zone="UTC") + call("rm_rf", path="/") + "<|role_end|>"
    outcome = stream(FMT, list(text), TOOLS, THINKING_OFF)
    assert names(outcome.message) == ["get_time"]
    (error,) = outcome.message.errors
    assert error.code == "unknown_tool" and "rm_rf" in error.message
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    verified(text, THINKING_OFF)


def test_key_is_the_text_before_its_close_tag() -> None:
    text = "<tool_call>write_file<arg_key> path </arg_key><arg_value>/a</arg_value></tool_call>"
    assert verified(text, THINKING_OFF).tool_calls[0].arguments == {"path": "/a"}


def test_output_stopping_inside_a_value_is_truncated() -> None:
    text = call("get_time", zone="UTC") + "<tool_call>write_file\n<arg_key>content</arg_key>"
    message = verified(text + "<arg_value>half a val", THINKING_OFF)
    assert names(message) == ["get_time"] and message.content is None
    (error,) = message.errors
    assert error.code == "truncated" and "write_file" in error.message
    assert "content" in error.message


# -- truncation -------------------------------------------------------------------------------


def test_truncation_at_every_position_of_calls_in_the_open_reasoning_block() -> None:
    """(Calls after the block, as the renderer writes them: tests/test_families.)"""
    first = call("get_time", zone="UTC")
    second = call("write_file", path="/a", content="x <y> z\n")
    text = "Plan." + first + "\nthen " + second + "<|role_end|>"
    full = Case(text, normalize_tools(TOOLS), None, "reasoning", expected=verified(text).to_dict())
    reference = stream(FMT, [text], TOOLS)
    spans = [(text.index(c), text.index(c) + len(c)) for c in (first, second)]
    for end in range(len(text)):
        cut = text[:end]
        case = Case(cut, full.tools, None, "reasoning", truncates=full)
        whole = stream(FMT, [cut], TOOLS)
        size = 1 + end % 4  # chunks of 1 to 4 characters, varying with the cut
        chunks = [cut[i : i + size] for i in range(0, end, size)]
        trial = Trial(FMT, case, chunks, whole, stream(FMT, chunks, TOOLS), reference)
        for prop in PROPERTIES:
            assert prop.check(trial) is None, (end, prop.name, prop.check(trial))
        message = whole.message
        assert names(message) == ["get_time", "write_file"][: sum(e <= end for _, e in spans)]
        inside = [s for s, e in spans if s + len("<tool_call>") <= end < e]
        if inside:
            (error,) = message.errors
            assert error.code == "truncated" and "tool call" in error.message
            assert error.raw == text[inside[0] : end]
        assert not any(e.code != "truncated" for e in message.errors)
        assert not any(isinstance(e, ToolCallEnd) and e.index == len(message.tool_calls)
                       for e in whole.events)  # fmt: skip


# -- issue #15 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("redundant", ["<think>", "\n<think>\n"])
def test_a_redundant_think_after_the_pre_opened_prompt_is_dropped(redundant: str) -> None:
    message = verified(redundant + "Hmm.</think>Answer.<|role_end|>", THINKING)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Answer.")


def test_a_redundant_think_then_a_call_still_ends_the_block() -> None:
    message = verified("<think>Check." + call("get_time", zone="UTC") + "<|role_end|>", THINKING)
    assert message.reasoning_content == "Check." and names(message) == ["get_time"]


def test_think_later_in_the_reasoning_is_text() -> None:
    message = verified("Hmm, <think> is a tag.</think>Answer.", THINKING)
    assert message.reasoning_content == "Hmm, <think> is a tag."


def test_a_malformed_key_is_an_error_never_part_of_a_value() -> None:
    text = ("<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Seattle</arg_value>\n"
            "<arg_key>unit<arg_value>c</arg_value>\n</tool_call><|role_end|>")  # fmt: skip
    message = verified(text, THINKING_OFF)
    assert message.tool_calls == () and [e.code for e in message.errors] == ["malformed"]
