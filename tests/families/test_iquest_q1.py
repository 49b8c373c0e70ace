"""The `iquest-q1` format, from the shapes of SGLang's IQuestQ1Detector and the GLM-style
tests vLLM has for iQuest Coder (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.iquest_q1 import FORMAT
from protocall.testing import example_tests


def call(name: str, *pairs: tuple[str, object], gap: str = "") -> str:
    body = "".join(f"<arg_key>{k}</arg_key>{gap}<arg_value>{v}</arg_value>{gap}" for k, v in pairs)
    return f"<iquest_tool_call>{name}{gap}{body}</iquest_tool_call>"


EXAMPLES = [
    ("Simple.</think>Just a plain reply.", None, {
        "reasoning_content": "Simple.", "content": "Just a plain reply.", "tool_calls": []}),
    (f"Weather.</think>Let me look that up.\n{call('get_current_weather', ('city', '12345'))}",
     None, {
        "reasoning_content": "Weather.", "content": "Let me look that up.", "tool_calls": [
            {"name": "get_current_weather", "arguments": {"city": "12345"}}]}),
    (f"Two.{call('get_weather', ('location', 'Dallas'), ('days', 3))}"
     f"{call('get_weather', ('location', 'Orlando'), gap=chr(10))}", None, {
        "reasoning_content": "Two.", "content": None, "tool_calls": [
            {"name": "get_weather", "arguments": {"location": "Dallas", "days": 3}},
            {"name": "get_weather", "arguments": {"location": "Orlando"}}]}),
    (f"<think>No arguments.</think>{call('get_time')}", None, {
        "reasoning_content": "No arguments.", "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
