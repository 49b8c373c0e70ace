"""Python-literal arguments in the four families that write them (pythonic, Llama 4, LFM2,
Olmo 3), in the shapes of vLLM's and SGLang's pythonic tests (our own strings): triple-quoted
and multi-line strings, nested quotes, escapes and NUL, sets; a number that overflows to
infinity rejects its call only. Every case one-shot, in every chunking `verify` makes and
in drawn ones."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peer_tools import TOOLS as PEER_TOOLS
from peer_tools import tool

from protocall.formats import get
from protocall.testing import example_tests, verify
from protocall.testing.chunks import chunkings

TOOLS = [*PEER_TOOLS, tool("write", text={"type": "string"}, tags={"type": "array"})]
WRAPPED = {
    "pythonic": ("[{}]", None),
    "llama-4": ("<|python_start|>[{}]<|python_end|>", None),
    "lfm2": ("<|tool_call_start|>[{}]<|tool_call_end|>", None),
    "olmo-3": ("<function_calls>{}</function_calls>", None),
}
LITERALS = [
    ("text='''first line\nsecond \"line\"'''", {"text": 'first line\nsecond "line"'}),
    ('text="""it\'s "quoted" \'\'here\'\'"""', {"text": "it's \"quoted\" ''here''"}),
    ("text='one \\\ntwo'", {"text": "one two"}),
    ("text='say \"hi\" and \\'bye\\''", {"text": "say \"hi\" and 'bye'"}),
    ("text='nul\\x00 \\0 tab\\t \\u00e9 \\N{BULLET} \\\\'", {"text": "nul\x00 \x00 tab\t é • \\"}),
    ("text=r'C:\\path\\n'", {"text": "C:\\path\\n"}),
    ("tags={'b', 'a', 'b'}", {"tags": ["b", "a"]}),
    ("tags={1, (2, 'x')}", {"tags": [1, [2, "x"]]}),
]


def written(name: str, arguments: str) -> str:
    return WRAPPED[name][0].format(f"write({arguments})")


EXAMPLES = {
    name: [
        (written(name, arguments), None, {"content": None, "reasoning_content": None,
                                          "tool_calls": [{"name": "write", "arguments": want}]})
        for arguments, want in LITERALS
    ]
    for name in WRAPPED
}  # fmt: skip

test_pythonic_literals = example_tests(get("pythonic"), EXAMPLES["pythonic"], tools=TOOLS)
test_llama_4_literals = example_tests(get("llama-4"), EXAMPLES["llama-4"], tools=TOOLS)
test_lfm2_literals = example_tests(get("lfm2"), EXAMPLES["lfm2"], tools=TOOLS)
test_olmo_3_literals = example_tests(get("olmo-3"), EXAMPLES["olmo-3"], tools=TOOLS)


def two_calls(name: str, bad: str) -> str:
    calls = [f"write({bad})", 'get_time(zone="UTC")']
    joined = "\n".join(calls) if name == "olmo-3" else ", ".join(calls)
    return WRAPPED[name][0].format(joined)


@pytest.mark.parametrize("name", WRAPPED)
@pytest.mark.parametrize("bad", ["tags=[1e999]", "text=-1E400", "tags={[1]}", "text='a\x00'"])
@settings(max_examples=2, deadline=None)
@given(data=st.data())
def test_a_value_python_or_json_refuses_rejects_its_call_only(
    name: str, bad: str, data: st.DataObject
) -> None:
    text = two_calls(name, bad)
    fmt = get(name)
    message = verify(fmt, text, None, tools=TOOLS, chunkings=[data.draw(chunkings(text))])
    assert [call.name for call in message.tool_calls] == ["get_time"]
    errors: list[Any] = [(error.code, error.raw) for error in message.errors]
    assert errors == [("malformed", f"write({bad})")]
