"""The `nemotron` format (FORMATS.md §6.14): Nemotron Nano v2 and Super-49B-v1.5."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocall import formats
from protocall.message import Message
from protocall.testing import stream, verify

NEMOTRON = formats.get("nemotron")
OPEN, CLOSE, EOT = "<TOOLCALL>", "</TOOLCALL>", "<SPECIAL_12>"
NANO = "<SPECIAL_11>Assistant\n<think>\n\n"
NANO_OFF = "<SPECIAL_11>Assistant\n<think></think>"
SUPER = "<|start_header_id|>assistant<|end_header_id|>\n\n"
SUPER_OFF = SUPER + "<think>\n\n</think>\n\n"


def function(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


STRING = {"type": "string"}
TOOLS = [
    function("get_weather", location=STRING, days={"type": "integer"}),
    function("get_weather_forecast", location=STRING),
    function("get_time", zone=STRING),
    function("write_file", path=STRING, content=STRING),
]


def obj(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def calls(*objects: str) -> str:
    return OPEN + "[" + ", ".join(objects) + "]" + CLOSE


def parse(text: str, prompt: str | None = None, tools: Any = TOOLS) -> Message:
    """`text` parsed every way (`verify`: one chunk, per character, in 3-character and
    random chunkings, each call whole), every property of the testing kit holding."""
    return verify(NEMOTRON, text, prompt, tools=tools)


def calls_of(message: Message) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]


# -- FORMATS.md §6.16 (6.14) -------------------------------------------------------------------

EXAMPLE = (
    '<think>\nNeed weather.\n</think>\n<TOOLCALL>[{"name": "get_weather", "arguments": '
    '{"location": "Paris"}}]</TOOLCALL>'
)
EXPECTED = {
    "reasoning_content": "Need weather.",
    "content": None,
    "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
}
EXAMPLES = [(EXAMPLE, None, EXPECTED)]  # with the generic tests in tests/test_families


def test_formats_md_example() -> None:
    message = parse(EXAMPLE, SUPER)
    assert message.to_dict() == EXPECTED and message.errors == ()


# -- prompts and reasoning -------------------------------------------------------------------------


def test_nano_v2_prompt_pre_opens_reasoning() -> None:
    text = "Need weather.\n</think>\n\n" + calls(obj("get_weather", {"location": "Paris"})) + EOT
    message = parse(text, NANO)
    assert message.to_dict() == EXPECTED


@pytest.mark.parametrize("prompt", [NANO_OFF, SUPER, SUPER_OFF])
def test_prompts_without_an_open_block_start_in_content(prompt: str) -> None:
    assert NEMOTRON.start_state(prompt) is None
    message = parse("Paris is sunny." + EOT, prompt)
    assert (message.reasoning_content, message.content) == (None, "Paris is sunny.")


@pytest.mark.parametrize(("prefix", "prompt"), [("", NANO), ("<think>", SUPER)])
def test_call_ends_an_unclosed_reasoning_block(prefix: str, prompt: str) -> None:
    text = prefix + "Need weather.\n" + calls(obj("get_weather", {"location": "Paris"})) + EOT
    message = parse(text, prompt)
    assert message.to_dict() == EXPECTED


def test_opener_quoted_in_reasoning_stays_reasoning() -> None:
    message = parse("<think>I would write <TOOLCALL>[ here.</think>Done.<|eot_id|>", SUPER)
    assert message.reasoning_content == "I would write <TOOLCALL>[ here."
    assert message.content == "Done." and message.tool_calls == ()


def test_truncated_reasoning_is_kept() -> None:
    message = parse("Still thinking about", NANO)
    assert message.reasoning_content == "Still thinking about" and message.errors == ()


# -- calls -----------------------------------------------------------------------------------------


def test_parallel_calls_content_between_and_sections() -> None:
    first = calls(obj("get_time", {"zone": "UTC"}), obj("get_weather", {"days": 1}))
    text = "Sure.\n\n" + first + " Then " + calls(obj("get_weather_forecast", {})) + EOT
    message = parse(text)
    assert message.content == "Sure.\n\n Then"
    assert [c.name for c in message.tool_calls] == ["get_time", "get_weather",
                                                    "get_weather_forecast"]  # fmt: skip


def test_a_list_without_its_bracket_is_malformed_and_calls_nothing() -> None:
    text = OPEN + "[" + obj("get_time", {"zone": "UTC"}) + EOT
    message = parse(text)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == text[: -len(EOT)]


def test_undeclared_tool_is_reported_and_the_other_calls_kept() -> None:
    message = parse(calls(obj("get_time", {"zone": "UTC"}), obj("launch_rockets", {"n": 3})))
    assert [c.name for c in message.tool_calls] == ["get_time"]
    assert [e.code for e in message.errors] == ["unknown_tool"]


def test_typed_values_keep_their_json_types() -> None:
    arguments = {"n": 12345678901234567890, "x": -1.5e3, "b": True, "z": None,
                 "list": [1, "two", [3.0]], "o": {"a": {"b": False}}, "s": "null"}  # fmt: skip
    (done,) = parse(calls(obj("set_config", arguments)), tools=None).tool_calls
    assert done.arguments == arguments and json.loads(done.arguments_json) == arguments


# -- truncation ------------------------------------------------------------------------------------


def test_cut_off_closing_tag_still_closes() -> None:
    text = calls(obj("get_time", {"zone": "UTC"}))[:-4]
    message = stream(NEMOTRON, [text], TOOLS).message
    assert [c.name for c in message.tool_calls] == ["get_time"]
    assert message.content is None and message.errors == ()


# -- the shapes of vLLM's nemotron_json tests (our own strings) ---------------------------------


def test_a_lone_call_object_without_the_list_is_a_call() -> None:
    text = "Checking." + OPEN + obj("get_time", {"zone": "UTC"}) + CLOSE + EOT
    message = parse(text, NANO_OFF)
    assert message.content == "Checking." and not message.errors
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]


def test_string_encoded_arguments_are_decoded_in_a_list_and_alone() -> None:
    encoded = json.dumps({"name": "get_time", "arguments": json.dumps({"zone": "UTC"})})
    for text in (calls(encoded, obj("get_weather", {"days": 2})), OPEN + encoded + CLOSE):
        message = parse(text, SUPER_OFF)
        assert calls_of(message)[0] == {"name": "get_time", "arguments": {"zone": "UTC"}}
        assert message.tool_calls[0].arguments_json == '{"zone": "UTC"}'
        assert not message.errors


def test_a_lone_object_cut_off_is_a_truncated_call() -> None:
    text = OPEN + '{"name": "get_time", "arguments": {"zone": "U'
    message = parse(text, NANO_OFF)
    assert message.tool_calls == ()
    assert [(e.code, e.raw) for e in message.errors] == [("truncated", text)]


def test_a_lone_object_that_is_no_call_is_an_error_of_its_own_text() -> None:
    bad = '{"name": "get_time", "argumentz": {}}'
    message = parse(OPEN + bad + CLOSE + "after", NANO_OFF)
    assert message.tool_calls == ()
    assert [(e.code, e.raw) for e in message.errors] == [("malformed", bad)]
    assert message.content == bad + "after"
