"""The `gigachat-3.5` format, from the shapes of SGLang's GigaChat35Detector and vLLM's
gigachat35 tool parser tests (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.gigachat35 import FORMAT
from protocall.testing import example_tests

BLOCK, BLOCK_END = "<｜GCML｜tool_calls>", "</｜GCML｜tool_calls>"


def invoke(name: str, *parameters: tuple[str, str, bool]) -> str:
    body = "".join(
        f'<｜GCML｜parameter name="{key}" string="{str(raw).lower()}">{value}</｜GCML｜parameter>'
        for key, value, raw in parameters
    )
    return f'<｜GCML｜invoke name="{name}">{body}</｜GCML｜invoke>'


PARIS = invoke("get_weather", ("location", "Paris", True), ("days", "3", False))
TOKYO = invoke("get_time", ("zone", "Asia/Tokyo", True))
QUOTED = invoke("web_search", ("query", 'line 1\\n"q"', True), ("topn", "2", False))
EXAMPLES = [
    ("Easy.</think>Plain answer, no tool.</s>", None, {
        "reasoning_content": "Easy.", "content": "Plain answer, no tool.", "tool_calls": []}),
    (f"Weather.</think>I will check.{BLOCK}{PARIS}{BLOCK_END}</s>", None, {
        "reasoning_content": "Weather.", "content": "I will check.", "tool_calls": [
            {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}]}),
    (f"<think>Both.</think>{BLOCK}{TOKYO}\n{QUOTED}{BLOCK_END}", None, {
        "reasoning_content": "Both.", "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "Asia/Tokyo"}},
            {"name": "web_search", "arguments": {"query": 'line 1\\n"q"', "topn": 2}}]}),
    (f"Nothing to pass.{BLOCK}{invoke('get_time')}{BLOCK_END}<|message_sep|></s>", None, {
        "reasoning_content": "Nothing to pass.", "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
