"""The `phi-4-mini` format, from the shapes of vLLM's phi4mini_tool_parser (`phi4_mini_json`,
our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.phi4_mini import FORMAT
from protocall.testing import example_tests, verify

PROMPT = "<|assistant|>"
EXAMPLES = [
    ("No tools needed.", PROMPT, {
        "reasoning_content": None, "content": "No tools needed.", "tool_calls": []}),
    ('functools[{"name": "get_weather", "arguments": {"location": "Paris", "days": 2}}]<|end|>',
     PROMPT, {"reasoning_content": None, "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris", "days": 2}}]}),
    ('functools[{"name": "get_time", "parameters": {"zone": "UTC"}}, {"name": "web_search", '
     '"arguments": {"query": "phi"}}]', PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}},
            {"name": "web_search", "arguments": {"query": "phi"}}]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_the_word_functools_in_prose_is_text() -> None:
    text = "Python's functools[...] module and functools.partial are handy."
    message = verify(FORMAT, text, PROMPT, tools=TOOLS)
    assert message.content == text and not message.tool_calls
