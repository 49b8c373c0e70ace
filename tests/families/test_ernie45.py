"""The `ernie-4.5` format, from the shapes of vLLM's ernie45 tool and reasoning parser
tests (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.ernie45 import FORMAT
from protocall.testing import example_tests

PROMPT = "Assistant: "
SEARCH = {"name": "web_search", "arguments": {"query": "ERNIE", "topn": 2}}
EXAMPLES = [
    ("<think>Plain.</think>\n<response>Hello there.</response></s>", PROMPT, {
        "reasoning_content": "Plain.", "content": "Hello there.", "tool_calls": []}),
    ('<tool_call>\n{"name": "web_search", "arguments": {"query": "ERNIE", "topn": 2}}\n'
     "</tool_call></s>", PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [SEARCH]}),
    ('<think>Two lookups.</think>\n\n<tool_call>\n{"name": "web_search", "arguments": '
     '{"query": "ERNIE", "topn": 2}}\n</tool_call>\n<tool_call>\n{"name": "get_time", '
     '"arguments": {"zone": "Asia/Shanghai"}}\n</tool_call>', PROMPT, {
        "reasoning_content": "Two lookups.", "content": None, "tool_calls": [
            SEARCH, {"name": "get_time", "arguments": {"zone": "Asia/Shanghai"}}]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
