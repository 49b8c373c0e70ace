"""The `xlam` format, from the shapes of vLLM's tests/tool_parsers/test_xlam_tool_parser.py
(our own strings), one-shot and streamed in every test."""

from __future__ import annotations

import pytest
from peer_tools import TOOLS

from protocall.formats.xlam import FORMAT
from protocall.testing import example_tests, verify

PROMPT = "<|im_start|>assistant\n"
DALLAS = {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}
ORLANDO = {"name": "get_current_weather", "arguments": {"city": "Orlando", "unit": "F"}}
LIST = (
    '[{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}, '
    '{"name": "get_current_weather", "arguments": {"city": "Orlando", "unit": "F"}}]'
)
EXAMPLES = [
    ("No calls here.", PROMPT, {
        "reasoning_content": None, "content": "No calls here.", "tool_calls": []}),
    (f"{LIST}<|im_end|>", PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [DALLAS, ORLANDO]}),
    (f"<think>Two cities.</think>{LIST}", PROMPT, {
        "reasoning_content": "Two cities.", "content": None, "tool_calls": [DALLAS, ORLANDO]}),
    (f"I'll check. <tool_call>{LIST}</tool_call>", PROMPT, {
        "reasoning_content": None, "content": "I'll check.", "tool_calls": [DALLAS, ORLANDO]}),
    (f"[TOOL_CALLS]{LIST}", PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [DALLAS, ORLANDO]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


@pytest.mark.parametrize(
    "text",
    [
        "Lists like [1, 2] stay text.",
        'JSON [{"a": 1}] too.',
        '[{"name": "undeclared", "arguments": {}}]',
    ],
)
def test_a_bare_list_that_proves_no_call_is_text(text: str) -> None:
    message = verify(FORMAT, text, PROMPT, tools=TOOLS)
    assert message.content == text and not message.tool_calls
