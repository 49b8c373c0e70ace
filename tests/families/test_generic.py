"""The `generic` format (llama.cpp's COMMON_CHAT_FORMAT_GENERIC), with the strings of
llama.cpp's tests/test-chat.cpp (ggml-org/llama.cpp, its generic parser's test: the
`response` answer, the `tool_calls` list with an id and the template fallback's
`"content": ""`, the cut-off `tool_call` objects), one-shot and streamed in every test."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.events import ContentDelta, ToolCallEnd, ToolCallStart
from protocall.formats.generic import FORMAT, SPEC
from protocall.spec import Call, JsonTurn, Section, from_json, to_json
from protocall.spec.codecs import NameKey
from protocall.testing import check_format, example_tests, verify


def tool(called: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": called, "parameters": parameters}}


TOOLS = [
    tool("special_function", arg1={"type": "integer"}),
    tool("puppeteer_screenshot", name={"type": "string"}),
    tool("get_time", zone={"type": "string"}),
    tool("get_weather", location={"type": "string"}, days={"type": "integer"}),
]
SPECIAL = {"name": "special_function", "arguments": {"arg1": 1}}
LISTED = (  # llama.cpp's `test_templates` string: a call list, then the fallback's content
    "{\n"
    '  "tool_calls": [\n'
    "    {\n"
    '      "name": "special_function",\n'
    '      "arguments": {\n'
    '        "arg1": 1\n'
    "      },\n"
    '      "id": "123456789"\n'
    "    }\n"
    "  ],\n"
    '  "content": ""\n'
    "}"
)
EXAMPLES = [
    ('{\n  "response": "Hello, world!\\nWhat\'s up?"\n}', None, {
        "reasoning_content": None, "content": "Hello, world!\nWhat's up?", "tool_calls": []}),
    (LISTED, None, {"reasoning_content": None, "content": None, "tool_calls": [SPECIAL]}),
    ('{"tool_call": {"name": "special_function", "arguments": {"arg1": 1}}}', None, {
        "reasoning_content": None, "content": None, "tool_calls": [SPECIAL]}),
    ('{"tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}, "id": "call0001"}, '
     '{"arguments": {"location": "Oslo"}, "name": "get_weather", "id": "call0002"}]}', None, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}},
            {"name": "get_weather", "arguments": {"location": "Oslo"}}]}),
    ('{"response": "Checking \\u00e9t\\u00e9 \\ud83c\\udf1e", "tool_calls": []}', None, {
        "reasoning_content": None, "content": "Checking été 🌞", "tool_calls": []}),
    ("Hello, world!\nWhat's up?", None, {  # a model that ignored the schema: content
        "reasoning_content": None, "content": "Hello, world!\nWhat's up?", "tool_calls": []}),
]  # fmt: skip


test_llama_cpp_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=5)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


@pytest.mark.parametrize(
    "text",
    [
        '{"tool_call": {"name": "puppeteer_screenshot", "arguments": {"name": '
        '"servethehome_homepage",',
        '{ "tool_call" : { "name" : "special_function"',
        '{ "tool_call" : { "name" : "special_function", "arguments" : { "arg',
        '{ "tool_call" : { "name" : "t',
        '{"tool_calls": [{"name": "special_function", "arguments": {"arg1": 1}}]',
        '{"tool_ca',
    ],
)
def test_a_cut_off_object_is_one_truncated_error_and_no_call(text: str) -> None:
    """llama.cpp's partial strings (it shows a partial call): here no call completes, and
    the object's raw text is the error's, not content."""
    message = verify(FORMAT, text, tools=TOOLS)
    assert message.tool_calls == () and message.content is None
    [error] = message.errors
    assert (error.code, error.raw) == ("truncated", text)


def feed(text: str) -> list[object]:
    session = FORMAT.parser(TOOLS, seed=0)
    return [event for character in text for event in session.feed(character)]


def test_the_answer_streams_as_it_arrives() -> None:
    events = feed('{"response": "Hello,\\n wor')
    assert "".join(e.text for e in events if isinstance(e, ContentDelta)) == "Hello,\n wor"


def test_calls_complete_when_the_object_closes() -> None:
    listed = '{"tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}]'
    events = feed(listed)
    assert [type(e) for e in events if isinstance(e, ToolCallStart | ToolCallEnd)] == [
        ToolCallStart
    ]
    assert any(isinstance(e, ToolCallEnd) for e in feed(listed + "\n}"))


@pytest.mark.parametrize(
    ("text", "calls", "codes"),
    [
        (  # a member that is no call: judged on its own
            '{"tool_calls": [{"name": "special_function", "argumentz": {}}, '
            '{"name": "get_time", "arguments": {"zone": "UTC"}}]}',
            ["get_time"],
            ["malformed"],
        ),
        (  # a repeated key breaks the object: no call
            '{"tool_calls": [{"name": "get_time", "arguments": {}}], "tool_calls": []}',
            [],
            ["malformed"],
        ),
        ('{"tool_calls": {"name": "get_time", "arguments": {}}}', [], ["malformed"]),
        ('{"response": "a\\qb"}', [], ["malformed"]),
    ],
)
def test_a_malformed_object_keeps_its_raw_text_in_the_error(
    text: str, calls: list[str], codes: list[str]
) -> None:
    message = verify(FORMAT, text, tools=TOOLS)
    assert [call.name for call in message.tool_calls] == calls
    assert [error.code for error in message.errors] == codes
    assert all(error.raw in text for error in message.errors)
    assert message.content in (None, "a")  # streamed before the break; the JSON never


def test_an_object_that_is_no_turn_is_content() -> None:
    text = '{"answer": 42} and {"tool_calls": []}'
    assert verify(FORMAT, text, tools=TOOLS).content == text


def test_a_response_of_another_json_value_is_its_json_text() -> None:
    message = verify(FORMAT, '{"response": {"temperature": 21}}', tools=TOOLS)
    assert message.content == '{"temperature": 21}'


def test_the_model_id_is_kept_where_it_comes_before_the_arguments() -> None:
    """An id written after the arguments (llama.cpp's schema order) comes after the call
    was announced: the call then has an id of the session's."""
    first = '{"tool_calls": [{"id": "call0001", "name": "get_time", "arguments": {}}]}'
    assert verify(FORMAT, first, tools=TOOLS).tool_calls[0].id == "call0001"
    last = '{"tool_calls": [{"name": "get_time", "arguments": {}, "id": "call0001"}]}'
    assert verify(FORMAT, last, tools=TOOLS).tool_calls[0].model_id is None


def test_the_spec_round_trips_as_data() -> None:
    assert from_json(to_json(SPEC)) == SPEC


@pytest.mark.parametrize(
    "make",
    [
        lambda: JsonTurn(content="x", calls="x"),
        lambda: build(replace(SPEC, call=Call("{call}", NameKey()))),
        lambda: build(replace(SPEC, section=Section(("<a>",), ()))),
        lambda: build(replace(SPEC, dropped=("<answer>",))),
        lambda: build(replace(SPEC, content_lead=("A:",))),
    ],
)
def test_a_json_turn_refuses_what_it_cannot_read(make: object) -> None:
    with pytest.raises(UsageError):
        make()  # type: ignore[operator]


def test_a_json_turn_with_a_stop_reads_text_after_the_object_as_content() -> None:
    """A `JsonTurn` spec of a template whose turn ends with a stop: the kit's properties
    hold, the stop is no content, text after the object is."""
    chatml = build(replace(SPEC, name="generic-chatml", stops=("<|im_end|>",)))
    assert check_format(chatml, max_examples=10, seed=0).ok
    message = verify(chatml, '{"response": "Hi"} and more<|im_end|>', tools=TOOLS)
    assert message.content == "Hi and more"
    broken = verify(chatml, '{"response": "Hi", 3 <|im_end|>', tools=TOOLS)
    assert [(e.code, e.raw) for e in broken.errors] == [("malformed", '{"response": "Hi", 3 ')]
