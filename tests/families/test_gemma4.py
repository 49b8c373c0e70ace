"""The `gemma-4` format (FORMATS.md §6.15, details from peers), one-shot and streamed."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.events import ToolCallArgumentsDelta
from protocall.formats.gemma4 import FORMAT, render_value
from protocall.message import Message
from protocall.spec.codecs import MAX_DEPTH
from protocall.testing import (
    json_values,
    stream,
    verify,
)

Q = '<|"|>'
THOUGHT, END_THOUGHT = "<|channel>thought\n", "<channel|>"
CALL, END_CALL = "<|tool_call>call:", "<tool_call|>"
END_TURN, TOOL_RESPONSE, EOS = "<turn|>", "<|tool_response>", "<eos>"
PROMPT = "<|turn>model\n"
THINKING_OFF = PROMPT + THOUGHT + END_THOUGHT


def tool(name: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


STRING = {"type": "string"}
TOOLS = [
    tool("get_weather", location=STRING, days={"type": "integer"}, hourly={"type": "boolean"}),
    tool("get_weather_forecast", location=STRING),
    tool("get_time", zone=STRING),
    tool("write_file", path=STRING, content=STRING),
    tool("set_config", options={"type": "object"}),
]


def call(name: str, arguments: dict[str, object]) -> str:
    return f"{CALL}{name}{render_value(arguments)}{END_CALL}"


def verified(
    text: str,
    prompt: str | None = PROMPT,
    *,
    tools: list[dict[str, object]] | None = TOOLS,
    expected: dict[str, object] | None = None,
) -> Message:
    """Every property of the testing kit, one chunk against several, each call whole too."""
    return verify(FORMAT, text, prompt, tools=tools, expected=expected)


def names(message: Message) -> list[str]:
    return [c.name for c in message.tool_calls]


# -- examples (FORMATS.md gives markers only; these follow the chat template) ----------------

EXAMPLES = [
    ('<|channel>thought\nNeed weather.<channel|><|tool_call>call:get_weather{location:<|"|>Paris'
     '<|"|>}<tool_call|><|tool_response>', PROMPT,
     {"reasoning_content": "Need weather.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}),
    ("Let me check. " + call("get_weather", {"location": "Oslo", "days": 3, "hourly": True})
     + call("get_time", {"zone": "UTC"}) + TOOL_RESPONSE, THINKING_OFF,
     {"reasoning_content": None, "content": "Let me check.", "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Oslo", "days": 3, "hourly": True}},
         {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
    ("Short.<channel|>Paris is the capital.<turn|>", PROMPT + THOUGHT,
     {"reasoning_content": "Short.", "content": "Paris is the capital.", "tool_calls": []}),
]  # fmt: skip


def test_registered() -> None:
    assert formats.get("gemma-4") is FORMAT


# -- the argument syntax -----------------------------------------------------------------------


def test_values_of_every_kind_stream_as_json() -> None:
    text = (f"{CALL}set_config{{options:{{nested:{{a:[1,-2.5e3,{Q}x{Q},true,false,null]}},"
            f'{Q}odd key{Q}:{Q}v "q" \\ \n{Q},json:"esc\\u00e9",old:None,empty:[],e:{{}}}}}}'
            f"{END_CALL}")  # fmt: skip
    (result,) = verified(text).tool_calls
    assert result.arguments == {"options": {
        "nested": {"a": [1, -2.5e3, "x", True, False, None]}, "odd key": 'v "q" \\ \n',
        "json": "esc\u00e9", "old": None, "empty": [], "e": {}}}  # fmt: skip
    assert json.loads(result.arguments_json) == result.arguments


def test_values_nest_128_deep_and_deeper_is_malformed() -> None:
    deepest = {"options": {}}  # the arguments object is the first level
    inner = deepest["options"]
    for _ in range(MAX_DEPTH - 3):
        inner["a"] = inner = {}
    inner["b"] = [1]
    (result,) = verified(call("set_config", deepest)).tool_calls
    assert result.arguments == deepest
    inner["b"] = [[1]]  # one level more
    message = stream(FORMAT, [call("set_config", deepest)], TOOLS, PROMPT).message
    assert not message.tool_calls
    assert f"expected a value nested at most {MAX_DEPTH} deep" in message.errors[0].message


def test_whitespace_between_tokens_is_allowed() -> None:
    text = f"{CALL}get_weather {{ location : {Q}Rome{Q} ,\n days : 2 }}{END_CALL}"
    (result,) = verified(text).tool_calls
    assert result.arguments == {"location": "Rome", "days": 2}


def test_string_text_streams_as_it_arrives() -> None:
    opened = f"{CALL}write_file{{content:{Q}abc def<|ghi <|"
    session = FORMAT.parser(TOOLS, PROMPT)
    deltas = [e.text for char in opened for e in session.feed(char)
              if isinstance(e, ToolCallArgumentsDelta)]  # fmt: skip
    assert "".join(deltas) == '{"content": "abc def<|ghi '  # `<|` may begin the closing quote
    deltas = [e.text for e in session.feed('x"' + Q + "}") if isinstance(e, ToolCallArgumentsDelta)]
    assert "".join(deltas) == '<|x\\"' + '"}'  # the quote escaped, then the string closed


@given(st.dictionaries(st.sampled_from(["a", "b_2", "key.x", "odd key", "", "k:v", "a  b c",
                                        " lead", "trail ", "\x1f", "a\x1c"]),
                       json_values(FORMAT.reserved), max_size=4))  # fmt: skip
@settings(max_examples=40, deadline=None)
def test_rendered_values_parse_back(arguments: dict[str, object]) -> None:
    text = call("set_config", {"options": arguments})
    outcome = stream(FORMAT, list(text), None, PROMPT)
    (result,) = outcome.message.tool_calls
    assert result.arguments == {"options": arguments}
    assert json.loads(result.arguments_json) == result.arguments


def test_call_prefix_is_optional() -> None:
    (result,) = verified(f"<|tool_call>get_time{{zone:{Q}UTC{Q}}}{END_CALL}").tool_calls
    assert (result.name, result.arguments) == ("get_time", {"zone": "UTC"})


@pytest.mark.parametrize(
    "body",
    [
        f"{{zone:{Q}UTC{Q},zone:{Q}CET{Q}}}",  # a repeated key
        "{zone:UTC}",  # a bare string
        f"{{zone:{Q}UTC{Q},}}",  # a trailing comma
        "{zone:01}",  # not a JSON number
    ],
)
def test_malformed_arguments_are_an_error(body: str) -> None:
    message = verified(f"{CALL}get_time{body}{END_CALL} after")
    (error,) = message.errors
    assert message.tool_calls == () and error.code == "malformed"
    assert error.raw == f"{CALL}get_time{body}{END_CALL}"


# -- reasoning -----------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FORMAT.start_state(PROMPT) is None and FORMAT.start_state(None) is None
    assert FORMAT.start_state(PROMPT + THOUGHT) == "reasoning"
    assert FORMAT.start_state(THINKING_OFF) is None


@pytest.mark.parametrize("terminator", [END_THOUGHT, END_TURN, EOS, ""])
def test_reasoning_terminators(terminator: str) -> None:
    message = verified(THOUGHT + "Hmm. " + terminator + "x")
    assert message.reasoning_content == "Hmm." + ("" if terminator else " x")
    assert message.content == ("x" if terminator else None)


@pytest.mark.parametrize("opener", ["<|channel>", "<|channel>\n", "<|channel>thought "])
def test_thinking_without_the_thought_label(opener: str) -> None:
    message = verified(f"A {opener}Let me think.{END_THOUGHT}B{END_TURN}")
    assert (message.reasoning_content, message.content, message.errors) == (
        "Let me think.",
        "A B",
        (),
    )


@pytest.mark.parametrize("word", ["thoughtful", "thought_1", "Thought"])
def test_a_word_that_only_begins_with_the_label_is_reasoning(word: str) -> None:
    message = verified(f"<|channel>{word} notes{END_THOUGHT}")
    assert message.reasoning_content == f"{word} notes"


def test_a_channel_opener_inside_thinking_opens_another_block() -> None:
    message = verified(THOUGHT + "Hmm. <|channel>more" + END_THOUGHT + "x" + END_TURN)
    assert (message.reasoning_content, message.content) == ("Hmm. more", "x")


@pytest.mark.parametrize(("prefix", "prompt"), [(THOUGHT, PROMPT), ("", PROMPT + THOUGHT)])
def test_a_call_ends_open_reasoning(prefix: str, prompt: str) -> None:
    message = verified(prefix + "Look it up." + call("get_time", {"zone": "UTC"}), prompt)
    assert (message.reasoning_content, message.content) == ("Look it up.", None)
    assert names(message) == ["get_time"]


def test_thinking_blocks_anywhere_and_stray_markers_dropped() -> None:
    text = ("A " + THOUGHT + "one" + END_THOUGHT + "B " + THOUGHT + END_THOUGHT + END_THOUGHT
            + END_CALL + "C" + END_TURN)  # fmt: skip
    message = verified(text)
    assert (message.reasoning_content, message.content, message.errors) == ("one", "A B C", ())


def test_call_like_text_in_prose_stays_prose() -> None:
    prose = f"Write <|tool_call> then call:NAME, as in <|tool_call>call:get_time or {Q}x{Q} <|b."
    message = verified(prose + END_TURN)
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- calls ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "arguments"),
    [
        (f"{{my key:{Q}v{Q}}}", {"my key": "v"}),
        (f"{{ my  key :{Q}v{Q}, n:1}}", {"my  key": "v", "n": 1}),
        (f"{{a b c:{{d e:[1, {Q}x y{Q}]}}}}", {"a b c": {"d e": [1, "x y"]}}),
        (f"{{{Q} padded {Q}:1}}", {" padded ": 1}),
    ],
)
def test_keys_with_spaces(literal: str, arguments: dict[str, object]) -> None:
    (result,) = verified(f"{CALL}set_config{literal}{END_CALL}", tools=None).tool_calls
    assert result.arguments == arguments
    assert json.loads(result.arguments_json) == arguments


def test_keys_with_spaces_render_back() -> None:
    arguments = {"my key": "v", " padded": 1, "a:b": 2}
    assert render_value(arguments) == f"{{{Q} padded{Q}:1,{Q}a:b{Q}:2,my key:{Q}v{Q}}}"
    (result,) = verified(call("set_config", arguments), tools=None).tool_calls
    assert result.arguments == arguments


def test_a_key_may_not_span_lines() -> None:
    message = verified(f"{CALL}set_config{{my\nkey:1}}{END_CALL}", tools=None)
    (error,) = message.errors
    assert message.tool_calls == () and error.code == "malformed"


def test_typed_values_keep_their_types() -> None:
    arguments = {"days": 3, "ratio": -1.5e3, "hourly": True, "unit": None, "list": [1, "two"],
                 "options": {"a": {"b": False}}, "zone": "42",
                 "n": 12345678901234567890}  # fmt: skip
    (result,) = verified(call("set_config", arguments), tools=None).tool_calls
    assert result.arguments == arguments


def test_undeclared_tool_is_reported_and_the_others_kept() -> None:
    text = call("get_time", {}) + call("launch", {"n": 3}) + call("get_weather", {}) + TOOL_RESPONSE
    message = verified(text)
    assert names(message) == ["get_time", "get_weather"]
    (error,) = message.errors
    assert error.code == "unknown_tool" and "launch" in error.message


# -- truncation ----------------------------------------------------------------------------------


# -- issue #35: bare calls where content starts, `<turn|>` closing a call, name characters --

NAMED = [*TOOLS, tool("web-search", query=STRING), tool("fs.read_file", path=STRING)]
BASH = f"call:get_time{{zone:{Q}UTC{Q}}}"


@pytest.mark.parametrize(
    ("text", "prompt", "reasoning"),
    [
        (BASH, PROMPT, None),
        ("\n" + BASH + END_CALL, PROMPT, None),
        (f"{THOUGHT}I need the time.\n{END_THOUGHT}{BASH}", PROMPT, "I need the time."),
        (f"I need the time.\n{END_THOUGHT}{BASH}", PROMPT + THOUGHT, "I need the time."),
        (f"{THOUGHT}Plan.{END_THOUGHT}\n{BASH}{END_TURN}", PROMPT, "Plan."),
    ],
)
def test_a_bare_call_of_a_declared_tool_where_content_starts(
    text: str, prompt: str, reasoning: str | None
) -> None:
    message = verified(text, prompt)
    assert (message.reasoning_content, message.content, message.errors) == (reasoning, None, ())
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("get_time", {"zone": "UTC"})]


@pytest.mark.parametrize(
    "text",
    [
        f"The time: {BASH}",  # not where content starts
        f"Say {BASH.replace('get_time', 'launch')}",
        BASH.replace("get_time", "launch"),  # an undeclared tool
        "call:get_time is how you ask.",
        "calling get_time{later}",
    ],
)
def test_bare_call_text_elsewhere_stays_content(text: str) -> None:
    message = verified(text + END_TURN)
    assert (message.content, message.tool_calls, message.errors) == (text, (), ())


@pytest.mark.parametrize("stop", [END_TURN, EOS, TOOL_RESPONSE])
def test_a_call_closed_by_the_end_of_turn(stop: str) -> None:
    text = f"On it.{CALL}get_time{{zone:{Q}UTC{Q}}}{stop}"
    message = verified(text)
    assert message.content == "On it." and message.errors == ()
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("get_time", {"zone": "UTC"})]


def test_a_call_closed_by_the_next_call() -> None:
    text = f"{CALL}get_time{{zone:{Q}UTC{Q}}}{call('get_time', {'zone': 'CET'})}"
    message = verified(text + END_TURN)
    assert [c.arguments for c in message.tool_calls] == [{"zone": "UTC"}, {"zone": "CET"}]


@pytest.mark.parametrize("name", ["web-search", "fs.read_file"])
def test_hyphenated_and_dotted_names(name: str) -> None:
    key = "query" if name == "web-search" else "path"
    for text in (call(name, {key: "x"}), f"call:{name}{{{key}:{Q}x{Q}}}"):
        message = verified(text + END_TURN, tools=NAMED)
        assert [(c.name, c.arguments) for c in message.tool_calls] == [(name, {key: "x"})]
