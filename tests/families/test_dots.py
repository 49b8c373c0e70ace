"""The `dots` format, from the shapes of vLLM's dots tool parser tests and SGLang's
DotsToolDetector (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.dots import FORMAT
from protocall.testing import example_tests

OPEN, CLOSE = "<dots_function_call>", "</dots_function_call>"


def invoke(name: str, **values: object) -> str:
    parameters = "".join(f'<parameter name="{k}">{v}</parameter>' for k, v in values.items())
    return f'<invoke name="{name}">{parameters}</invoke>'


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
EXAMPLES = [
    ("A plain answer.<|endofresponse|>", None, {
        "reasoning_content": None, "content": "A plain answer.", "tool_calls": []}),
    (f"sure{OPEN}{invoke('get_weather', location='Paris', days=3)}{CLOSE}", None, {
        "reasoning_content": None, "content": "sure", "tool_calls": [PARIS]}),
    (f"<think>Two tools.</think>{OPEN}{invoke('get_weather', location='Paris', days=3)}"
     f"{invoke('web_search', query='dots llm', topn=4)}{CLOSE}{OPEN}"
     f"{invoke('get_time', zone='Asia/Shanghai')}{CLOSE}<|endofresponse|>", None, {
        "reasoning_content": "Two tools.", "content": None, "tool_calls": [
            PARIS, {"name": "web_search", "arguments": {"query": "dots llm", "topn": 4}},
            {"name": "get_time", "arguments": {"zone": "Asia/Shanghai"}}]}),
    (f'{OPEN}\n<invoke name="get_time">\n<parameter name="zone">UTC</parameter>\n</invoke>\n'
     f"{CLOSE}", None, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
