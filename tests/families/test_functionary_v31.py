"""The `functionary-v3.1` format, from the shapes of llama.cpp's tests of its
`FUNCTIONARY_V3_1_LLAMA_3_1` chat format (ggml-org/llama.cpp `tests/test-chat.cpp`: content
alone, and `<function=special_function>{"arg1": 1}</function>`; our own strings), one-shot
and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

import protocall
from protocall.formats.functionary_v31 import FORMAT
from protocall.testing import example_tests

PROMPT = "<|start_header_id|>assistant<|end_header_id|>\n\n"
PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
EXAMPLES = [
    ("Hello, world!\nWhat's up?<|eot_id|>", PROMPT, {
        "reasoning_content": None, "content": "Hello, world!\nWhat's up?", "tool_calls": []}),
    ('<function=get_weather>{"location": "Paris", "days": 3}</function><|eom_id|>', PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [PARIS]}),
    ('Checking both.<function=get_weather>{"location": "Paris", "days": 3}</function>'
     '<function=get_time>{}</function><|eom_id|>', PROMPT, {
        "reasoning_content": None, "content": "Checking both.", "tool_calls": [
            PARIS, {"name": "get_time", "arguments": {}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_code_interpreter_call_stays_text() -> None:
    """`<|python_tag|>` code calls are not read (the family's docstring): text, whole."""
    text = "<|python_tag|>print(1)<|eom_id|>"
    message = protocall.parse(text, "functionary-v3.1", TOOLS, PROMPT)
    assert (message.content, message.tool_calls, message.errors) == (
        "<|python_tag|>print(1)",
        (),
        (),
    )
