"""A list of calls with one invalid member (the shapes of vLLM's and SGLang's unit tests
that skip a bad call and keep its siblings; our own strings): each call is judged on its
own, the bad one a `malformed` error keeping its raw text, the good ones complete when the
list closes. Every case one-shot, in every chunking `verify` makes and in drawn ones."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peer_tools import TOOLS

from protocall.formats import get
from protocall.testing import verify
from protocall.testing.chunks import chunkings

TIME = '{"name": "get_time", "arguments": {"zone": "UTC"}}'
WEATHER = '{"name": "get_weather", "arguments": {"location": "Oslo", "days": 2}}'

JSON = "[{TIME}, {BAD}, {WEATHER}]"
PYTHON = '[get_time(zone="UTC"), {BAD}, get_weather(location="Oslo", days=2)]'
LINES = 'get_time(zone="UTC")\n{BAD}\nget_weather(location="Oslo", days=2)'

CASES = [
    ("nemotron", f"<TOOLCALL>{JSON}</TOOLCALL>", '{"name": "get_time", "argumentz": {}}'),
    ("nemotron", f"<TOOLCALL>{JSON}</TOOLCALL>", '{"name": "get_time", "arguments": {"z": UTC}}'),
    ("nemotron", f"<TOOLCALL>{JSON}</TOOLCALL>", '{"name": 3, "arguments": {}}'),
    ("jamba", f" <tool_calls>{JSON}</tool_calls>", '{"arguments": {}}'),
    ("hunyuan-a13b", f"<tool_calls>{JSON}</tool_calls>", '{"name": "get_time", "name": "x"}'),
    ("apriel", f"<tool_calls>{JSON}</tool_calls>", '{"name": "get_time", "arguments": []}'),
    ("xlam", JSON, '{"name": "get_time", "arguments": {"zone": "UTC"} "x": 1}'),
    ("mistral", f"[TOOL_CALLS] {JSON}", '{"nme": "get_time", "arguments": {}}'),
    ("granite", f"<|tool_call|>{JSON}", '{"name": "get_time", "arguments": {"zone": "a" "b"}}'),
    ("pythonic", PYTHON, 'get_time("UTC")'),
    ("pythonic", PYTHON, 'get_time(zone=float("nan"))'),
    ("pythonic", PYTHON, "get_time(zone=1e999)"),
    ("llama-4", f"<|python_start|>{PYTHON}<|python_end|>", "get_time(zone=utc)"),
    ("lfm2", f"<|tool_call_start|>{PYTHON}<|tool_call_end|>", "get_time(zone={'a', [1]})"),
    ("olmo-3", f"<function_calls>{LINES}</function_calls>", "get_time(zone=f'{x}')"),
]


def case(index: int) -> tuple[str, str, str]:
    name, shape, bad = CASES[index]
    text = shape.replace("{TIME}", TIME).replace("{WEATHER}", WEATHER).replace("{BAD}", bad)
    return name, text, bad


@pytest.mark.parametrize("index", range(len(CASES)))
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_one_invalid_member_is_an_error_of_its_own_and_its_siblings_complete(
    index: int, data: st.DataObject
) -> None:
    name, text, bad = case(index)
    fmt = get(name)
    drawn = data.draw(chunkings(text, fmt.reserved), label="chunks")
    message = verify(fmt, text, None, tools=TOOLS, chunkings=[drawn])
    assert [call.name for call in message.tool_calls] == ["get_time", "get_weather"]
    assert [(error.code, error.raw) for error in message.errors] == [("malformed", bad)]
    assert message.content == bad


def test_a_member_still_open_at_the_end_is_the_lists_truncation() -> None:
    text = f'<TOOLCALL>[{TIME}, {{"name": "get_weather", "argumentz": {{"location": "Os'
    message = verify(get("nemotron"), text, None, tools=TOOLS)
    assert message.tool_calls == ()
    assert [(error.code, error.raw) for error in message.errors] == [("truncated", text)]


def test_a_member_whose_quotes_do_not_pair_fails_the_list_up_to_its_end() -> None:
    """The member's rest is scanned to the end of the output, far past where the list
    resyncs (the text kept all the while): the error still ends at the section's end."""
    listed = f'<TOOLCALL>[{TIME}, {{"name": get_time", "arguments": {{}}}}]</TOOLCALL>'
    text = listed + "after " * 120 + "<SPECIAL_12>"
    message = verify(get("nemotron"), text, None, tools=TOOLS)
    assert [(error.code, error.raw) for error in message.errors] == [("malformed", listed)]
    assert message.content == listed + ("after " * 120).strip()
