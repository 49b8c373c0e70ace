"""The `inkling` format, from the shapes of vLLM's Inkling tests
(vllm-project/vllm `tests/parser/engine/test_inkling.py`: a header's name that is no
content, blocks that repeat, raw-text and error blocks read as text, a text block ended by
`<|content_model_end_sampling|>`) and SGLang's `inkling_detector.py` (our own strings),
one-shot and streamed in every test."""

from __future__ import annotations

from peer_tools import TOOLS

import protocall
from protocall.formats.inkling import FORMAT
from protocall.testing import example_tests

HEAD, END, STOP = "<|message_model|>", "<|end_message|>", "<|content_model_end_sampling|>"
THINK, TEXT, TOOL = "<|content_thinking|>", "<|content_text|>", "<|content_invoke_tool_json|>"
PROMPT = HEAD


def call(name: str, header: str = "", **args: object) -> str:
    body = ",".join(f'"{key}":{value!r}'.replace("'", '"') for key, value in args.items())
    return f'{HEAD}{header}{TOOL}{{"name":"{name}","args":{{{body}}}}}{END}'


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
TIME = {"name": "get_time", "arguments": {}}
EXAMPLES = [
    (f"{TEXT}A plain response.{END}{STOP}", PROMPT, {
        "reasoning_content": None, "content": "A plain response.", "tool_calls": []}),
    (f"{THINK}Rain?{END}{HEAD}{TEXT}Checking.{END}"
     f"{call('get_weather', location='Paris', days=3)}{STOP}", PROMPT, {
        "reasoning_content": "Rain?", "content": "Checking.", "tool_calls": [PARIS]}),
    (f"{THINK}Two lookups.{END}{call('get_weather', 'get_weather', location='Paris', days=3)}"
     f"{call('get_time', 'get_time')}{STOP}", PROMPT, {
        "reasoning_content": "Two lookups.", "content": None, "tool_calls": [PARIS, TIME]}),
    (f"{TOOL}\n  {{\"name\": \"get_time\", \"args\": {{\"zone\": \"北京\"}}}}\n{END}"
     f"{HEAD}{TEXT}Done.{END}{STOP}", PROMPT, {
        "reasoning_content": None, "content": "Done.", "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "北京"}}]}),
    (f"Weather first.{END}{call('web_search', query='<b>ink</b>', topn=2)}{STOP}",
     PROMPT + THINK, {"reasoning_content": "Weather first.", "content": None, "tool_calls": [
         {"name": "web_search", "arguments": {"query": "<b>ink</b>", "topn": 2}}]}),
    (call("get_time", "get_time", zone="UTC").removeprefix(HEAD) + STOP, PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
    (f"{THINK}First.{END}{HEAD}{TEXT}Between.{END}{HEAD}{THINK}Second.{END}{HEAD}{TEXT}"
     f"Last.{STOP}", PROMPT, {
        "reasoning_content": "First.Second.", "content": "Between.Last.", "tool_calls": []}),
    (f"<|content_invoke_tool_text|>run it{END}{HEAD}<|content_tool_error|> failed{END}{STOP}",
     PROMPT, {"reasoning_content": None, "content": "run it failed", "tool_calls": []}),
    (f'{HEAD}get_time{TOOL}{{"args":{{"zone":"UTC"}},"name":"get_time"}}{END}{STOP}', PROMPT,
     {"reasoning_content": None, "content": None, "tool_calls": [
         {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_tool_block_that_is_no_json_object_is_an_error_keeping_its_text() -> None:
    text = f"{TOOL}not json{END}{HEAD}{TEXT}after{END}"
    message = protocall.parse(text, "inkling", TOOLS, PROMPT)
    assert message.tool_calls == ()
    assert message.content == f"{TOOL}not json{END}after"
    [error] = message.errors
    assert (error.code, error.raw) == ("malformed", f"{TOOL}not json{END}")
