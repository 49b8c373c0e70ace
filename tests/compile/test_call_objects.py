"""Call objects in the JSON-array families (`blocks.call_object`): a misspelled arguments
key makes the call malformed, never a call without arguments; one-shot and streamed alike."""

from __future__ import annotations

import pytest

from protocall import formats
from protocall.testing import verify

TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]
ARRAYS = {
    "granite": ('<|tool_call|>[{"name": "f", "ARGS": {"q": "x"}}]', "<|end_of_text|>"),
    "nemotron": ('<TOOLCALL>[{"name": "f", "ARGS": {"q": "x"}}]</TOOLCALL>', "<|eot_id|>"),
    "cohere": (
        '<|START_ACTION|>[{"tool_name": "f", "ARGS": {"q": "x"}}]<|END_ACTION|>',
        "<|END_OF_TURN_TOKEN|>",
    ),
    "mistral": ('[TOOL_CALLS] [{"name": "f", "ARGS": {"q": "x"}}]', "</s>"),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
@pytest.mark.parametrize("key", ["arguents", "params", "argument"])
def test_a_misspelled_arguments_key_is_malformed(name: str, key: str) -> None:
    fmt = formats.get(name)
    call, stop = ARRAYS[name]
    text = call.replace("ARGS", key) + stop
    message = verify(fmt, text, fmt.prompt_for(None), tools=TOOLS)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "malformed"
    assert f'member, not `"{key}"`' in error.message and "expected a `" in error.message


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_a_call_without_arguments_has_none(name: str) -> None:
    fmt = formats.get(name)
    call, stop = ARRAYS[name]
    text = call.replace(', "ARGS": {"q": "x"}', "") + stop
    message = verify(fmt, text, fmt.prompt_for(None), tools=TOOLS)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", {})]
    assert message.errors == ()
