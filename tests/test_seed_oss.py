"""The `seed-oss` format (FORMATS.md §6.12), one-shot and streamed in every test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats, testing
from protocall.events import ReasoningDelta, ToolCallEnd, ToolCallStart
from protocall.formats.seed_oss import RESERVED
from protocall.message import Message
from protocall.testing import PROPERTIES, Case, Trial, assert_format, chunkings, stream, verify
from protocall.tools import normalize_tools

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


def test_formats_example() -> None:
    verified(EXAMPLE, expected=EXPECTED)


@given(st.data())
@settings(max_examples=40, deadline=None)
def test_example_under_random_chunkings(data: st.DataObject) -> None:
    outcome = stream(FMT, data.draw(chunkings(EXAMPLE, RESERVED)), TOOLS, PLAIN)
    assert outcome.message.to_dict() == EXPECTED and not outcome.message.errors
    assert outcome.merged_events == stream(FMT, [EXAMPLE], TOOLS, PLAIN).merged_events


def test_whole_call_in_one_delta() -> None:
    one = call("get_weather", location="Paris")
    text = "Sure." + one + "<seed:eos>"
    outcome = stream(FMT, [*"Sure.", one, "<seed:eos>"], TOOLS, PLAIN)
    assert outcome.message == stream(FMT, [text], TOOLS, PLAIN).message
    assert names(outcome.message) == ["get_weather"] and outcome.message.content == "Sure."


def test_generated_turns_truncations_and_mutations_keep_every_property() -> None:
    assert_format(FMT, max_examples=15, seed=0)


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


def test_a_call_in_unclosed_model_opened_reasoning_stays_reasoning() -> None:
    text = "<seed:think>Plan." + call("get_time", zone="UTC") + "<seed:eos>"
    message = verified(text)
    assert message.reasoning_content == text[len("<seed:think>") : -len("<seed:eos>")]
    assert message.tool_calls == () and message.content is None


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


def test_values_have_no_padding_newlines() -> None:
    text = call("write_file", path=" /a b ", content="\n  東京 🗼\n") + "<seed:eos>"
    (result,) = verified(text).tool_calls
    assert result.arguments == {"path": " /a b ", "content": "\n  東京 🗼\n"}


def test_typed_values_from_the_schema() -> None:
    text = call("typed", n="-42", x="2.5", flag="True", items='[1, "two", null]',
                options="{'a': {'b': [True]}}", maybe="null", code="007")  # fmt: skip
    (result,) = verified(text).tool_calls
    assert result.arguments == {"n": -42, "x": 2.5, "flag": True, "items": [1, "two", None],
                                "options": {"a": {"b": [True]}}, "maybe": None,
                                "code": "007"}  # fmt: skip


def test_tool_name_prefix_pairs_never_announce_the_shorter_name() -> None:
    text = call("get_weather_forecast", location="Oslo")
    starts = [e.name for e in stream(FMT, list(text), TOOLS, PLAIN).events
              if isinstance(e, ToolCallStart)]  # fmt: skip
    assert starts == ["get_weather_forecast"]
    both = call("get_weather", location="Oslo") + call("get_weather_forecast")
    assert names(verified(both)) == ["get_weather", "get_weather_forecast"]


def test_undeclared_tool_is_reported_never_called() -> None:
    text = call("get_time", zone="UTC") + call("launch", count="3") + "<seed:eos>"
    outcome = stream(FMT, list(text), TOOLS, PLAIN)
    assert names(outcome.message) == ["get_time"]
    (error,) = outcome.message.errors
    assert error.code == "unknown_tool" and "launch" in error.message
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    verified(text)


@pytest.mark.parametrize("marker", RESERVED)
def test_every_marker_inside_a_string_argument(marker: str) -> None:
    for value in (marker, f"a{marker}b", f"x = '{marker}'\n{marker}\n"):
        text = call("write_file", path="/p", content=value) + "<seed:eos>"
        (result,) = verified(text).tool_calls
        assert result.arguments == {"path": "/p", "content": value}


def test_truncation_at_every_position() -> None:
    first = call("get_time", zone="UTC")
    second = call("write_file", content='<y> "z"')
    text = "Hi" + first + "B" + second + "<seed:eos>"
    full = Case(text, normalize_tools(TOOLS), PLAIN, None, expected=verified(text).to_dict())
    reference = stream(FMT, [text], TOOLS, PLAIN)
    spans = [(text.index(c), text.index(c) + len(c)) for c in (first, second)]
    for end in range(len(text)):
        cut = text[:end]
        case = Case(cut, full.tools, PLAIN, None, truncates=full)
        whole = stream(FMT, [cut], TOOLS, PLAIN)
        for chunks in ([cut], list(cut)):
            trial = Trial(FMT, case, chunks, whole, stream(FMT, chunks, TOOLS, PLAIN), reference)
            for prop in PROPERTIES:
                assert prop.check(trial) is None, (end, prop.name, prop.check(trial))
        message = whole.message
        # a call is complete at its `</function>`; the wrapper end may still be missing
        done = [text.index("</function>", s) + len("</function>") for s, _ in spans]
        assert names(message) == ["get_time", "write_file"][: sum(d <= end for d in done)]
        heads = [s for (s, _), d in zip(spans, done, strict=True)
                 if text.index(">\n", text.index("<function=", s)) + 1 <= end < d]  # fmt: skip
        if heads:
            (error,) = message.errors
            assert error.code == "truncated" and "tool call" in error.message
            assert "<function=" not in (message.content or "")
        assert all(e.code == "truncated" for e in message.errors)
        assert not any(isinstance(e, ToolCallEnd) and e.index == len(message.tool_calls)
                       for e in whole.events)  # fmt: skip


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
