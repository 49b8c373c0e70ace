"""The `step-3` format, from the shapes of vLLM's step3 tool parser tests and SGLang's
Step3Detector tests (our own strings), one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.step3 import FORMAT
from protocall.testing import example_tests

PROMPT = "<|BOT|>assistant\n<think>\n"
BEGIN, END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
CALL, CALL_END, SEP = "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>"


def invoke(name: str, **values: object) -> str:
    parameters = "".join(
        f'<steptml:parameter name="{key}">{value}</steptml:parameter>\n'
        for key, value in values.items()
    )
    head = f'{CALL}function{SEP}<steptml:invoke name="{name}">\n'
    return f"{head}{parameters}</steptml:invoke>{CALL_END}"


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
EXAMPLES = [
    ("Plain reasoning.</think>Plain answer.<|EOT|>", PROMPT, {
        "reasoning_content": "Plain reasoning.", "content": "Plain answer.", "tool_calls": []}),
    (f"Need weather.</think>Checking.{BEGIN}\n{invoke('get_weather', location='Paris', days=3)}"
     f"\n{END}<|EOT|>", PROMPT, {
        "reasoning_content": "Need weather.", "content": "Checking.", "tool_calls": [PARIS]}),
    (f"Two.</think>{BEGIN}\n{invoke('get_weather', location='Paris', days=3)}\n"
     f"{invoke('web_search', query='step 3', topn=5)}\n{END}", PROMPT, {
        "reasoning_content": "Two.", "content": None, "tool_calls": [
            PARIS, {"name": "web_search", "arguments": {"query": "step 3", "topn": 5}}]}),
    (f"{BEGIN}\n{invoke('get_time', zone='UTC')}\n{END}", PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""
