"""Call objects in the JSON-array families (`blocks.call_object`): a misspelled arguments
key makes the call malformed, never a call without arguments; OpenAI-shaped objects (the
name and arguments under `function`) read, written and printed as data; one-shot and
streamed alike."""

from __future__ import annotations

import pytest

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.compile.factory import build
from protocall.spec import Call, Section, Spec, from_json, to_json
from protocall.spec.codecs import NameAndArguments
from protocall.testing import verify

TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]
ARRAYS = {
    "granite": ('<|tool_call|>[{"name": "f", "ARGS": {"q": "x"}}]', "<|end_of_text|>"),
    "nemotron": ('<TOOLCALL>[{"name": "f", "ARGS": {"q": "x"}}]</TOOLCALL>', "<|eot_id|>"),
    "cohere": (
        '<|START_ACTION|>[{"tool_name": "f", "ARGS": {"q": "x"}}]<|END_ACTION|>',
        "<|END_OF_TURN_TOKEN|>",
    ),
    "mistral": ('[TOOL_CALLS] [{"name": "f", "ARGS": {"q": "x"}}]', "</s>"),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
@pytest.mark.parametrize("key", ["arguents", "params", "argument"])
def test_a_misspelled_arguments_key_is_malformed(name: str, key: str) -> None:
    fmt = formats.get(name)
    call, stop = ARRAYS[name]
    text = call.replace("ARGS", key) + stop
    message = verify(fmt, text, fmt.prompt_for(None), tools=TOOLS)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "malformed"
    assert f'member, not `"{key}"`' in error.message and "expected a `" in error.message


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_a_call_without_arguments_has_none(name: str) -> None:
    fmt = formats.get(name)
    call, stop = ARRAYS[name]
    text = call.replace(', "ARGS": {"q": "x"}', "") + stop
    message = verify(fmt, text, fmt.prompt_for(None), tools=TOOLS)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", {})]
    assert message.errors == ()


# -- OpenAI-shaped call objects: name and arguments in an object of their own ------------------

OPENAI = NameAndArguments(id="id", within="function", constants=(("type", "function"),))
OPENAI_SPECS = {
    "array": Spec(
        "openai-array",
        "OpenAI-shaped call objects in a JSON array",
        Call("{call}", OPENAI, between=", "),
        stops=("<|end|>",),
        turn=None,
        section=Section(("<calls>",), ("</calls>",), array=True),
    ),
    "tagged": Spec(
        "openai-tagged",
        "an OpenAI-shaped call object in tags",
        Call("<call>{call}</call>", OPENAI),
        stops=("<|end|>",),
        turn=None,
    ),
}
WEATHER = [
    {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]


def test_openai_shaped_objects_in_an_array_are_read_in_any_member_order() -> None:
    fmt = build(OPENAI_SPECS["array"])
    text = (
        'Sure.<calls>[{"id": "c1", "type": "function", "function": {"name": "get_weather", '
        '"arguments": {"city": "Paris"}}}, {"extra": [1], "id": "c2", "function": {"arguments": '
        '"{\\"city\\": \\"Oslo\\"}", "name": "get_weather"}}, {"function": {"name": '
        '"get_weather"}, "id": "late"}]</calls><|end|>'
    )
    expected = {
        "reasoning_content": None,
        "content": "Sure.",
        "tool_calls": [
            {"name": "get_weather", "arguments": {"city": "Paris"}},
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
            {"name": "get_weather", "arguments": {}},
        ],
    }
    message = verify(fmt, text, tools=WEATHER, expected=expected)
    # an id after the call was announced is skipped, as in any call object
    assert [call.model_id for call in message.tool_calls] == ["c1", "c2", None]


def test_an_openai_shaped_object_without_its_function_member_is_malformed() -> None:
    fmt = build(OPENAI_SPECS["array"])
    text = '<calls>[{"id": "c1", "type": "function", "name": "get_weather"}]</calls><|end|>'
    message = verify(fmt, text, tools=WEATHER)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "malformed" and 'a `"function"` member' in error.message


def test_an_openai_shaped_object_in_tags_is_read_in_the_written_order() -> None:
    fmt = build(OPENAI_SPECS["tagged"])
    text = (
        '<call>{"id": "c1", "type": "function", "function": {"name": "get_weather", '
        '"arguments": {"city": "Paris"}}}</call><call>{"function": {"name": "get_weather", '
        '"arguments": {}}}</call><|end|>'
    )
    expected = {
        "reasoning_content": None,
        "content": None,
        "tool_calls": [
            {"name": "get_weather", "arguments": {"city": "Paris"}},
            {"name": "get_weather", "arguments": {}},
        ],
    }
    message = verify(fmt, text, tools=WEATHER, expected=expected)
    assert [call.model_id for call in message.tool_calls] == ["c1", None]


@pytest.mark.parametrize("shape", sorted(OPENAI_SPECS))
def test_openai_shaped_calls_are_written_as_read_and_print_as_data(shape: str) -> None:
    spec = OPENAI_SPECS[shape]
    assert from_json(to_json(spec)) == spec
    fmt = build(spec)
    turn = Turn(None, ("Hi", ToolUse("get_weather", {"city": "Paris"}, "c7")))
    text = fmt.render(turn, None)
    assert '{"id": "c7", "type": "function", "function": {"name": "get_weather", ' in text
    expected = {
        "reasoning_content": None,
        "content": "Hi",
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    }
    verify(fmt, text, tools=WEATHER, expected=expected)
