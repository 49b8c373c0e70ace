"""The reference format `hermes`, and through it the session's contract (DESIGN.md §7)."""

from __future__ import annotations

import json
import re

import pytest
from clients import expected, sdk_accumulated, seen, served
from hypothesis import given, settings
from hypothesis import strategies as st

import protocall
from protocall import formats
from protocall.events import (
    ContentDelta,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from protocall.openai import DeltaStream
from protocall.testing import chunkings, is_event_prefix, merge_deltas, stream, verify

HERMES = formats.get("hermes")
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["location"]}}},
    {"type": "function", "function": {"name": "get_weather_forecast", "parameters": {
        "type": "object", "properties": {"location": {"type": "string"}}}}},
    {"name": "get_time", "parameters": {
        "type": "object", "properties": {"zone": {"type": "string"}}}},
]  # fmt: skip

EXAMPLE = (
    "<think>\nNeed weather.\n</think>\n\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call><|im_end|>'
)
EXPECTED = {
    "reasoning_content": "Need weather.",
    "content": None,
    "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
}
EXAMPLES = [(EXAMPLE, None, EXPECTED)]  # with the generic tests in tests/test_families


def call_text(name: str, arguments: dict[str, object]) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def check_invariants(outcome: protocall.testing.Outcome) -> None:
    """DESIGN.md §7: deltas add up to the fields, argument deltas to the arguments JSON."""
    message = outcome.message
    content = "".join(e.text for e in outcome.events if isinstance(e, ContentDelta))
    reasoning = "".join(e.text for e in outcome.events if isinstance(e, ReasoningDelta))
    assert (content or None) == message.content
    assert (reasoning or None) == message.reasoning_content
    for end in (e for e in outcome.events if isinstance(e, ToolCallEnd)):
        pieces = [
            e.text
            for e in outcome.events
            if isinstance(e, ToolCallArgumentsDelta) and e.index == end.index
        ]
        assert "".join(pieces) == end.call.arguments_json
        assert json.loads(end.call.arguments_json) == end.call.arguments


@pytest.mark.parametrize("step", [None, 1, 3, 7])
def test_example_one_shot_and_streamed(step: int | None) -> None:
    chunks = (
        [EXAMPLE] if step is None else [EXAMPLE[i : i + step] for i in range(0, len(EXAMPLE), step)]
    )
    outcome = stream(HERMES, chunks, TOOLS)
    assert outcome.message.to_dict() == EXPECTED
    assert outcome.message.errors == ()
    check_invariants(outcome)


def test_one_shot_parse_matches_streaming() -> None:
    message = protocall.parse(EXAMPLE, format="hermes", tools=TOOLS, seed=0)
    assert message == stream(HERMES, list(EXAMPLE), TOOLS).message


def test_event_sequence() -> None:
    events = stream(HERMES, list(EXAMPLE), TOOLS).merged_events
    kinds = [type(e) for e in events]
    assert kinds == [ReasoningDelta, ToolCallStart, ToolCallArgumentsDelta, ToolCallEnd]
    start = events[1]
    assert isinstance(start, ToolCallStart) and start.name == "get_weather" and start.index == 0


def test_pre_opened_reasoning_from_generation_prompt() -> None:
    text = "The user wants Paris.\n</think>\n\nSure." + "<|im_end|>"
    outcome = stream(HERMES, [text], TOOLS, "<|im_start|>assistant\n<think>\n")
    assert outcome.message.reasoning_content == "The user wants Paris."
    assert outcome.message.content == "Sure."


def test_thinking_disabled_prompt_starts_in_content() -> None:
    outcome = stream(HERMES, ["Hi."], TOOLS, "<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert outcome.message.content == "Hi."
    assert outcome.message.reasoning_content is None


def test_call_inside_unclosed_reasoning_ends_it() -> None:
    text = "Need the weather.\n" + call_text("get_weather", {"location": "Paris"}) + "<|im_end|>"
    for chunks in ([text], list(text)):
        message = stream(HERMES, chunks, TOOLS, "<|im_start|>assistant\n<think>\n").message
        assert message.reasoning_content == "Need the weather."
        assert [c.name for c in message.tool_calls] == ["get_weather"]


def test_opener_quoted_in_reasoning_stays_reasoning() -> None:
    text = "<think>I could emit <tool_call> here, later.</think>Done."
    message = stream(HERMES, list(text), TOOLS).message
    assert message.reasoning_content == "I could emit <tool_call> here, later."
    assert message.content == "Done." and message.tool_calls == ()


def test_opener_in_content_prose_stays_content() -> None:
    text = "Use <tool_call> tags like <tool_call>this</tool_call>."
    message = stream(HERMES, list(text), TOOLS).message
    assert message.content == text and message.tool_calls == ()


def test_parallel_calls_and_content_between() -> None:
    text = (
        "A" + call_text("get_weather", {"location": "Paris"}) + "\nB\n"
        + call_text("get_time", {"zone": "Europe/Paris"}) + " C<|im_end|>"
    )  # fmt: skip
    message = stream(HERMES, list(text), TOOLS).message
    assert message.content == "A\nB\n C"
    assert [c.name for c in message.tool_calls] == ["get_weather", "get_time"]


def test_truncated_error_names_the_open_call() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Par'
    message = stream(HERMES, [text], TOOLS).message
    (error,) = message.errors
    assert error.code == "truncated"
    assert "get_weather" in error.message
    assert error.raw == text
    assert message.content is None and message.tool_calls == ()


def test_malformed_call_is_reported_and_passed_through() -> None:
    bad = '<tool_call>\n{"name": "get_weather", "arguments": {"location": Paris}}\n</tool_call>'
    text = "Before " + bad + " after" + call_text("get_time", {"zone": "UTC"})
    outcome = stream(HERMES, list(text), TOOLS)
    message = outcome.message
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == bad
    assert message.content == "Before " + bad + " after"
    assert [c.name for c in message.tool_calls] == ["get_time"]
    assert not any(isinstance(e, ToolCallEnd) and e.index == 0 for e in outcome.events)
    check_invariants(outcome)


def test_unknown_tool_is_an_error_without_a_completed_call() -> None:
    text = call_text("launch_rockets", {"count": 3})
    outcome = stream(HERMES, list(text), TOOLS)
    (error,) = outcome.message.errors
    assert error.code == "unknown_tool" and "launch_rockets" in error.message
    assert outcome.message.tool_calls == ()
    assert not any(isinstance(e, ToolCallStart) for e in outcome.events)


@pytest.mark.parametrize(
    "body",
    ['{"name": "get_time"}', '{ "name" : "get_time" }', '{"name": "get_time", "arguments": {}}'],
)
def test_a_call_without_arguments_has_empty_arguments(body: str) -> None:
    text = f"Now.<tool_call>\n{body}\n</tool_call><|im_end|>"
    message = verify(HERMES, text, tools=TOOLS)
    (done,) = message.tool_calls
    assert (done.name, done.arguments, done.arguments_json) == ("get_time", {}, "{}")
    assert (message.content, message.errors) == ("Now.", ())


def test_a_call_object_still_needs_its_closing_brace() -> None:
    text = '<tool_call>\n{"name": "get_time"\n</tool_call>'
    message = verify(HERMES, text, tools=TOOLS)
    (error,) = message.errors
    assert message.tool_calls == () and error.code == "malformed" and error.raw == text


def test_no_tools_declared_accepts_any_name() -> None:
    message = stream(HERMES, [call_text("anything", {})]).message
    assert [c.name for c in message.tool_calls] == ["anything"]


def test_schema_violation_is_reported_on_the_call() -> None:
    text = call_text("get_weather", {"days": "three"})
    (call,) = stream(HERMES, [text], TOOLS).message.tool_calls
    assert any("location" in problem for problem in call.validation_errors)
    assert any("days" in problem for problem in call.validation_errors)


def test_schema_violation_can_reject_the_call() -> None:
    text = call_text("get_weather", {"days": 3})
    outcome = stream(HERMES, [text], TOOLS, reject_invalid=True)
    assert outcome.message.tool_calls == ()
    assert [e.code for e in outcome.message.errors] == ["invalid_arguments"]
    assert not any(isinstance(e, ToolCallEnd) for e in outcome.events)


def test_bytes_split_inside_multibyte_characters() -> None:
    text = "<think>Météo 東京 🌦</think>" + call_text("get_weather", {"location": "東京"})
    data = text.encode()
    chunks = [data[i : i + 1] for i in range(len(data))]
    assert stream(HERMES, chunks, TOOLS).message == stream(HERMES, [text], TOOLS).message


def test_invalid_utf8_becomes_replacement_character() -> None:
    message = stream(HERMES, [b"ok \xff\xfe then", b" more"], TOOLS).message
    assert message.content == "ok \ufffd\ufffd then more"


def test_usage_errors_after_finish() -> None:
    session = HERMES.parser(TOOLS)
    session.finish()
    with pytest.raises(protocall.UsageError):
        session.feed("more")
    with pytest.raises(protocall.UsageError):
        session.finish()


def test_unknown_format_lists_names() -> None:
    with pytest.raises(protocall.UsageError, match="hermes"):
        formats.get("nope")


def test_ids_are_deterministic_with_a_seed_and_a_factory() -> None:
    text = call_text("get_time", {"zone": "UTC"})
    first = stream(HERMES, [text], TOOLS, seed=7).message.tool_calls[0].id
    assert first == stream(HERMES, list(text), TOOLS, seed=7).message.tool_calls[0].id
    named = stream(HERMES, [text], TOOLS, id_factory=lambda i: f"call-{i}").message
    assert named.tool_calls[0].id == "call-0"


def test_openai_deltas_reassemble_to_the_message() -> None:
    text = (
        "<think>x</think>Hi"
        + call_text("get_weather", {"location": "Paris"})
        + call_text("get_time", {"zone": "UTC"})
    )
    for tentative_calls in (False, True):
        session = HERMES.parser(TOOLS, seed=1)
        adapter = DeltaStream(tentative_calls=tentative_calls)
        sent = served(session, list(text), adapter)
        assert seen(sdk_accumulated(sent)) == expected(session.message)
        assert adapter.finish_reason() == "tool_calls"
        deltas = [piece["choices"][0]["delta"] for piece in sent]
        first_call = next(d for d in deltas if "tool_calls" in d)["tool_calls"][0]
        assert {"index", "id", "type"} <= first_call.keys()


def test_finish_reason_length_when_cut_inside_a_call() -> None:
    session = HERMES.parser(TOOLS)
    adapter = DeltaStream()
    adapter.deltas(session.feed('<tool_call>\n{"name": "get_time", "arguments": {"zo'))
    adapter.deltas(session.finish())
    assert adapter.finish_reason() == "length"
    assert protocall.openai.finish_reason(session.message) == "length"


# -- properties over generated turns --------------------------------------------------------

PROSE = st.text(alphabet='ab <>/|_\n\té東🙂{}"tool_call', max_size=30)
ARGS = st.dictionaries(
    st.sampled_from(["location", "zone", "days", "note"]),
    st.one_of(st.text(max_size=20), st.integers(-5, 10**20), st.booleans(), st.none()),
    max_size=3,
)


@st.composite
def turns(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    """A valid hermes turn and its expected normalised message."""
    reasoning = draw(st.one_of(st.none(), PROSE.filter(lambda s: "</think>" not in s)))
    calls = draw(
        st.lists(st.tuples(st.sampled_from(["get_weather", "get_time"]), ARGS), max_size=3)
    )
    contents = draw(st.lists(PROSE, min_size=len(calls) + 1, max_size=len(calls) + 1))
    text = f"<think>{reasoning}</think>" if reasoning is not None else ""
    for content, (name, arguments) in zip(contents, calls, strict=False):
        text += content + call_text(name, arguments)
    text += contents[-1] + "<|im_end|>"
    # Whitespace that only separates two calls belongs to the call layout, not to content.
    between = [c if c.strip() or i in (0, len(calls)) else "" for i, c in enumerate(contents)]
    expected = {
        "reasoning_content": (reasoning or "").strip() or None,
        "content": "".join(between).strip() or None,
        "tool_calls": [{"name": n, "arguments": a} for n, a in calls],
    }
    return text, expected


@given(turns(), st.data())
@settings(max_examples=80, deadline=None)
def test_generated_turns_parse_the_same_under_any_chunking(
    turn: tuple[str, dict[str, object]], data: st.DataObject
) -> None:
    text, expected = turn
    one = stream(HERMES, [text])
    if one.message.errors:  # prose happened to form a genuine marker; nothing to compare
        return
    assert one.message.to_dict() == expected
    chunked = stream(HERMES, data.draw(chunkings(text)))
    assert chunked.message == one.message
    assert chunked.merged_events == one.merged_events
    check_invariants(chunked)


@given(turns(), st.data())
@settings(max_examples=60, deadline=None)
def test_events_of_a_prefix_are_a_prefix_of_the_events(
    turn: tuple[str, dict[str, object]], data: st.DataObject
) -> None:
    text, _ = turn
    cut = data.draw(st.integers(0, len(text)))
    session = HERMES.parser(seed=0)
    before = session.feed(text[:cut])
    after = session.feed(text[cut:]) + session.finish()
    full = stream(HERMES, [text]).events
    assert is_event_prefix(before, full)
    assert merge_deltas(before + after) == merge_deltas(full)


@given(turns(), st.data())
@settings(max_examples=60, deadline=None)
def test_truncated_generated_turns_keep_the_invariants(
    turn: tuple[str, dict[str, object]], data: st.DataObject
) -> None:
    text, _ = turn
    cut = data.draw(st.integers(0, len(text)))
    outcome = stream(HERMES, data.draw(chunkings(text[:cut])))
    check_invariants(outcome)
    assert outcome.message == stream(HERMES, [text[:cut]]).message
    for error in outcome.message.errors:
        assert error.code in {"truncated", "malformed"}


def test_text_after_an_incomplete_byte_sequence_keeps_the_order() -> None:
    session = HERMES.parser()
    session.feed(b"\xe2\x82")
    session.feed("abc")
    session.finish()
    assert session.message.content == "\ufffdabc"
    assert protocall.parse(b"\xe2\x82abc", format="hermes").content == "\ufffdabc"


def test_a_partial_opener_after_a_call_at_the_end_is_content() -> None:
    text = call_text("get_time", {"zone": "UTC"}) + "\n<tool_ca"
    for chunks in ([text], list(text)):
        message = stream(HERMES, chunks, TOOLS).message
        assert message.content == "<tool_ca" and message.errors == ()
        assert [c.name for c in message.tool_calls] == ["get_time"]


def test_generated_call_ids_are_openai_shaped_unique_and_reproducible() -> None:
    """Formats whose calls carry no id get `call_` + 24 alphanumerics: distinct across calls
    and sessions, the same for the same seed."""
    call = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    ids = [c.id for _ in range(50) for c in protocall.parse(call * 2, "hermes").tool_calls]
    assert all(re.fullmatch(r"call_[A-Za-z0-9]{24}", i) for i in ids)
    assert len(set(ids)) == len(ids)
    seeded = [protocall.parse(call * 2, "hermes", seed=7).tool_calls for _ in range(2)]
    assert seeded[0] == seeded[1] and seeded[0][0].id != seeded[0][1].id
