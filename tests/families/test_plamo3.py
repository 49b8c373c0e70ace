"""The `plamo-3` format, from the shapes of vLLM's plamo3 tool parser tests (our own
strings), one-shot and streamed in every test."""

from __future__ import annotations

import json

from peer_tools import TOOLS

from protocall.formats.plamo3 import FORMAT, marker
from protocall.testing import example_tests

BEGIN, END = marker("begin_tool_requests"), marker("end_tool_requests")
END_THINK, EOT = marker("end_think"), "<|plamo:tag|>"


def request(name: str, **arguments: object) -> str:
    head = f"{marker('begin_tool_request')}{marker('begin_tool_name')}{name}"
    body = f"{marker('begin_tool_arguments')}<|plamo:constrain|>json<|plamo:msg|>"
    body += json.dumps(arguments)
    tail = f"{marker('end_tool_arguments')}{marker('end_tool_request')}"
    return f"{head}{marker('end_tool_name')}{body}{tail}"


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
EXAMPLES = [
    (f"Nothing to call.{END_THINK}A plain reply.{EOT}", None, {
        "reasoning_content": "Nothing to call.", "content": "A plain reply.", "tool_calls": []}),
    (f"Weather.{END_THINK}Checking the weather.{BEGIN}"
     f"{request('get_weather', location='Paris', days=3)}{END}{EOT}", None, {
        "reasoning_content": "Weather.", "content": "Checking the weather.",
        "tool_calls": [PARIS]}),
    (f"Two at once.{BEGIN}{request('get_time', zone='UTC')}"
     f"{request('web_search', query='plamo', topn=2)}{END}{EOT}", None, {
        "reasoning_content": "Two at once.", "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}},
            {"name": "web_search", "arguments": {"query": "plamo", "topn": 2}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
