"""The `minimax-m2` format (FORMATS.md §6.4), one-shot and streamed in every test."""

from __future__ import annotations

from protocall import formats
from protocall.compile.format import Format
from protocall.events import ReasoningDelta, ToolCallStart
from protocall.formats.minimax import KEEP_THINK
from protocall.message import Message
from protocall.testing import assert_format, stream, verify

FMT = formats.get("minimax-m2")
THINKING = "]~b]ai\n<think>\n"
THINKING_OFF = "]~b]ai\n<think>\n</think>\n\n"


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


def invoke(name: str, **values: str) -> str:
    params = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in values.items())
    return f'<invoke name="{name}">\n{params}</invoke>\n'


def block(*invokes: str) -> str:
    """A tool-call block as the template renders it; values are raw text."""
    return "\n<minimax:tool_call>\n" + "".join(invokes) + "</minimax:tool_call>"


def verified(
    text: str,
    prompt: str | None = THINKING_OFF,
    *,
    fmt: Format = FMT,
    tools: list[dict[str, object]] | None = TOOLS,
    expected: dict[str, object] | None = None,
) -> Message:
    """Every property of the testing kit, one chunk against several (`verify`)."""
    return verify(fmt, text, prompt, tools=tools, expected=expected)


def names(message: Message) -> list[str]:
    return [c.name for c in message.tool_calls]


# -- FORMATS.md §6.16 example ---------------------------------------------------------------------

EXAMPLE = (
    'Need weather.\n</think>\n\nLet me check.\n<minimax:tool_call>\n<invoke name="get_weather">'
    '\n<parameter name="location">Paris</parameter>\n<parameter name="days">3</parameter>\n'
    "</invoke>\n</minimax:tool_call>[e~["
)
EXPECTED = {
    "reasoning_content": "Need weather.",
    "content": "Let me check.",
    "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}],
}
EXAMPLES = [(EXAMPLE, THINKING, EXPECTED)]  # with the generic tests in tests/test_families


def test_formats_example() -> None:
    verified(EXAMPLE, THINKING, expected=EXPECTED)


def test_whole_block_in_one_delta() -> None:
    calls = block(invoke("get_weather", location="Paris"), invoke("get_time", zone="UTC"))
    text = "Sure." + calls + "[e~["
    outcome = stream(FMT, [*"Sure.", calls, "[e~["], TOOLS, THINKING_OFF)
    assert outcome.message == stream(FMT, [text], TOOLS, THINKING_OFF).message
    assert names(outcome.message) == ["get_weather", "get_time"]


def test_keep_think_keeps_every_property_of_the_kit() -> None:
    """(The registered format: tests/test_families.)"""
    assert_format(KEEP_THINK, max_examples=12, seed=0)


# -- reasoning ------------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FMT.start_state(None) == "reasoning" and FMT.start_state(THINKING) == "reasoning"
    assert FMT.start_state(THINKING_OFF) is None


def test_thinking_off_everything_is_content() -> None:
    message = verified("Paris is the capital.[e~[", THINKING_OFF)
    assert (message.reasoning_content, message.content) == (None, "Paris is the capital.")


def test_model_opened_reasoning_when_thinking_is_off() -> None:
    message = verified("<think>\nHmm.\n</think>\n\nAnswer.[e~[", THINKING_OFF)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Answer.")


def test_call_block_inside_unclosed_reasoning_ends_it() -> None:
    calls = block(invoke("get_time", zone="UTC"), invoke("get_weather", location="Oslo"))
    text = "I should call two tools." + calls + "[e~["
    message = verified(text, THINKING)
    assert message.reasoning_content == "I should call two tools."
    assert names(message) == ["get_time", "get_weather"] and message.content is None
    reasoning = "".join(e.text for e in stream(FMT, list(text), TOOLS, THINKING).events
                        if isinstance(e, ReasoningDelta))  # fmt: skip
    assert reasoning == "I should call two tools."


def test_call_like_text_quoted_in_closed_reasoning_stays_reasoning() -> None:
    thought = 'Write <minimax:tool_call> then <invoke name="x"> or <invoke name=get_time>.'
    text = thought + "\n</think>\n\nDone." + block(invoke("get_time", zone="UTC"))
    message = verified(text, THINKING)
    assert message.reasoning_content == thought
    assert message.content == "Done." and names(message) == ["get_time"]


def test_call_like_text_in_content_prose_stays_content() -> None:
    prose = ('Use <minimax:tool_call> blocks:\n<minimax:tool_call> <invoke> or <invoke name="x"> '
             'and <minimax:tool_call>\n<invoke name=get_time> here.')  # fmt: skip
    message = verified(prose + "[e~[")
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- calls ----------------------------------------------------------------------------------------


def test_content_before_between_and_after_blocks() -> None:
    text = ("A " + block(invoke("get_time", zone="UTC")) + "\nB" + block(invoke("get_weather",
            location="Rome"), invoke("get_time", zone="CET")) + " C[e~[")  # fmt: skip
    message = verified(text)
    assert message.content == "A \nB C"
    assert names(message) == ["get_time", "get_weather", "get_time"]


def test_compact_and_spread_out_whitespace() -> None:
    compact = (
        '<minimax:tool_call><invoke name="get_weather"><parameter name="location">Paris'
        '</parameter><parameter name="days">2</parameter></invoke></minimax:tool_call>'
    )
    spread = ('<minimax:tool_call>\n\n <invoke name="get_weather">\n\n<parameter name="location">'
              'Paris</parameter>\n \n</invoke>\n\n</minimax:tool_call>')  # fmt: skip
    assert verified(compact).tool_calls[0].arguments == {"location": "Paris", "days": 2}
    assert verified(spread).tool_calls[0].arguments == {"location": "Paris"}


def test_missing_block_end_is_tolerated() -> None:
    text = "\n<minimax:tool_call>\n" + invoke("get_time", zone="UTC") + "Done.[e~["
    message = verified(text)
    assert names(message) == ["get_time"] and message.content == "Done."


def test_invoke_without_parameters() -> None:
    (result,) = verified(block('<invoke name="get_time">\n</invoke>\n')).tool_calls
    assert (result.arguments, result.arguments_json) == ({}, "{}")


def test_values_are_verbatim_cjk_and_emoji() -> None:
    text = block(invoke("write_file", path=" /a b ", content="\n  東京 🗼\n")) + "[e~["
    (result,) = verified(text).tool_calls
    assert result.arguments == {"path": " /a b ", "content": "\n  東京 🗼\n"}


def test_typed_values_from_the_schema() -> None:
    text = block(invoke("typed", n="-42", x="2.5", flag="true", items='[1, "two", null]',
                        options='{"a": {"b": [true]}}', maybe="null", code="007"))  # fmt: skip
    (result,) = verified(text).tool_calls
    assert result.arguments == {"n": -42, "x": 2.5, "flag": True, "items": [1, "two", None],
                                "options": {"a": {"b": [True]}}, "maybe": None,
                                "code": "007"}  # fmt: skip


def test_undeclared_tool_is_reported_never_called() -> None:
    text = block(invoke("get_time", zone="UTC"), invoke("launch", count="3")) + "[e~["
    outcome = stream(FMT, list(text), TOOLS, THINKING_OFF)
    assert names(outcome.message) == ["get_time"]
    (error,) = outcome.message.errors
    assert error.code == "unknown_tool" and "launch" in error.message
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    verified(text)


def test_truncated_error_names_the_open_call_and_argument() -> None:
    text = '\n<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="content">ab'
    message = verified(text)
    assert message.tool_calls == () and message.content is None
    (error,) = message.errors
    assert error.code == "truncated"
    assert "write_file" in error.message and "content" in error.message


# -- keep think in content ------------------------------------------------------------------------


def test_keep_think_leaves_the_reasoning_verbatim_in_the_content() -> None:
    message = verified(EXAMPLE, THINKING, fmt=KEEP_THINK)
    assert message.reasoning_content is None
    assert message.content == "Need weather.\n</think>\n\nLet me check."
    assert names(message) == ["get_weather"]
    assert KEEP_THINK.start_state(THINKING) is None
