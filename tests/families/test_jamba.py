"""The `jamba` format, from the shapes of vLLM's tests/tool_parsers/test_jamba_tool_parser.py
(our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.jamba import FORMAT
from protocall.testing import example_tests, verify

PROMPT = "<|bom|><|assistant|>"
DALLAS = {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}
ORLANDO = {"name": "get_current_weather", "arguments": {"city": "Orlando", "unit": "F"}}
EXAMPLES = [
    ("This is a test", PROMPT, {
        "reasoning_content": None, "content": "This is a test", "tool_calls": []}),
    (' <tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", '
     '"state": "TX"}}\n]</tool_calls><|eom|>', PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [DALLAS]}),
    ('Sure, checking. <tool_calls>[{"name": "get_current_weather", "arguments": {"city": '
     '"Dallas", "state": "TX"}}, {"name": "get_current_weather", "arguments": {"city": '
     '"Orlando", "unit": "F"}}]</tool_calls>', PROMPT, {
        "reasoning_content": None, "content": "Sure, checking.", "tool_calls": [DALLAS, ORLANDO]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_broken_member_is_an_error_of_its_own_and_its_siblings_calls() -> None:
    call = '{"name": "get_time", "arguments": {"zone": "UTC"}}'
    text = f' <tool_calls>[{call}, {{"name": 3}}]</tool_calls>'
    message = verify(FORMAT, text, PROMPT, tools=TOOLS)
    assert [c.name for c in message.tool_calls] == ["get_time"]
    assert [(e.code, e.raw) for e in message.errors] == [("malformed", '{"name": 3}')]
