"""The `seed-oss` format (FORMATS.md §6.12), one-shot and streamed in every test."""

from __future__ import annotations

import pytest

from protocall import formats, testing
from protocall.blocks.turns import ToolUse, Turn
from protocall.events import ReasoningDelta, ToolCallStart
from protocall.message import Message
from protocall.testing import stream, verify

FMT = formats.get("seed-oss")
PLAIN = "<seed:bos>assistant\n"
BUDGET_0 = "<seed:bos>assistant\n<seed:think><seed:cot_budget_reflect>"
FORCED_OPEN = "<seed:bos>assistant\n<seed:think>"
THINKING_OFF = "<seed:bos>assistant\n<seed:think></seed:think>"


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
         code=STRING),
]  # fmt: skip


def function(name: str, **values: str) -> str:
    params = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in values.items())
    return f"<function={name}>\n{params}</function>"


def call(name: str, **values: str) -> str:
    """A call as the template renders it; values are raw text."""
    return f"\n<seed:tool_call>\n{function(name, **values)}\n</seed:tool_call>"


def verified(
    text: str,
    prompt: str | None = PLAIN,
    *,
    tools: list[dict[str, object]] | None = TOOLS,
    expected: dict[str, object] | None = None,
) -> Message:
    """Every property of the testing kit, one chunk against several (`verify`)."""
    return verify(FMT, text, prompt, tools=tools, expected=expected)


def names(message: Message) -> list[str]:
    return [c.name for c in message.tool_calls]


# -- FORMATS.md §6.16 example ---------------------------------------------------------------------

EXAMPLE = (
    "<seed:think>Need weather.</seed:think><seed:tool_call>\n<function=get_weather>\n"
    "<parameter=location>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n"
    "</seed:tool_call><seed:eos>"
)
EXPECTED = {
    "reasoning_content": "Need weather.",
    "content": None,
    "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}],
}
EXAMPLES = [(EXAMPLE, PLAIN, EXPECTED)]  # with the generic tests in tests/test_families


def test_formats_example() -> None:
    verified(EXAMPLE, expected=EXPECTED)


def test_whole_call_in_one_delta() -> None:
    one = call("get_weather", location="Paris")
    text = "Sure." + one + "<seed:eos>"
    outcome = stream(FMT, [*"Sure.", one, "<seed:eos>"], TOOLS, PLAIN)
    assert outcome.message == stream(FMT, [text], TOOLS, PLAIN).message
    assert names(outcome.message) == ["get_weather"] and outcome.message.content == "Sure."


# -- reasoning ------------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FMT.start_state(None) is None and FMT.start_state(PLAIN) is None
    assert FMT.start_state(BUDGET_0) == "reasoning" and FMT.start_state(FORCED_OPEN) == "reasoning"
    assert FMT.start_state(THINKING_OFF) is None


def test_model_opened_reasoning_with_budget_notes() -> None:
    text = ("<seed:think>Plan.\n<seed:cot_budget_reflect>I have used 129 tokens, and there are 383"
            " tokens remaining for use.</seed:cot_budget_reflect>\nMore.</seed:think>\nAnswer."
            "<seed:eos>")  # fmt: skip
    message = verified(text)
    assert message.reasoning_content == (
        "Plan.\n<seed:cot_budget_reflect>I have used 129 tokens, and there are 383 tokens "
        "remaining for use.</seed:cot_budget_reflect>\nMore."
    )
    assert message.content == "Answer."


def test_budget_zero_prompt_pre_opens_reasoning_inside_a_note() -> None:
    note = "The current thinking budget is 0, so I will directly start answering the question."
    text = f"{note}</seed:cot_budget_reflect>\n</seed:think>Paris.<seed:eos>"
    message = verified(text, BUDGET_0)
    assert message.reasoning_content == f"{note}</seed:cot_budget_reflect>"
    assert message.content == "Paris."


def test_thinking_off_everything_is_content() -> None:
    message = verified("Paris is the capital.<seed:eos>", THINKING_OFF)
    assert (message.reasoning_content, message.content) == (None, "Paris is the capital.")


@pytest.mark.parametrize("prompt", [BUDGET_0, FORCED_OPEN])
def test_call_inside_pre_opened_reasoning_ends_it(prompt: str) -> None:
    text = ("I should call two tools." + call("get_time", zone="UTC")
            + call("get_weather", location="Oslo") + "<seed:eos>")  # fmt: skip
    message = verified(text, prompt)
    assert message.reasoning_content == "I should call two tools."
    assert names(message) == ["get_time", "get_weather"] and message.content is None
    reasoning = "".join(e.text for e in stream(FMT, list(text), TOOLS, prompt).events
                        if isinstance(e, ReasoningDelta))  # fmt: skip
    assert reasoning == "I should call two tools."


def test_call_quoted_in_model_opened_reasoning_stays_reasoning() -> None:
    # the model wrote `<seed:think>` itself: only `</seed:think>` ends the block (issue #15)
    thought = "I could call it like this:" + call("get_time", zone="UTC") + "\nBut no."
    message = verified(f"<seed:think>{thought}</seed:think>Answer.<seed:eos>")
    assert (message.reasoning_content, message.content) == (thought, "Answer.")
    assert message.tool_calls == () and message.errors == ()


def test_a_call_ends_model_opened_reasoning_never_closed() -> None:
    # no `</seed:think>` after it up to the end of the turn: the call is a call
    message = verified("<seed:think>Plan." + call("get_time", zone="UTC") + "<seed:eos>")
    assert (message.reasoning_content, message.content) == ("Plan.", None)
    assert names(message) == ["get_time"] and message.errors == ()


def test_a_redundant_opener_after_a_pre_opened_prompt_is_dropped() -> None:
    message = verified("<seed:think>Hmm.</seed:think>Paris.<seed:eos>", FORCED_OPEN)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Paris.")


def test_call_like_text_quoted_in_closed_reasoning_stays_reasoning() -> None:
    thought = "I will write <seed:tool_call> then <function=get_time> or <function=x>."
    text = f"<seed:think>{thought}</seed:think>Done." + call("get_time", zone="UTC")
    message = verified(text)
    assert message.reasoning_content == thought
    assert message.content == "Done." and names(message) == ["get_time"]


def test_call_like_text_in_content_prose_stays_content() -> None:
    prose = ("Use <seed:tool_call> tags:\n<seed:tool_call>\n<function=NAME and <function=get_time "
             "or <function=get_time>\n</function> alone.")  # fmt: skip
    message = verified(prose + "<seed:eos>")
    assert message.content == prose and message.tool_calls == () and message.errors == ()


def test_malformed_call_is_reported_and_passed_through() -> None:
    bad = "<seed:tool_call><function=get_time>UTC</function>"
    message = verified("Hi " + bad + "</seed:tool_call>" + call("get_time", zone="CET"))
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == bad  # the wrapper still closes
    assert message.content == "Hi " + bad and names(message) == ["get_time"]


# -- calls ----------------------------------------------------------------------------------------


def test_content_before_between_and_after_calls() -> None:
    text = ("A " + call("get_time", zone="UTC") + "\nB" + call("get_weather", location="Rome")
            + call("get_time", zone="CET") + " C<seed:eos>")  # fmt: skip
    message = verified(text)
    assert message.content == "A \nB C"
    assert names(message) == ["get_time", "get_weather", "get_time"]


def test_several_functions_in_one_wrapper() -> None:
    text = ("<seed:tool_call>\n" + function("get_time", zone="UTC") + "\n"
            + function("get_weather", location="Rome") + "\n</seed:tool_call>")  # fmt: skip
    assert names(verified(text)) == ["get_time", "get_weather"]


def test_compact_whitespace_and_missing_wrapper_end() -> None:
    compact = ("<seed:tool_call><function=get_weather><parameter=location>Paris</parameter>"
               "<parameter=days>2</parameter></function></seed:tool_call>")  # fmt: skip
    assert verified(compact).tool_calls[0].arguments == {"location": "Paris", "days": 2}
    unclosed = verified("<seed:tool_call>\n" + function("get_time", zone="UTC") + "\nDone.")
    assert names(unclosed) == ["get_time"] and unclosed.content == "Done."


def test_function_without_parameters() -> None:
    text = "<seed:tool_call>\n<function=get_time>\n</function>\n</seed:tool_call>"
    (result,) = verified(text).tool_calls
    assert (result.arguments, result.arguments_json) == ({}, "{}")


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("\n  東京 🗼\n", "  東京 🗼"),  # one framing newline each side, as Qwen3-Coder's
        ("\nx", "x"),
        ("x\n", "x"),
        ("\n\nx\n\n", "\nx\n"),
        ("\n", ""),
        (" x ", " x "),
    ],
)
def test_the_newline_after_the_tag_and_before_its_close_is_framing(raw: str, value: str) -> None:
    text = call("write_file", path=" /a b ", content=raw) + "<seed:eos>"
    (result,) = verified(text).tool_calls
    assert result.arguments == {"path": " /a b ", "content": value}


@pytest.mark.parametrize("value", ["abc", "\nabc", "abc\n", "\n", "\n\n", "a\nb"])
def test_the_renderer_writes_framing_only_where_a_value_needs_it(value: str) -> None:
    text = FMT.render(Turn(None, (ToolUse("write_file", {"content": value}),)), None)
    needed = "\n" * value.startswith("\n") + value + "\n" * value.endswith("\n")
    assert f"<parameter=content>{needed}</parameter>" in text  # the template writes none
    (result,) = verified(text).tool_calls
    assert result.arguments == {"content": value}


def test_typed_values_from_the_schema() -> None:
    text = call("typed", n="-42", x="2.5", flag="True", items='[1, "two", null]',
                options="{'a': {'b': [True]}}", maybe="null", code="007")  # fmt: skip
    (result,) = verified(text).tool_calls
    assert result.arguments == {"n": -42, "x": 2.5, "flag": True, "items": [1, "two", None],
                                "options": {"a": {"b": [True]}}, "maybe": None,
                                "code": "007"}  # fmt: skip


def test_undeclared_tool_is_reported_never_called() -> None:
    text = call("get_time", zone="UTC") + call("launch", count="3") + "<seed:eos>"
    outcome = stream(FMT, list(text), TOOLS, PLAIN)
    assert names(outcome.message) == ["get_time"]
    (error,) = outcome.message.errors
    assert error.code == "unknown_tool" and "launch" in error.message
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    verified(text)


def test_truncated_error_names_the_open_call_and_argument() -> None:
    message = verified("<seed:tool_call>\n<function=write_file>\n<parameter=content>ab")
    assert message.tool_calls == () and message.content is None
    (error,) = message.errors
    assert error.code == "truncated"
    assert "write_file" in error.message and "content" in error.message


ISSUE_15 = [
    # quoted markers in the result: the values are pinned by the unit tests above
    ("<seed:think>Like" + call("get_time", zone="UTC") + "</seed:think>No.<seed:eos>", PLAIN,
     None),
    ("Plan." + call("get_time", zone="UTC") + "<seed:eos>", FORCED_OPEN,
     {"reasoning_content": "Plan.", "content": None,
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip
test_issue_15_examples_under_random_chunkings = testing.example_tests(FMT, ISSUE_15, tools=TOOLS)
