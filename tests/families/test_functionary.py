"""The `functionary-v3.2` format, from the shapes of llama.cpp's tests/test-chat.cpp
(meetkai-functionary-medium-v3.2) and FORMATS.md §6.11 (our own strings), one-shot and
streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.functionary import FORMAT
from protocall.testing import example_tests, verify

PROMPT = "<|start_header_id|>assistant<|end_header_id|>\n\n"
PRIMED = PROMPT + ">>>"  # the model's template: the first header begun
PARIS = {"name": "get_weather", "arguments": {"location": "Paris"}}
EXAMPLES = [
    (">>>all\nHello, world!\nWhat's up?", PROMPT, {
        "reasoning_content": None, "content": "Hello, world!\nWhat's up?", "tool_calls": []}),
    ('>>>get_weather\n{"location": "Paris"}<|eot_id|>', PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [PARIS]}),
    ('>>>all\nLet me check.>>>get_weather\n{"location": "Paris"}', PROMPT, {
        "reasoning_content": None, "content": "Let me check.", "tool_calls": [PARIS]}),
    ('>>>get_weather\n{"location": "Paris"}>>>get_time\n{"zone": "CET"}>>>all\nBoth asked.',
     PROMPT, {"reasoning_content": None, "content": "Both asked.", "tool_calls": [
         PARIS, {"name": "get_time", "arguments": {"zone": "CET"}}]}),
    ("all\nHello, world!", PRIMED, {
        "reasoning_content": None, "content": "Hello, world!", "tool_calls": []}),
    ('get_weather\n{"location": "Paris"}>>>all\nDone.', PRIMED, {
        "reasoning_content": None, "content": "Done.", "tool_calls": [PARIS]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_header_without_arguments_after_it_is_text() -> None:
    text = "Arrows >>>like this\nare text."
    message = verify(FORMAT, text, PROMPT, tools=TOOLS)
    assert message.content == text and not message.tool_calls
