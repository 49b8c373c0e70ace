"""The `mimo` format, from the shapes of vLLM's MiMo-V2-Flash tool parser tests and
SGLang's MiMoDetector (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.mimo import FORMAT
from protocall.testing import example_tests


def call(name: str, **values: object) -> str:
    parameters = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in values.items())
    return f"<tool_call>\n<function={name}>\n{parameters}</function>\n</tool_call>"


NEWLINES = call("get_time", zone="\nUTC\n")
MULTILINE = call("get_weather", location="Paris,\nFrance", days=2)
EXAMPLES = [
    ("Only text here.<|im_end|>", None, {
        "reasoning_content": None, "content": "Only text here.", "tool_calls": []}),
    (f"Let me look.\n{call('web_search', query='ls && pwd', topn=3)}<|im_end|>", None, {
        "reasoning_content": None, "content": "Let me look.", "tool_calls": [
            {"name": "web_search", "arguments": {"query": "ls && pwd", "topn": 3}}]}),
    (f"<think>Two.</think>{NEWLINES}\n{MULTILINE}", None, {
        "reasoning_content": "Two.", "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "\nUTC\n"}},
            {"name": "get_weather", "arguments": {"location": "Paris,\nFrance", "days": 2}}]}),
    (call("get_time"), None, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
