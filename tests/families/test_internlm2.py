"""The `internlm2` format, from the shapes of vLLM's tests/tool_parsers
test_internlm2_tool_parser.py and SGLang's InternlmDetector tests (our own strings), one-shot
and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.internlm2 import FORMAT
from protocall.testing import example_tests, verify

PROMPT = "<|im_start|>assistant\n"
WEATHER = '{"name": "get_current_weather", "parameters": {"city": "Dallas", "state": "TX"}}'
EXAMPLES = [
    ("How can I help you today?", PROMPT, {
        "reasoning_content": None, "content": "How can I help you today?", "tool_calls": []}),
    (f"<|action_start|><|plugin|>\n{WEATHER}<|action_end|><|im_end|>", PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}]}),
    (f"Let me check.<|action_start|> <|plugin|>\n{WEATHER}<|action_end|>", PROMPT, {
        "reasoning_content": None, "content": "Let me check.", "tool_calls": [
            {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}]}),
    ('<|action_start|><|plugin|>\n{"name": "get_time", "arguments": {"zone": "UTC"}}'
     '<|action_end|>\n<|action_start|> <|plugin|>\n{"name": "web_search", "parameters": '
     '{"query": "news", "topn": 3}}<|action_end|><|im_end|>', PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}},
            {"name": "web_search", "arguments": {"query": "news", "topn": 3}}]}),
    ("<think>A lookup.</think>" f"<|action_start|><|plugin|>\n{WEATHER}<|action_end|>", PROMPT, {
        "reasoning_content": "A lookup.", "content": None, "tool_calls": [
            {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_plugin_marker_without_its_action_start_is_text() -> None:
    text = "Write <|plugin|> here."
    message = verify(FORMAT, text, PROMPT, tools=TOOLS)
    assert message.content == text and not message.tool_calls
