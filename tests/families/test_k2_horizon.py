"""The `k2-horizon` format, from the shapes of vLLM's k2_horizon tool and reasoning parser
tests and SGLang's K2V3Detector (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.k2_horizon import FORMAT
from protocall.testing import example_tests

CALLS, CALLS_END = "<ifm|tool_calls>", "</ifm|tool_calls>"


def call(name: str, **values: object) -> str:
    pairs = "".join(
        f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v}</ifm|arg_value>"
        for k, v in values.items()
    )
    return f"<ifm|tool_call>{name}{pairs}</ifm|tool_call>"


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
EXAMPLES = [
    ("<ifm|think>Easy.</ifm|think>Hello.", None, {
        "reasoning_content": "Easy.", "content": "Hello.", "tool_calls": []}),
    (f"Before {CALLS}{call('get_weather', location='Paris', days=3)}\n"
     f"{call('get_time')}{CALLS_END} after.", None, {
        "reasoning_content": None, "content": "Before  after.", "tool_calls": [
            PARIS, {"name": "get_time", "arguments": {}}]}),
    (f"<ifm|think_fast>Look it up.</ifm|think_fast>{CALLS}"
     f"{call('web_search', query='123', topn=2)}{CALLS_END}", None, {
        "reasoning_content": "Look it up.", "content": None, "tool_calls": [
            {"name": "web_search", "arguments": {"query": "123", "topn": 2}}]}),
    (f"<ifm|think_faster>Quick.{CALLS}{call('get_time', zone='UTC')}{CALLS_END}", None, {
        "reasoning_content": "Quick.", "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
