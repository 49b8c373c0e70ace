"""The `hy3` and `hy3-preview` formats, from the shapes of vLLM's hy_v3 tool parser tests
and SGLang's Hunyuan detector (our own strings), one-shot and streamed in every test: the
preview's bare tokens, and the released tokenizer's, each suffixed with `:opensource`."""

from __future__ import annotations

from typing import Any

from peer_tools import TOOLS as PEER_TOOLS
from peer_tools import tool

from protocall.formats import get
from protocall.spec.tags import TOKEN
from protocall.testing import example_tests

TOOLS = [*PEER_TOOLS, tool("get_current_date"), tool("search", tags={"type": "array"})]
WEATHER = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
DATE = {"name": "get_current_date", "arguments": {}}
OFF = "<｜hy_Assistant｜><think></think>"
ON = "<｜hy_Assistant｜><think>"


def calls(*tool_calls: dict[str, Any], content: str | None = None, reasoning: str | None = None):
    return {"content": content, "reasoning_content": reasoning, "tool_calls": list(tool_calls)}


PREVIEW_EXAMPLES = [
    ("The answer is 4.<｜hy_eos｜>", OFF, calls(content="The answer is 4.")),
    ("<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>", OFF,
     calls(DATE)),
    ("<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>"
     "<｜hy_eos｜>", OFF, calls(DATE)),
    ("<tool_calls><tool_call>get_weather<tool_sep><arg_key>location</arg_key><arg_value>"
     "Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call>"
     "</tool_calls>", OFF, calls(WEATHER)),
    ("Checking.<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>location</arg_key>\n"
     "<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
     "</tool_call>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>"
     "<｜hy_eos｜>", OFF, calls(WEATHER, DATE, content="Checking.")),
    ("Weather first.</think><tool_calls>\n<tool_call>search<tool_sep>\n<arg_key>tags"
     '</arg_key>\n<arg_value>["a", "b"]</arg_value>\n</tool_call>\n</tool_calls>', ON,
     calls({"name": "search", "arguments": {"tags": ["a", "b"]}}, reasoning="Weather first.")),
    ("Still thinking <tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n"
     "</tool_calls>", ON, calls(DATE, reasoning="Still thinking")),
]  # fmt: skip


def suffixed(text: str | None) -> str | None:
    """`text` as the released tokenizer writes it: every token suffixed."""
    return None if text is None else TOKEN.sub(lambda m: m[1] + ":opensource" + m[2], text)


HY3_EXAMPLES = [(suffixed(text), suffixed(prompt), want) for text, prompt, want in PREVIEW_EXAMPLES]

test_preview_peer_shapes = example_tests(
    get("hy3-preview"), PREVIEW_EXAMPLES, tools=TOOLS, max_examples=3
)
test_suffixed_peer_shapes = example_tests(get("hy3"), HY3_EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_the_released_format_writes_every_token_suffixed() -> None:
    fmt = get("hy3")
    assert fmt.prompts["reasoning"] == "<｜hy_Assistant:opensource｜><think:opensource>"
    assert "<tool_calls:opensource>" in fmt.reserved
    assert "<｜hy_eos:opensource｜>" in fmt.reserved
    assert not any(marker.endswith(("ll>", "ep>", "ey>", "ue>")) for marker in fmt.reserved)


def test_a_bare_token_is_text_to_the_suffixed_format() -> None:
    text = "<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>"
    session = get("hy3").parser(TOOLS)
    session.feed(text)
    session.finish()
    assert session.message.tool_calls == ()
    assert session.message.content == text
