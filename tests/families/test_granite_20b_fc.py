"""The `granite-20b-fc` format, from the shapes of vLLM's
tests/tool_parsers/test_granite_20b_fc_tool_parser.py (our own strings), one-shot and
streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.granite_20b_fc import FORMAT
from protocall.testing import example_tests

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


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
