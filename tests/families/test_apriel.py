"""The `apriel` format, from the shapes of llama.cpp's Apriel Thinker handling and the
model's template (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.apriel import FORMAT
from protocall.testing import example_tests

PROMPT = "Here are my reasoning steps:\n"
SEARCH = {"name": "web_search", "arguments": {"query": "Iran news 2025"}}
EXAMPLES = [
    ("1. The capital.\n[BEGIN FINAL RESPONSE]\nParis.\n[END FINAL RESPONSE]<|end|>", PROMPT, {
        "reasoning_content": "1. The capital.", "content": "Paris.", "tool_calls": []}),
    ("The user wants news.\n[BEGIN FINAL RESPONSE]\n<tool_calls>[{\"name\": \"web_search\", "
     "\"arguments\": {\"query\": \"Iran news 2025\"}}]</tool_calls>\n[END FINAL RESPONSE]",
     PROMPT, {
        "reasoning_content": "The user wants news.", "content": None, "tool_calls": [SEARCH]}),
    ("Search first.<tool_calls>[{\"name\": \"web_search\", \"arguments\": {\"query\": "
     "\"Iran news 2025\"}}]</tool_calls><|end|>", PROMPT, {
        "reasoning_content": "Search first.", "content": None, "tool_calls": [SEARCH]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
