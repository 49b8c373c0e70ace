"""The `granite-20b-fc` format, from the shapes of vLLM's
tests/tool_parsers/test_granite_20b_fc_tool_parser.py (our own strings), one-shot and
streamed in every test."""

from __future__ import annotations

import pytest
from peer_tools import TOOLS

from protocall.formats.granite_20b_fc import FORMAT
from protocall.testing import verify

DALLAS = {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}
EXAMPLES = [
    ("Nothing to call.", None, {
        "reasoning_content": None, "content": "Nothing to call.", "tool_calls": []}),
    ('<function_call> {"name": "get_current_weather", "arguments": {"city": "Dallas", '
     '"state": "TX"}}<|endoftext|>', None, {
        "reasoning_content": None, "content": None, "tool_calls": [DALLAS]}),
    ('Checking both. <function_call> {"name": "get_current_weather", "arguments": {"city": '
     '"Dallas", "state": "TX"}}\n<function_call> {"name": "get_time", "arguments": {"zone": '
     '"CST"}}', None, {
        "reasoning_content": None, "content": "Checking both.", "tool_calls": [
            DALLAS, {"name": "get_time", "arguments": {"zone": "CST"}}]}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "prompt", "expected"), EXAMPLES)
def test_peer_shapes(text: str, prompt: str | None, expected: dict[str, object]) -> None:
    verify(FORMAT, text, prompt, tools=TOOLS, expected=expected)
