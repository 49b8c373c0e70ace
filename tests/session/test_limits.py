"""Limits a server sets on a session (`max_output`, `max_calls`, `max_argument_size`): the
turn ends where one is reached, with a `limit_exceeded` error, the same whatever the
chunking, and nothing emitted before it changes. `max_depth` lowers the formats' own
nesting bound: a call nested deeper is `malformed` (a tag-delimited value, typed from its
raw text, stays that text), in every format, shortcuts on or off."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import UsageError
from protocall.events import ProtocolError
from protocall.shortcuts import disabled
from protocall.testing import cases, chunkings, stream

HERMES = formats.get("hermes")
CALL = '<tool_call>{"name": "get_weather", "arguments": {"location": "Paris, France"}}</tool_call>'
TEXT = "Hello there. " + CALL * 3


def limited(text: str, **limits: Any) -> list[Any]:
    """The merged events of `text` one-shot, after checking that per character and in
    4-character deltas give the same."""
    one_shot, *streamed = (
        stream(HERMES, chunks, None, **limits).merged_events
        for chunks in ([text], list(text), [text[i : i + 4] for i in range(0, len(text), 4)])
    )
    assert all(events == one_shot for events in streamed)
    return one_shot


def test_max_output_ends_the_turn_as_if_the_output_ended_there() -> None:
    *before, error = limited(TEXT, max_output=30)
    assert error == ProtocolError(
        "limit_exceeded", "output longer than 30 characters (max_output)", 30, ""
    )
    assert before == stream(HERMES, [TEXT[:30]]).merged_events  # the call cut off: truncated


def test_max_calls_stops_at_the_call_past_the_limit() -> None:
    *before, error = limited(TEXT, max_calls=2)
    assert (error.code, error.offset) == ("limit_exceeded", len("Hello there. ") + 2 * len(CALL))
    assert "more than 2 tool calls" in error.message
    assert sum(type(event).__name__ == "ToolCallEnd" for event in before) == 2


def test_max_argument_size_streams_the_arguments_up_to_the_limit() -> None:
    *_, delta, error = limited(TEXT, max_argument_size=20)
    assert delta.text == '{"location": "Paris,'  # 20 characters, then no more
    assert (error.code, error.offset) == ("limit_exceeded", len("Hello there. "))
    assert "arguments longer than 20 characters" in error.message


def test_an_escape_is_never_cut_at_the_argument_limit() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": "\\u00e9\\n"}}</tool_call>'
    for limit in range(8, 20):
        events = limited(text, max_argument_size=limit)
        deltas = "".join(e.text for e in events if type(e).__name__ == "ToolCallArgumentsDelta")
        assert not deltas.endswith("\\") and "\\u" not in deltas[-5:].rstrip("0123456789abcdef")


def test_after_a_limit_the_rest_is_not_read_and_finish_ends_quietly() -> None:
    session = HERMES.parser(None, max_output=5)
    assert session.feed("Hello there")[-1].code == "limit_exceeded"
    assert session.feed(" and more") == []
    assert session.finish() == []
    assert session.message.content == "Hello"
    with pytest.raises(UsageError, match="after finish"):
        session.feed("more")


@pytest.mark.parametrize("option", ["max_output", "max_calls", "max_argument_size", "max_depth"])
def test_a_limit_is_a_count(option: str) -> None:
    for bad in (-1, 1.5, "10", *((0,) if option == "max_depth" else ())):
        with pytest.raises(UsageError, match=option):
            HERMES.parser(None, **{option: bad})


NESTED = {"a": [[[1]]], "b": "x"}
"""Arguments four levels deep (the arguments object is the first)."""
INTEGERS = {"type": "array", "items": {"type": "integer"}}
ARRAYS = {"type": "array", "items": {"type": "array", "items": INTEGERS}}
"""Lists of lists of lists of integers: typed to the bottom, as element-tree arguments
(MiniMax-M3's) need to carry the integer."""
NESTED_TOOLS = [
    {
        "name": "f",
        "parameters": {
            "type": "object",
            "properties": {"a": ARRAYS, "b": {"type": "string"}},
        },
    }
]


def depth_limited(name: str, max_depth: int | None) -> Any:
    """The message of a call with `NESTED` arguments under `max_depth`, after checking that
    one-shot, per character and in 3-character deltas give the same events."""
    fmt = formats.get(name)
    text = fmt.render(Turn(parts=(ToolUse("f", NESTED),)), fmt.default_start)
    runs = [
        stream(fmt, chunks, NESTED_TOOLS, max_depth=max_depth)
        for chunks in ([text], list(text), [text[i : i + 3] for i in range(0, len(text), 3)])
    ]
    assert all(run.merged_events == runs[0].merged_events for run in runs[1:])
    return runs[0].message


@pytest.mark.parametrize("shortcuts", [True, False], ids=["shortcuts", "plain"])
@pytest.mark.parametrize("name", formats.names())
def test_max_depth_bounds_the_nesting_of_arguments_in_every_format(
    name: str, shortcuts: bool
) -> None:
    with nullcontext() if shortcuts else disabled():
        free, within, past = (depth_limited(name, limit) for limit in (None, 4, 3))
    assert within == free and [call.arguments for call in free.tool_calls] == [NESTED]
    if past.tool_calls:  # typed from the raw text between tags: the text is kept
        (call,) = past.tool_calls
        assert call.arguments == {"a": "[[[1]]]", "b": "x"}
        assert "argument `a`: nested deeper than 3 (max_depth)" in call.validation_errors[0]
    else:
        (error,) = past.errors
        assert error.code == "malformed" and "f" in error.raw
        assert error.message.endswith("expected a value nested at most 3 deep (max_depth)")


def test_max_depth_never_raises_the_formats_own_bound() -> None:
    deep = "[" * 130 + "]" * 130
    text = f'<tool_call>{{"name": "f", "arguments": {{"a": {deep}}}}}</tool_call>'
    (error,) = stream(HERMES, [text], max_depth=1000).message.errors
    assert error.message.endswith("(nesting deeper than 128)")


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder", "pythonic", "gpt-oss", "kimi-k2"])
@given(
    data=st.data(),
    option=st.sampled_from(["max_output", "max_calls", "max_argument_size"]),
    limit=st.integers(0, 120),
)
@settings(max_examples=25, deadline=None)
def test_a_limit_changes_nothing_emitted_before_it_whatever_the_chunking(
    name: str, data: st.DataObject, option: str, limit: int
) -> None:
    """The feeds before the one that reaches the limit give what they give without it;
    that one ends with the error; the merged events are the same for every chunking."""
    fmt = formats.get(name)
    case = data.draw(cases(fmt))
    chunks = data.draw(chunkings(case.text))
    free = stream(fmt, chunks, case.tools, case.generation_prompt)
    bounded = stream(fmt, chunks, case.tools, case.generation_prompt, **{option: limit})
    one_shot = stream(fmt, [case.text], case.tools, case.generation_prompt, **{option: limit})
    assert bounded.merged_events == one_shot.merged_events
    reached = [i for i, batch in enumerate(bounded.per_chunk) if _limit_error(batch)]
    if not reached:
        assert bounded.events == free.events
        return
    (at,) = reached
    assert bounded.per_chunk[:at] == free.per_chunk[:at]
    assert bounded.per_chunk[at][-1] is _limit_error(bounded.per_chunk[at])
    assert all(batch == [] for batch in bounded.per_chunk[at + 1 :])


def _limit_error(events: list[Any]) -> ProtocolError | None:
    return next((e for e in events if getattr(e, "code", None) == "limit_exceeded"), None)
