"""Hostile arguments in every format: whatever a call's arguments hold, the call completes
with them exactly or an error with its raw text says why; nothing crashes, nothing is
silently dropped, and the chunking changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from protocall import formats
from protocall.events import ProtocolError, ToolCallEnd
from protocall.formats.turns import ToolUse, Turn
from protocall.testing.degenerate import NAME, TOOLS
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
