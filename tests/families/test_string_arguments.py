"""Arguments written as a JSON string holding the object (`"arguments": "{\\"a\\": 1}"`), as
Hermes-style and JSON-array models sometimes write them and vLLM's and SGLang's JSON
parsers accept: decoded, one-shot and streamed; a string holding anything else is a
malformed call."""

from __future__ import annotations

import json

import pytest

from protocall import formats
from protocall.testing import verify

ARGUMENTS = {"path": 'C:\\temp\\a "b".txt', "lines": [1, 2], "unicode": "東京"}
ENCODED = json.dumps(json.dumps(ARGUMENTS, ensure_ascii=False), ensure_ascii=False)
CALLS = {
    "hermes": f'<tool_call>\n{{"name": "write", "arguments": {ENCODED}}}\n</tool_call>',
    "nemotron": f'<TOOLCALL>[{{"name": "write", "arguments": {ENCODED}}}]</TOOLCALL>',
    "granite": f'<|tool_call|>[{{"arguments": {ENCODED}, "name": "write"}}]',
    "jamba": f' <tool_calls>[{{"name": "write", "arguments": {ENCODED}}}]</tool_calls>',
    "internlm2": "<|action_start|><|plugin|>\n"
    f'{{"name": "write", "parameters": {ENCODED}}}<|action_end|>',
}
EXPECTED = {"reasoning_content": None, "content": None, "tool_calls": [
    {"name": "write", "arguments": ARGUMENTS}]}  # fmt: skip


@pytest.mark.parametrize("name", CALLS)
def test_string_encoded_arguments_are_decoded(name: str) -> None:
    verify(formats.get(name), CALLS[name], expected=EXPECTED)


@pytest.mark.parametrize("held", ['"a string"', "[1, 2]", "not json", "{broken"])
def test_a_string_holding_no_object_is_a_malformed_call(held: str) -> None:
    text = f'<tool_call>\n{{"name": "write", "arguments": {json.dumps(held)}}}\n</tool_call>'
    message = verify(formats.get("hermes"), text)
    assert not message.tool_calls and [e.code for e in message.errors] == ["malformed"]
