"""A call's arguments stream as they arrive, in every format: a long string argument cut
in its middle has already given the arguments deltas up to near the cut (for a UI showing
a call being written, and for a server streaming arguments tentatively). A choice left
open around the arguments (JSON object or string-encoded arguments) once held them all
until the call ended, in the 16 formats whose calls are JSON objects."""

from __future__ import annotations

import pytest

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.events import ToolCallArgumentsDelta

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        },
    }
]
BEFORE, AFTER = "Paris " * 20, " and more" * 20
"""The argument's text before the cut, and after it."""


@pytest.mark.parametrize("name", formats.names())
@pytest.mark.parametrize("delta", [1, 4])
def test_a_long_argument_streams_before_its_call_ends(name: str, delta: int) -> None:
    fmt = formats.get(name)
    turn = Turn(parts=(ToolUse("get_weather", {"location": BEFORE + "MIDDLE" + AFTER}),))
    text = fmt.render(turn, fmt.default_start)
    cut = text.index("MIDDLE")
    session = fmt.parser(TOOLS)
    events = []
    for start in range(0, cut, delta):
        events += session.feed(text[start : min(start + delta, cut)])
    streamed = "".join(e.text for e in events if isinstance(e, ToolCallArgumentsDelta))
    assert BEFORE[:-12] in streamed
