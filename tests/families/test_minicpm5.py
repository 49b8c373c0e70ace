"""The `minicpm5` format, from the shapes of vLLM's minicpm5 tool parser tests, SGLang's
MiniCPM5Detector and the model's chat template (our own strings), one-shot and streamed
in every test."""

from __future__ import annotations

from peer_tools import TOOLS

from protocall.blocks.turns import ToolUse, Turn
from protocall.formats.minicpm5 import FORMAT
from protocall.testing import example_tests

PROMPT = "<|im_start|>assistant\n"


def call(name: str, **values: object) -> str:
    params = "".join(f'<param name="{k}">{v}</param>' for k, v in values.items())
    return f'<function name="{name}">{params}</function>'


def cdata(text: str) -> str:
    return f"<![CDATA[{text}]]>"


DALLAS = {"name": "get_current_weather",
          "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}  # fmt: skip
EXAMPLES = [
    ("How can I help you?<|im_end|>", PROMPT, {
        "reasoning_content": None, "content": "How can I help you?", "tool_calls": []}),
    (f"Intro before.\n{call('get_current_weather', city='Dallas', state='TX', unit='fahrenheit')}"
     "\nOutro after.", PROMPT, {
        "reasoning_content": None, "content": "Intro before.\n\nOutro after.",
        "tool_calls": [DALLAS]}),
    (call("web_search", query=cdata("a < b && c\nprint(d)"), topn=2) + "\n"
     + call("get_weather", location="上海", days=3) + "<|im_end|>", PROMPT, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "web_search", "arguments": {"query": "a < b && c\nprint(d)", "topn": 2}},
            {"name": "get_weather", "arguments": {"location": "上海", "days": 3}}]}),
    (f"<think>\nCheck the time.\n</think>\n\n{call('get_time', zone='UTC')}<|im_end|>", PROMPT, {
        "reasoning_content": "Check the time.", "content": None,
        "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}]}),
    (f"The zone first.\n</think>\n\n{call('get_time', zone=cdata('<UTC>'))}", PROMPT + "<think>\n",
     {"reasoning_content": "The zone first.", "content": None,
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "<UTC>"}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def read(text: str, chunk: int) -> tuple[list[tuple[str, object]], list[str]]:
    """The calls and error codes of `text` fed `chunk` characters at a time."""
    session = FORMAT.parser(TOOLS, generation_prompt=PROMPT)
    for at in range(0, len(text), chunk):
        session.feed(text[at : at + chunk])
    session.finish()
    message = session.message
    return [(c.name, c.arguments) for c in message.tool_calls], [e.code for e in message.errors]


def test_a_quoted_value_holds_the_markers_verbatim() -> None:
    """Inside `<![CDATA[…]]>` the tags are text, and so is a `]]>` that no `</param>`
    closing the value follows (the kit's verify refuses markers in arguments)."""
    value = '</param>]]>\n<param name="zone">]]></param>x'
    text = call("web_search", query=cdata(value), topn=1)
    for chunk in (len(text), 1, 3):
        assert read(text, chunk) == ([("web_search", {"query": value, "topn": 1})], [])


def test_an_unclosed_quote_is_a_cut_call() -> None:
    session = FORMAT.parser(TOOLS, generation_prompt=PROMPT)
    session.feed(call("get_time", zone="<![CDATA[UTC"))
    session.finish()
    assert session.message.tool_calls == ()
    assert [error.code for error in session.message.errors] == ["truncated"]
    assert "expected `]]>`" in session.message.errors[0].message


def test_the_template_s_quoting_is_the_renderer_s() -> None:
    """A string holding `<`, `&` or a newline is written in CDATA, any other raw."""
    values = {"query": "a&b", "topn": 3}
    written = FORMAT.render(Turn(None, (ToolUse("web_search", values),)), None)
    assert written == call("web_search", query=cdata("a&b"), topn=3) + "<|im_end|>"
