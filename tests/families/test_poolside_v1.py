"""The `poolside-v1` format, from the shapes of vLLM's poolside_v1 tool parser tests and
SGLang's PoolsideV1Detector (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.poolside_v1 import FORMAT
from protocall.testing import example_tests

PROMPT = "<assistant>"


def call(name: str, **values: object) -> str:
    pairs = "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in values.items()
    )
    return f"<tool_call>{name}\n{pairs}</tool_call>"


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
EXAMPLES = [
    ("Nothing to look up.</assistant>", PROMPT, {
        "reasoning_content": None, "content": "Nothing to look up.", "tool_calls": []}),
    (f"On it.\n{call('get_weather', location='Paris', days=3)}</assistant>", PROMPT, {
        "reasoning_content": None, "content": "On it.", "tool_calls": [PARIS]}),
    (f"Both.</think>{call('get_time', zone='UTC')}\n"
     f"{call('web_search', query='<b>laguna</b>', topn=1)}", f"{PROMPT}<think>", {
        "reasoning_content": "Both.", "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}},
            {"name": "web_search", "arguments": {"query": "<b>laguna</b>", "topn": 1}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
