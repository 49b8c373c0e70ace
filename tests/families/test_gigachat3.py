"""The `gigachat-3` format, from the shapes of vLLM's gigachat3 tool parser tests and
SGLang's GigaChat3Detector (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.gigachat3 import FORMAT
from protocall.testing import example_tests, verify

CALL = '{"name": "get_weather", "arguments": {"location": "Moscow", "days": 2}}'
MOSCOW = {"name": "get_weather", "arguments": {"location": "Moscow", "days": 2}}
EXAMPLES = [
    ("Just an answer.</s>", None, {
        "reasoning_content": None, "content": "Just an answer.", "tool_calls": []}),
    (f"function call<|role_sep|>\n{CALL}</s>", None, {
        "reasoning_content": None, "content": None, "tool_calls": [MOSCOW]}),
    (f"Checking.<|message_sep|>function call<|role_sep|>\n{CALL}", None, {
        "reasoning_content": None, "content": "Checking.", "tool_calls": [MOSCOW]}),
    (f"<|function_call|>{CALL}", None, {
        "reasoning_content": None, "content": None, "tool_calls": [MOSCOW]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_the_words_function_call_in_prose_are_text() -> None:
    text = "A function call returns a value."
    assert verify(FORMAT, text, None, tools=TOOLS).content == text
