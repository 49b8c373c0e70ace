"""The `longcat` format, from the shapes of vLLM's longcat tool parser tests (our own
strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.longcat import FORMAT
from protocall.testing import example_tests

OPEN, CLOSE = "<longcat_tool_call>", "</longcat_tool_call>"
PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
PARIS_JSON = '{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}'
EXAMPLES = [
    ("Just an answer, no tools.</longcat_s>", None, {
        "reasoning_content": None, "content": "Just an answer, no tools.", "tool_calls": []}),
    (f"{OPEN}{PARIS_JSON}{CLOSE}", None, {
        "reasoning_content": None, "content": None, "tool_calls": [PARIS]}),
    (f"Looking it up.\n{OPEN}{PARIS_JSON}{CLOSE}\n{OPEN}"
     '{"name": "get_time", "arguments": {"zone": "Asia/Tokyo"}}'
     f"{CLOSE}</longcat_s>", None, {
        "reasoning_content": None, "content": "Looking it up.", "tool_calls": [
            PARIS, {"name": "get_time", "arguments": {"zone": "Asia/Tokyo"}}]}),
    (f'<think>Weather first.</think>{OPEN}{{\n  "name": "web_search",\n  "arguments": '
     '{"query": "say \\"hi\\"\\nC:\\\\tmp", "topn": 2}\n}' f"{CLOSE}", None, {
        "reasoning_content": "Weather first.", "content": None, "tool_calls": [
            {"name": "web_search", "arguments": {"query": 'say "hi"\nC:\\tmp', "topn": 2}}]}),
    (f'{OPEN}{{"name": "get_time", "arguments": {{}}}}{CLOSE}', None, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
