"""The `llama-3` format (FORMATS.md §6.6): Llama 3.1 / 3.2 / 3.3 bare JSON call objects."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocall import formats
from protocall.events import ContentDelta, ToolCallStart
from protocall.message import Message
from protocall.testing import stream, verify

LLAMA = formats.get("llama-3")
TAG, EOT, EOM = "<|python_tag|>", "<|eot_id|>", "<|eom_id|>"
PROMPT = "<|start_header_id|>assistant<|end_header_id|>\n\n"


def function(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


STRING = {"type": "string"}
TOOLS = [
    function("get_weather", location=STRING, days={"type": "integer"}),
    function("get_weather_forecast", location=STRING),
    function("get_time", zone=STRING),
    function("write_file", path=STRING, content=STRING),
    function("set_config", options={"type": "object"}),
]


def call(name: str, arguments: dict[str, Any], key: str = "parameters") -> str:
    return json.dumps({"name": name, key: arguments}, ensure_ascii=False)


def parse(text: str, prompt: str | None = PROMPT, tools: Any = TOOLS) -> Message:
    """`text` parsed every way (`verify`: one chunk, per character, in 3-character and
    random chunkings, each call whole), every property of the testing kit holding."""
    return verify(LLAMA, text, prompt, tools=tools)


def calls_of(message: Message) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]


# -- FORMATS.md §6.16 (6.6) --------------------------------------------------------------------

EXAMPLE = '{"name": "get_weather", "parameters": {"location": "Paris"}}<|eot_id|>'
EXPECTED = {
    "reasoning_content": None,
    "content": None,
    "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
}
EXAMPLES = [(EXAMPLE, None, EXPECTED)]  # with the generic tests in tests/test_families


def test_formats_md_example() -> None:
    message = parse(EXAMPLE)
    assert message.to_dict() == EXPECTED and message.errors == ()
    assert message.tool_calls[0].arguments_json == '{"location": "Paris"}'


def test_arguments_stream_before_the_object_closes() -> None:
    session = LLAMA.parser(TOOLS, seed=0)
    events = session.feed('{"name": "write_file", "parameters": {"path": "a.py", "content": "x')
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["write_file"]
    session.feed('"}}')
    session.finish()
    assert calls_of(session.message)[0]["arguments"] == {"path": "a.py", "content": "x"}


# -- layouts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        TAG + call("get_time", {"zone": "UTC"}) + EOM,
        call("get_time", {"zone": "UTC"}, key="arguments") + EOT,
        '{"type": "function", "name": "get_time", "parameters": {"zone": "UTC"}}',
        '{"parameters": {"zone": "UTC"}, "name": "get_time"}',
        '{"name": "get_time", "description": "x", "parameters": {"zone": "UTC"}, "id": 7}',
        '\n { "name" : "get_time" , "parameters" : { "zone" : "UTC" } } \n' + EOT,
    ],
)
def test_accepted_layouts(text: str) -> None:
    message = parse(text)
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert message.content is None and message.errors == ()


def test_several_calls_separated_by_semicolons() -> None:
    text = (TAG + call("get_time", {"zone": "UTC"}) + "; " + call("get_weather", {"days": 1})
            + ";" + call("get_time", {"zone": "Asia/Tokyo"}) + EOT)  # fmt: skip
    message = parse(text)
    assert [c.name for c in message.tool_calls] == ["get_time", "get_weather", "get_time"]
    assert message.content is None


def test_content_around_call_objects() -> None:
    text = "Checking. " + call("get_time", {"zone": "UTC"}) + "; done" + EOT
    message = parse(text)
    assert message.content == "Checking. ; done"
    assert [c.name for c in message.tool_calls] == ["get_time"]


@pytest.mark.parametrize(
    "prose",
    [
        '{"answer": 42}',
        'As JSON: {"name": "Alice", "age": 3} and {"a": [1, {"name": "get_time"}]}.',
        '{"name": "get_time"}',
        "Braces { and } and {x}.",
        "{",
    ],
)
def test_objects_that_are_no_call_stay_content(prose: str) -> None:
    message = parse(prose)
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- names and values ------------------------------------------------------------------------------


def test_undeclared_bare_object_stays_content_and_earlier_calls_are_kept() -> None:
    rockets = call("launch_rockets", {"count": 3})
    assert parse(rockets + EOT).content == rockets
    message = parse(call("get_time", {"zone": "UTC"}) + "; " + rockets)
    assert [c.name for c in message.tool_calls] == ["get_time"]
    assert message.content == "; " + rockets


def test_undeclared_name_after_the_python_tag_is_reported() -> None:
    message = parse(TAG + call("launch_rockets", {"count": 3}) + EOM)
    assert message.tool_calls == () and [e.code for e in message.errors] == ["unknown_tool"]


def test_any_name_makes_a_call_when_no_tools_are_declared() -> None:
    message = parse(call("anything", {"a": 1}), tools=None)
    assert calls_of(message) == [{"name": "anything", "arguments": {"a": 1}}]


def test_typed_values_keep_their_json_types() -> None:
    arguments = {
        "options": {"a": [1, "two", [3.0]], "b": {"c": False}}, "n": 12345678901234567890,
        "ratio": -1.5e3, "flag": True, "none": None, "zone": "42", "code": "null",
    }  # fmt: skip
    (done,) = parse(call("set_config", arguments), tools=None).tool_calls
    assert done.arguments == arguments and json.loads(done.arguments_json) == arguments


# -- streaming hold-back ---------------------------------------------------------------------------


def content(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


def test_braces_are_held_back_only_until_decided() -> None:
    session = LLAMA.parser(TOOLS, seed=0)
    assert content(session.feed("Use {x")) == "Use {x"
    assert session.feed(' {"name": "get_time"') == []  # a call, unless no arguments key follows
    assert content(session.feed(", 3}")) == ' {"name": "get_time", 3}'


# -- truncation and errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ('{"name": "get_weather", "parameters": {"location": "Par', None),
        (TAG + '{"name": "get_wea', None),
        (call("get_time", {"zone": "UTC"}) + '; {"name": "get_weather", "param', '; {"name'),
    ],
)
def test_call_cut_off_after_its_proof_is_a_truncated_error(text: str, raw: str | None) -> None:
    message = stream(LLAMA, [text], TOOLS).message
    (error,) = message.errors
    assert error.code == "truncated" and message.content is None
    assert text.endswith(error.raw) and (raw is None or error.raw.startswith(raw))


def test_object_cut_off_before_its_proof_is_content() -> None:
    assert stream(LLAMA, ['Hi {"name": "get_wea'], TOOLS).message.content == 'Hi {"name": "get_wea'


def test_malformed_call_is_reported_and_passed_through() -> None:
    bad = '{"name": "get_time", "parameters": [1]}'
    message = parse(bad + EOT)
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == bad
    assert message.content == bad and message.tool_calls == ()


@pytest.mark.parametrize("length", [257, 300, 20_000])
def test_a_name_too_long_is_a_malformed_call_when_no_tools_are_declared(length: int) -> None:
    """As after a marker, whatever the name's length (not only within the lookahead)."""
    long = call("a" * length, {}) + "; more"
    text = "Hi " + long + EOT
    if length < 1000:
        message = parse(text, tools=None)
    else:  # past the lookahead (it was content there): one-shot and in deltas alike
        runs = [
            stream(LLAMA, [text[i : i + size] for i in range(0, len(text), size)], None)
            for size in (len(text), 4)
        ]
        assert runs[0].merged_events == runs[1].merged_events
        message = runs[0].message
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == long
    assert error.message.endswith("expected a tool name of at most 256 characters")
    assert message.content == "Hi " + long and message.tool_calls == ()
    declared = parse("Hi " + long + EOT)  # no declared tool has such a name: content
    assert declared.content == "Hi " + long and declared.errors == ()


def test_a_name_within_the_limit_then_no_arguments_stays_content() -> None:
    prose = call("a" * 256, {}).replace('"parameters"', '"age"')
    assert parse(prose, tools=None).content == prose


# -- the testing kit -------------------------------------------------------------------------------


def test_generation_prompt_starts_in_content() -> None:
    assert LLAMA.start_state(PROMPT) is None
    assert parse("Hi." + EOT, PROMPT).content == "Hi."
