"""The `gigachat-3` format, from the shapes of vLLM's gigachat3 tool parser tests and
SGLang's GigaChat3Detector (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

import pytest
from peer_tools import TOOLS

from protocall.formats.gigachat3 import FORMAT
from protocall.testing import verify

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


@pytest.mark.parametrize(("text", "prompt", "expected"), EXAMPLES)
def test_peer_shapes(text: str, prompt: str | None, expected: dict[str, object]) -> None:
    verify(FORMAT, text, prompt, tools=TOOLS, expected=expected)


def test_the_words_function_call_in_prose_are_text() -> None:
    text = "A function call returns a value."
    assert verify(FORMAT, text, None, tools=TOOLS).content == text
