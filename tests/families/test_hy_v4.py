"""The `hy-v4` format, from the shapes of vLLM's hy_v4 tool and reasoning parser tests and
SGLang's Hunyuan detector (our own strings), one-shot and streamed in every test: every
token suffixed with `:opensource`, as vLLM's tests write them."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.formats.hy_v4 import FORMAT
from protocall.testing import example_tests

S = ":opensource"
CALLS, CALLS_END = f"<tool_calls{S}>", f"</tool_calls{S}>"
THINK_END = f"</think{S}>"


def call(name: str, **values: object) -> str:
    pairs = "".join(
        f"<arg_key{S}>{k}</arg_key{S}><arg_value{S}>{v}</arg_value{S}>" for k, v in values.items()
    )
    return f"<tool_call{S}>{name}{pairs}</tool_call{S}>"


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
TIME = {"name": "get_time", "arguments": {}}
EXAMPLES = [
    ("A plain response.", "", {
        "reasoning_content": None, "content": "A plain response.", "tool_calls": []}),
    (f"sure!{CALLS}{call('get_weather', location='Paris', days=3)}{CALLS_END}", "", {
        "reasoning_content": None, "content": "sure!", "tool_calls": [PARIS]}),
    (f"{CALLS}{call('get_weather', location='Paris', days=3)}{call('get_time')}{CALLS_END}",
     "", {"reasoning_content": None, "content": None, "tool_calls": [PARIS, TIME]}),
    (f"hi{CALLS}\n  {call('get_time', zone='北京')}\n{CALLS_END}", "", {
        "reasoning_content": None, "content": "hi", "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "北京"}}]}),
    (f"Weather first.{THINK_END}{CALLS}{call('web_search', query='<b>hy</b>', topn=2)}"
     f"{CALLS_END}", None, {"reasoning_content": "Weather first.", "content": None,
                            "tool_calls": [{"name": "web_search",
                                            "arguments": {"query": "<b>hy</b>", "topn": 2}}]}),
    (f"Still thinking {CALLS}{call('get_time')}{CALLS_END}", None, {
        "reasoning_content": "Still thinking", "content": None, "tool_calls": [TIME]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_call_with_a_bare_token_is_text() -> None:
    """The unsuffixed tokens are not this checkpoint's: they stay content."""
    text = "<tool_calls><tool_call>get_time</tool_call></tool_calls>"
    session = FORMAT.parser(TOOLS, generation_prompt="")
    session.feed(text)
    session.finish()
    assert session.message.tool_calls == ()
    assert session.message.content == text


def test_a_hy3_call_is_no_call() -> None:
    """Hy v4 dropped `<tool_sep>`: a name never runs into a separator token, so a Hy3
    call has no head here and stays content, whole."""
    text = f"{CALLS}<tool_call{S}>get_time<tool_sep{S}></tool_call{S}>{CALLS_END}"
    session = FORMAT.parser(TOOLS, generation_prompt="")
    session.feed(text)
    session.finish()
    assert session.message.tool_calls == ()
    assert session.message.content == text
