"""The `functiongemma` format, from the shapes of vLLM's functiongemma tool parser tests
(our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.functiongemma import FORMAT
from protocall.testing import example_tests

PROMPT = "<start_of_turn>model\n"
START, END = "<start_function_call>", "<end_function_call>"
EXAMPLES = [
    ("Hello there.<end_of_turn>", PROMPT, {
        "reasoning_content": None, "content": "Hello there.", "tool_calls": []}),
    (f"{START}call:get_weather{{location:<escape>Paris, France<escape>,days:3}}{END}"
     "<start_function_response>", PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_weather", "arguments": {"location": "Paris, France", "days": 3}}]}),
    (f"Two.{START}call:get_time{{zone:<escape>UTC<escape>}}{END}"
     f"{START}call:web_search{{query:<escape>a: b, c<escape>}}{END}", PROMPT, {
        "reasoning_content": None, "content": "Two.", "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}},
            {"name": "web_search", "arguments": {"query": "a: b, c"}}]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
