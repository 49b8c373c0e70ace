"""The `functionary-v3.1` format, from the shapes of llama.cpp's tests of its
`FUNCTIONARY_V3_1_LLAMA_3_1` chat format (ggml-org/llama.cpp `tests/test-chat.cpp`: content
alone, `<function=special_function>{"arg1": 1}</function>`, and `<|python_tag|>` then code
as a `python` call; our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import STRING, TOOLS, tool

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


PYTHON = [*TOOLS, tool("python", code=STRING)]
TAG, EOM = "<|python_tag|>", "<|eom_id|>"
CODE_EXAMPLES = [
    (TAG + "print('hey')" + EOM, PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "python", "arguments": {"code": "print('hey')"}}]}),
    ("Let me compute it." + TAG + "import math\nprint(math.pi)", PROMPT, {
        "reasoning_content": None, "content": "Let me compute it.", "tool_calls": [
            {"name": "python", "arguments": {"code": "import math\nprint(math.pi)"}}]}),
    (TAG + '<function=get_time>{"zone": "UTC"}</function>' + EOM, PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip

test_code_interpreter_calls = example_tests(FORMAT, CODE_EXAMPLES, tools=PYTHON, max_examples=3)
"""llama.cpp's shape of the code interpreter's call (`<|python_tag|>` then the code, the
rest of the turn): a call of the declared `python` tool, one-shot and in every chunking."""


def test_code_without_a_python_tool_stays_text() -> None:
    """With no `python` tool declared, the tag and the code are content, whole."""
    text = TAG + "print(1)" + EOM
    message = protocall.parse(text, "functionary-v3.1", TOOLS, PROMPT)
    assert (message.content, message.tool_calls, message.errors) == (TAG + "print(1)", (), ())
