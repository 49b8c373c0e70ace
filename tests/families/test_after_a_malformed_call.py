"""A malformed call never takes the next call with it, in every format whose arguments are
JSON: the first of two calls broken inside its arguments is one error, and the second is a
call, one-shot and in 1- and 4-character deltas. (Where a call template ends with its
arguments, the next call's opener was once consumed as the broken call's closer, and the
good call read as content: Granite-20B-FC, Functionary v3.2.) Where no marker stands
between two calls (`UNMARKED`), the error of the broken one runs to the end of the turn:
the calls after it are reported in its raw text, not read."""

from __future__ import annotations

import pytest

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.testing.run import stream

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        },
    }
]
BROKEN = '"location": "FIRST"'
"""The first call's arguments as rendered, which the test breaks (`"location": bad`)."""


def two_calls(name: str) -> str:
    fmt = formats.get(name)
    calls = (
        ToolUse("get_weather", {"location": "FIRST"}),
        ToolUse("get_weather", {"location": "SECOND"}),
    )
    return fmt.render(Turn(parts=calls), fmt.default_start)


UNMARKED = {"gigachat-3", "llama-3"}
"""Formats with no marker between two calls (back to back after one header; `; `): the
broken call's error runs to the end of the turn, the next call in its raw text."""
JSON_ARGUMENTS = [
    name for name in formats.names() if BROKEN in two_calls(name) and name not in UNMARKED
]


@pytest.mark.parametrize("name", JSON_ARGUMENTS)
@pytest.mark.parametrize("delta", [0, 1, 4])
def test_the_call_after_a_malformed_one_is_read(name: str, delta: int) -> None:
    text = two_calls(name).replace(BROKEN, '"location": bad', 1)
    fmt = formats.get(name)
    chunks = [text] if not delta else [text[i : i + delta] for i in range(0, len(text), delta)]
    message = stream(fmt, chunks, TOOLS).message
    assert [call.arguments for call in message.tool_calls][-1:] == [{"location": "SECOND"}]
    assert any("bad" in error.raw for error in message.errors)
    assert "SECOND" not in (message.content or "")
