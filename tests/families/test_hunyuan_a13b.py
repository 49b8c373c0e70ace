"""The `hunyuan-a13b` format, from the shapes of vLLM's hunyuan_a13b tool and reasoning
parser tests (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.hunyuan_a13b import FORMAT
from protocall.testing import example_tests

PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
EXAMPLES = [
    ("<think>\nThe user wants weather.\n</think>\n<answer>\nIt is sunny.\n</answer>", None, {
        "reasoning_content": "The user wants weather.", "content": "It is sunny.",
        "tool_calls": []}),
    ("<think>\n\n</think>\n<answer>\nQuick answer.\n</answer><|eos|>", None, {
        "reasoning_content": None, "content": "Quick answer.", "tool_calls": []}),
    ('<think>\nNeed weather.\n</think>\n<answer>\n<tool_calls>[{"name": "get_weather", '
     '"arguments": {"location": "Paris", "days": 3}}]</tool_calls>\n</answer>', None, {
        "reasoning_content": "Need weather.", "content": None, "tool_calls": [PARIS]}),
    ('<tool_calls>[{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}, '
     '{"name": "get_time", "arguments": {}}]</tool_calls>', None, {
        "reasoning_content": None, "content": None, "tool_calls": [
            PARIS, {"name": "get_time", "arguments": {}}]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
