"""Hostile arguments in every format: whatever a call's arguments hold, the call completes
with them exactly or an error with its raw text says why; nothing crashes, nothing is
silently dropped, and the chunking changes nothing."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.blocks.names import NAME_LIMIT
from protocall.blocks.turns import ToolUse, Turn
from protocall.events import ProtocolError, ToolCallEnd
from protocall.testing import byte_chunkings, cases, chunkings, mutations
from protocall.testing.degenerate import NAME, TOOLS
from protocall.testing.mutations import whitespace_anywhere
from protocall.testing.run import Outcome, stream

FORMATS = formats.names()


def chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def outcomes(name: str, text: str, tools: Any) -> list[Outcome]:
    """`text` one-shot, in 4-character deltas and in 7-character deltas."""
    fmt = formats.get(name)
    return [stream(fmt, chunks, tools) for chunks in ([text], chunked(text, 4), chunked(text, 7))]


def rendered_call(name: str, arguments: dict[str, Any]) -> str:
    fmt = formats.get(name)
    return fmt.render(Turn(parts=(ToolUse(NAME, arguments),)), fmt.default_start)


def assert_call_or_error(outcome: Outcome, arguments: dict[str, Any], text: str) -> None:
    """The call completed with exactly `arguments` (or, where the format types raw values,
    with their raw text as a string), or an error says why it did not."""
    ends = [e for e in outcome.events if isinstance(e, ToolCallEnd)]
    if not ends:
        assert any(isinstance(e, ProtocolError) for e in outcome.events), outcome.events
        return
    (end,) = ends
    raw = {key: value for key, value in end.call.arguments.items() if isinstance(value, str)}
    assert end.call.arguments == arguments or (raw and all(v in text for v in raw.values()))


# -- nesting: a documented depth, never a crash ------------------------------------------------

DEEP = 200


def nested(kind: str, depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if kind == "array" else {"a": value}
    return value


@pytest.mark.parametrize("tools", [TOOLS, None], ids=["declared", "undeclared"])
@pytest.mark.parametrize("kind", ["array", "object"])
@pytest.mark.parametrize("name", FORMATS)
def test_an_argument_nested_200_deep_is_an_error_not_a_crash(
    name: str, kind: str, tools: Any
) -> None:
    arguments = {"data": nested(kind, DEEP)}  # undeclared: typed as JSON, not as a string
    text = rendered_call(name, arguments)
    one_shot, *chunkings = outcomes(name, text, tools)
    assert_call_or_error(one_shot, arguments, text)
    for outcome in chunkings:
        assert outcome.merged_events == one_shot.merged_events


# -- a call never vanishes: it completes, or an error holds its raw text ------------------------

SECOND = ToolUse("get_time", {"zone": "UTC"})


def assert_no_call_vanishes(outcome: Outcome, calls: list[ToolUse]) -> None:
    """Every call of the turn completed, or an error's raw text holds its name."""
    done = [end.call.name for end in outcome.events if isinstance(end, ToolCallEnd)]
    raws = "".join(e.raw for e in outcome.events if isinstance(e, ProtocolError))
    for call in calls:
        if call.name in done:
            done.remove(call.name)
        else:
            assert call.name in raws, (call.name, outcome.events)


def marked(fmt: formats.Format, text: str) -> bool:
    """Whether a marker of `fmt` heads the first call of `text` (a bare call list, which
    nothing but its syntax proves a call, may be prose)."""
    return any(marker in text[: text.index(NAME)] for marker in fmt.reserved)


@pytest.mark.parametrize("first", [True, False], ids=["first call", "second call"])
@pytest.mark.parametrize("name", FORMATS)
def test_a_key_holding_a_marker_never_hides_its_call(name: str, first: bool) -> None:
    """The call with the odd key, and any before it, complete or are errors (a marker that
    closes the envelope in the key leaves what follows it outside the envelope)."""
    fmt = formats.get(name)
    for marker in fmt.reserved:
        odd = ToolUse(NAME, {f"k{marker}x": 1})
        calls = [odd, SECOND] if first else [SECOND, odd]
        text = fmt.render(Turn(parts=tuple(calls)), fmt.default_start)
        if not marked(fmt, text):
            continue
        one_shot, *chunkings = outcomes(name, text, None)
        assert_no_call_vanishes(one_shot, calls[: calls.index(odd) + 1])
        for outcome in chunkings:
            assert outcome.merged_events == one_shot.merged_events, marker


# -- string values decode exactly as Python (or JSON) reads them -----------------------------

PYTHON_LITERAL_FORMATS = ["lfm2", "llama-4", "olmo-3", "pythonic"]
HOLE = "QQVALUEQQ"

pieces = st.one_of(
    st.characters(),
    st.characters(categories=["Cs"]),  # lone surrogates, from escapes
    st.sampled_from(["\\", '"', "'", "\n", "\x00", "\ud83d\ude00", "\ud83d", "\ude00", "é"]),
)
strings = st.one_of(
    st.lists(pieces, max_size=40), st.lists(pieces, min_size=300, max_size=1500)
).map("".join)


def literal_in_call(name: str, literal: str) -> str:
    """The format's rendered call whose one argument is `literal`, as written."""
    fmt = formats.get(name)
    text = fmt.render(Turn(parts=(ToolUse(NAME, {"location": HOLE}),)), fmt.default_start)
    for quote in "'\"":
        text = text.replace(f"{quote}{HOLE}{quote}", literal)
    return text


def as_json_data(value: str) -> str:
    """`value` as a JSON client reads it: an escaped surrogate pair is its character (JSON
    has no other way to write one), a lone surrogate stays."""
    return str(json.loads(json.dumps(value)))


@pytest.mark.slow
@pytest.mark.parametrize("name", PYTHON_LITERAL_FORMATS)
@given(value=strings, style=st.sampled_from(["repr", "json", "json ascii"]), data=st.data())
@settings(max_examples=60, deadline=None)
def test_string_literals_decode_as_python_and_json_read_them(
    name: str, value: str, style: str, data: st.DataObject
) -> None:
    if style == "repr":
        literal = repr(value)
        expected = as_json_data(ast.literal_eval(literal))
    else:  # surrogates escaped: text decoded from UTF-8 never holds one
        literal = json.dumps(value, ensure_ascii=style == "json ascii")
        literal = re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", literal)
        expected = json.loads(literal)
    text = literal_in_call(name, literal)
    fmt = formats.get(name)
    for chunks in ([text], data.draw(chunkings(text))):
        (call,) = stream(fmt, chunks, None).message.tool_calls
        assert call.arguments == {"location": expected}
        assert json.loads(call.arguments_json) == call.arguments


# -- chunking changes nothing, whatever was done to the turn ---------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["any", "whitespace anywhere"])
@pytest.mark.parametrize("name", FORMATS)
@given(data=st.data())
@settings(max_examples=25, deadline=None)
def test_a_mutated_turn_gives_the_same_events_in_every_chunking(
    name: str, kind: str, data: st.DataObject
) -> None:
    """Valid turns mutated by the kit (whitespace anywhere or at a marker, markers in prose
    and arguments, undeclared tools, corrupted bytes, ...; or only whitespace anywhere),
    one-shot against one unit per chunk and a drawn chunking."""
    fmt = formats.get(name)
    case = data.draw(cases(fmt))
    case = data.draw(mutations(fmt, case) if kind == "any" else whitespace_anywhere(case))
    feed = case.data if case.data is not None else case.text
    drawn = data.draw(byte_chunkings(feed) if isinstance(feed, bytes) else chunkings(feed))
    per_unit = [feed[i : i + 1] for i in range(len(feed))]
    outcomes = [
        stream(fmt, chunks, case.tools, case.generation_prompt).merged_events
        for chunks in ([feed], per_unit, drawn)
    ]
    assert outcomes[1] == outcomes[0], case.label
    assert outcomes[2] == outcomes[0], (case.label, drawn)


# -- a name too long is an error, never text ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", FORMATS)
def test_a_tool_name_too_long_is_an_error_and_one_at_the_bound_a_call(name: str) -> None:
    fmt = formats.get(name)
    for length, calls in ((NAME_LIMIT, 1), (NAME_LIMIT + 1, 0), (100_000, 0)):
        long = "n" * length
        text = fmt.render(Turn(parts=(ToolUse(long, {"location": "x"}),)), fmt.default_start)
        one_shot, *chunkings = outcomes(name, text, None)
        message = one_shot.message
        assert [call.name for call in message.tool_calls] == [long] * calls
        if not calls:
            (error,) = message.errors
            assert f"a tool name of at most {NAME_LIMIT} characters" in error.message
            assert long[:1000] in error.raw
        for outcome in chunkings:
            assert outcome.merged_events == one_shot.merged_events
