"""The `qwen3-coder` format (FORMATS.md §1), one-shot and streamed in every test."""

from __future__ import annotations

import pytest

from protocall import formats
from protocall.events import ToolCallArgumentsDelta, ToolCallStart
from protocall.message import Message
from protocall.testing import (
    example_tests,
    stream,
    verify,
)

FMT = formats.get("qwen3-coder")
PLAIN = "<|im_start|>assistant\n"
THINKING = "<|im_start|>assistant\n<think>\n"
THINKING_OFF = "<|im_start|>assistant\n<think>\n\n</think>\n\n"


def tool(name: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


STRING, INTEGER = {"type": "string"}, {"type": "integer"}
TOOLS = [
    tool("get_weather", location=STRING, days=INTEGER, hourly={"type": "boolean"},
         unit={"type": "string", "enum": ["celsius", "fahrenheit"]}),
    tool("get_weather_forecast", location=STRING),
    tool("get_time", zone=STRING),
    tool("write_file", path=STRING, content=STRING),
    tool("set_config", options={"type": "object"}),
    tool("typed", n=INTEGER, x={"type": "number"}, flag={"type": "boolean"},
         items={"type": "array"}, options={"type": "object"}, maybe={"type": ["integer", "null"]},
         label={"type": ["string", "null"]}, code=STRING),
]  # fmt: skip


def call(name: str, **values: str) -> str:
    """A call as the template renders it; values are raw text."""
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in values.items())
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


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


# -- FORMATS.md §1 examples -------------------------------------------------------------------

EXAMPLES = [
    ("The capital of France is Paris.<|im_end|>", None,
     {"reasoning_content": None, "content": "The capital of France is Paris.", "tool_calls": []}),
    ("I'll check the weather for you.\n\n" + call("get_weather", location="Paris", days="3")
     + "<|im_end|>", None,
     {"reasoning_content": None, "content": "I'll check the weather for you.",
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}]}),
    (call("get_weather", location="Paris", hourly="true") + "\n"
     + call("get_time", zone="Europe/Paris") + "<|im_end|>", None,
     {"reasoning_content": None, "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris", "hourly": True}},
         {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]}),
    (call("write_file", path="/tmp/a.py", content="def f():\n    return 1\n"), None,
     {"reasoning_content": None, "content": None, "tool_calls": [{"name": "write_file",
      "arguments": {"path": "/tmp/a.py", "content": "def f():\n    return 1\n"}}]}),
    ("The user wants Paris weather; call the tool.\n" + call("get_weather", location="Paris")
     + "<|im_end|>", THINKING,
     {"reasoning_content": "The user wants Paris weather; call the tool.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}),
]  # fmt: skip

# run by tests/families/test_families.py, with the generic tests of every format


def test_whole_call_in_one_delta() -> None:
    text = "Sure." + call("get_weather", location="Paris") + "<|im_end|>"
    at = text.index("<tool_call>")
    chunks = [*text[:at], call("get_weather", location="Paris"), "<|im_end|>"]
    outcome = stream(FMT, chunks, TOOLS)
    assert outcome.message == stream(FMT, [text], TOOLS).message
    assert names(outcome.message) == ["get_weather"]


def test_string_values_stream_as_they_arrive() -> None:
    text = call("write_file", path="/a", content="line one\nline two\n")
    deltas = [e for e in stream(FMT, list(text), TOOLS).events
              if isinstance(e, ToolCallArgumentsDelta)]  # fmt: skip
    assert len(deltas) > 20


# -- reasoning --------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FMT.start_state(None) is None
    assert FMT.start_state(PLAIN) is None
    assert FMT.start_state(THINKING) == "reasoning"
    assert FMT.start_state(THINKING_OFF) is None


def test_thinking_on_reasoning_ends_at_close() -> None:
    message = verified("Think.\n</think>\n\nAnswer.<|im_end|>", THINKING)
    assert (message.reasoning_content, message.content) == ("Think.", "Answer.")


def test_thinking_off_everything_is_content() -> None:
    message = verified("Answer.<|im_end|>", THINKING_OFF)
    assert (message.reasoning_content, message.content) == (None, "Answer.")


def test_model_opened_reasoning_without_a_pre_opened_block() -> None:
    message = verified("<think>Hmm.</think>Answer.", PLAIN)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Answer.")


def test_call_inside_unclosed_reasoning_is_a_call() -> None:
    text = "Need two things.\n" + call("get_time", zone="UTC") + "\n" + call("get_weather",
        location="Oslo") + "<|im_end|>"  # fmt: skip
    message = verified(text, THINKING)
    assert message.reasoning_content == "Need two things."
    assert names(message) == ["get_time", "get_weather"] and message.content is None


def test_bare_function_inside_unclosed_reasoning_is_a_call() -> None:
    text = "Plan.\n<function=get_time>\n<parameter=zone>\nUTC\n</parameter>\n</function>"
    message = verified(text, THINKING)
    assert message.reasoning_content == "Plan." and names(message) == ["get_time"]


def test_call_like_text_quoted_in_closed_reasoning_stays_reasoning() -> None:
    thought = "I will emit <tool_call> then <function=get_weather> and <function=x>."
    message = verified(f"{thought}</think>Done." + call("get_time", zone="UTC"), THINKING)
    assert message.reasoning_content == thought
    assert message.content == "Done." and names(message) == ["get_time"]


def test_call_like_text_in_content_prose_stays_content() -> None:
    prose = ("Use <tool_call> tags, e.g. <tool_call> get_weather, or #include <functional>; "
             "<function=foo>x</function> and <function=get_weather> here.")  # fmt: skip
    message = verified(prose + "<|im_end|>")
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- calls ------------------------------------------------------------------------------------


def test_content_before_between_and_after_calls() -> None:
    text = ("A " + call("get_time", zone="UTC") + "\nB\n" + call("get_weather", location="Rome")
            + " C<|im_end|>")  # fmt: skip
    message = verified(text)
    assert message.content == "A \nB\n C" and names(message) == ["get_time", "get_weather"]


def test_whitespace_between_consecutive_calls_is_not_content() -> None:
    text = "A\n" + call("get_time", zone="UTC") + "\n\n" + call("get_time", zone="CET") + "\nB"
    message = verified(text)
    assert message.content == "A\n\nB" and len(message.tool_calls) == 2


def test_compact_and_spread_out_whitespace() -> None:
    compact = ("<tool_call><function=get_weather><parameter=location>Paris</parameter>"
               "<parameter=days>2</parameter></function></tool_call>")  # fmt: skip
    assert verified(compact).tool_calls[0].arguments == {"location": "Paris", "days": 2}
    spread = ("<tool_call>\n\n<function=get_weather>\n\n<parameter=location>\n\n  Paris\n\n"
              "</parameter>\n\n</function>\n\n</tool_call>")  # fmt: skip
    # exactly one framing newline is stripped on each side; the rest is the value
    assert verified(spread).tool_calls[0].arguments == {"location": "\n  Paris\n"}


def test_empty_arguments_and_empty_values() -> None:
    message = verified("<tool_call>\n<function=get_time>\n</function>\n</tool_call>"
                       + call("write_file", path="", content=""))  # fmt: skip
    assert [c.arguments for c in message.tool_calls] == [{}, {"path": "", "content": ""}]
    assert message.tool_calls[0].arguments_json == "{}"


def test_cjk_and_emoji() -> None:
    text = "天気を調べます 🌦\n" + call("get_weather", location="東京 🗼") + "<|im_end|>"
    message = verified(text)
    assert message.content == "天気を調べます 🌦"
    assert message.tool_calls[0].arguments == {"location": "東京 🗼"}


def test_bytes_split_inside_characters_and_invalid_utf8() -> None:
    text = "東京 🗼 " + call("get_weather", location="東京")
    data = text.encode()
    message = stream(FMT, [data[i : i + 1] for i in range(len(data))], TOOLS).message
    assert message == stream(FMT, [text], TOOLS).message
    bad = stream(FMT, [b"ok \xff", call("get_time", zone="UTC").encode()], TOOLS).message
    assert bad.content == "ok \ufffd" and names(bad) == ["get_time"]


def test_typed_values_from_the_schema() -> None:
    text = call("typed", n="-42", x="2.5", flag="True", items='[1, "two", null]',
                options='{"a": {"b": [true]}}', maybe="null", label="null", code="007")  # fmt: skip
    (result,) = verified(text).tool_calls
    assert result.arguments == {"n": -42, "x": 2.5, "flag": True, "items": [1, "two", None],
                                "options": {"a": {"b": [True]}}, "maybe": None, "label": None,
                                "code": "007"}  # fmt: skip


def test_numeric_looking_strings_stay_strings() -> None:
    text = call("get_weather", location="2026-01-15") + call("typed", code="1e3", label="12")
    first, second = verified(text).tool_calls
    assert first.arguments == {"location": "2026-01-15"}
    assert second.arguments == {"code": "1e3", "label": "12"}


def test_python_literal_objects_and_failed_conversions() -> None:
    text = call("typed", options="{'a': True, 'b': None}", n="2026-01-15", x="abc")
    (result,) = verified(text).tool_calls
    assert result.arguments == {"options": {"a": True, "b": None}, "n": "2026-01-15", "x": "abc"}
    assert result.validation_errors  # kept as strings, flagged by the schema check


def test_undeclared_first_parameter_stays_a_string() -> None:
    (result,) = verified(call("get_time", extra="3", zone="UTC")).tool_calls
    assert result.arguments == {"extra": "3", "zone": "UTC"}


def test_an_undeclared_parameter_after_a_closing_tag_is_value_text() -> None:
    # the schema tells a literal `</parameter>` in a value from a real one (issue #15)
    (result,) = verified(call("get_time", zone="UTC", extra="3")).tool_calls
    assert result.arguments == {"zone": "UTC\n</parameter>\n<parameter=extra>\n3"}


def test_a_bare_function_never_announces_the_shorter_name() -> None:
    outcome = stream(FMT, list("<function=get_weather_forecast>\n</function>"), TOOLS)
    starts = [e.name for e in outcome.events if isinstance(e, ToolCallStart)]
    assert starts == ["get_weather_forecast"]


def test_undeclared_tool_is_reported_never_called() -> None:
    text = call("get_time", zone="UTC") + call("launch_rockets", count="3") + "<|im_end|>"
    outcome = stream(FMT, list(text), TOOLS)
    assert names(outcome.message) == ["get_time"]
    (error,) = outcome.message.errors
    assert error.code == "unknown_tool" and "launch_rockets" in error.message
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    verified(text)


def test_no_tools_declared_accepts_any_wrapped_name() -> None:
    assert names(verified(call("anything", a="1"), tools=None)) == ["anything"]


# -- the missing-opener and missing-closer quirks -----------------------------------------------


def test_bare_function_of_a_declared_tool_is_a_call() -> None:
    text = "Sure.\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>"
    message = verified(text + "\nDone.<|im_end|>")
    assert message.content == "Sure.\n\nDone." and names(message) == ["get_weather"]
    message = verified(text + "\n</tool_call><|im_end|>")
    assert message.content == "Sure." and names(message) == ["get_weather"]


def test_bare_function_of_an_undeclared_tool_or_without_parameters_is_text() -> None:
    for prose in ("<function=launch>\n<parameter=x>\n1\n</parameter>\n</function>",
                  "<function=get_weather> is how a call starts"):  # fmt: skip
        message = verified(prose)
        assert message.content == prose and message.tool_calls == () and message.errors == ()


def test_missing_parameter_close_is_tolerated() -> None:
    text = ("<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n"
            "<parameter=days>\n3\n</function>\n</tool_call><|im_end|>")  # fmt: skip
    assert verified(text).tool_calls[0].arguments == {"location": "Paris", "days": 3}


def test_missing_tool_call_close_is_tolerated_before_the_end_of_turn_or_next_call() -> None:
    unclosed = call("get_time", zone="UTC").removesuffix("</tool_call>")
    message = verified(unclosed + unclosed + call("get_time", zone="CET") + "<|im_end|>")
    assert [c.arguments for c in message.tool_calls] == [{"zone": "UTC"}] * 2 + [{"zone": "CET"}]
    message = verified(unclosed + "Text<|im_end|>")
    assert message.tool_calls == () and [e.code for e in message.errors] == ["malformed"]


# -- markers inside values (the vLLM failures of PEERS.md) ----------------------------------------


def test_code_with_closing_tags_and_openers_inside_a_value() -> None:
    code = 'if a</function> and b:\n    s = "</parameter>"\n    t = "<function=get_time>"\n'
    text = call("write_file", path="/a.py", content=code) + "\n" + call("get_time", zone="UTC")
    message = verified(text)
    assert [c.arguments for c in message.tool_calls] == [
        {"path": "/a.py", "content": code},
        {"zone": "UTC"},
    ]


def test_tool_call_mentioned_in_reasoning_keeps_the_rest_of_the_turn() -> None:
    text = ("I could wrap it in <tool_call> tags.\n</think>\n\nHere:" + call("get_time", zone="UTC")
            + "<|im_end|>")  # fmt: skip
    message = verified(text, THINKING)
    assert message.reasoning_content == "I could wrap it in <tool_call> tags."
    assert message.content == "Here:" and names(message) == ["get_time"]


def test_output_stopping_inside_a_value_is_truncated_streamed_or_not() -> None:
    text = (
        call("get_time", zone="UTC") + "<tool_call>\n<function=write_file>\n<parameter=content>\nab"
    )
    message = verified(text)
    assert names(message) == ["get_time"] and message.content is None
    (error,) = message.errors
    assert error.code == "truncated"
    assert "write_file" in error.message and "content" in error.message


# -- issue #15: markup inside values; the reasoning block -------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "pattern = r'<parameter=edits>\\n(.*?)\\n</parameter>'\nprint(pattern)",
        "</parameter>\n</tool_call> is how it ends",
        "x\n</parameter>\n<parameter=mode>\ny",  # `mode` is not a write_file parameter
        "<tool_call>\n<function=get_time>\n<parameter=zone>\nUTC",
        "<function=get_time>\n</function>",
    ],
)
def test_call_markup_inside_a_value_is_value_text(code: str) -> None:
    text = call("write_file", content=code, path="a.py") + "<|im_end|>"
    message = verified(text)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [
        ("write_file", {"content": code, "path": "a.py"})
    ]
    events = stream(FMT, list(text), TOOLS).events
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["write_file"]


def test_a_literal_close_then_function_end_splits_the_value_and_the_call_fails() -> None:
    # indistinguishable from the real end; what follows then breaks the call: no call at all
    code = "x\n</parameter>\n</function>\nmore"
    message = verified(call("write_file", content=code, path="a.py") + "<|im_end|>")
    assert message.tool_calls == () and [e.code for e in message.errors] == ["malformed"]


def test_a_value_cut_off_after_a_literal_closing_tag_is_truncated() -> None:
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=content>\nx\n</parameter>\n<parameter=mode"
    )
    message = verified(text)
    assert message.tool_calls == () and [e.code for e in message.errors] == ["truncated"]


@pytest.mark.parametrize("redundant", ["<think>", "<think>\n", "\n<think>\n"])
def test_a_redundant_think_after_the_pre_opened_prompt_is_dropped(redundant: str) -> None:
    message = verified(redundant + "Hmm.\n</think>\n\nAnswer.<|im_end|>", THINKING)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Answer.")


ISSUE_15_CODE = "pattern = r'<parameter=edits>\\n(.*?)\\n</parameter>'\n</parameter>\n<parameter=x>"
ISSUE_15 = [
    # quoted markers in the result: the values are pinned by the unit tests above
    (call("write_file", content=ISSUE_15_CODE, path="a.py") + "<|im_end|>", None, None),
    ("<think>\nPlan.\n</think>\n\n" + call("get_time", zone="UTC") + "<|im_end|>", THINKING,
     {"reasoning_content": "Plan.", "content": None,
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip
test_issue_15_examples_under_random_chunkings = example_tests(FMT, ISSUE_15, tools=TOOLS)
