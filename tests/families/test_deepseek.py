"""The DeepSeek formats (FORMATS.md §5): `deepseek-v3` (R1 and V3), `deepseek-v3.1`,
`deepseek-v3.2`, `deepseek-v4` and `deepseek-v4.1`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.compile.format import Format
from protocall.events import (
    ContentDelta,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from protocall.formats.deepseek import DSML, DSML_V41
from protocall.message import Message
from protocall.testing import Outcome, chunkings, split_at, stream, verify
from protocall.tools import normalize_tools

NAMES = ["deepseek-v3", "deepseek-v3.1", "deepseek-v3.2", "deepseek-v4", "deepseek-v4.1"]
DSML_NAMES = NAMES[2:]
EOS = "<｜end▁of▁sentence｜>"
R1_THINKING = "<｜User｜>Hi<｜Assistant｜><think>\n"
THINKING = "<｜User｜>Hi<｜Assistant｜><think>"
CHAT = "<｜User｜>Hi<｜Assistant｜></think>"
V3_CHAT = "<｜User｜>Hi<｜Assistant｜>"


def function(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


STRING = {"type": "string"}
TOOLS = normalize_tools([
    function("get_weather", {"location": STRING, "days": {"type": "integer"},
                             "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                             "hourly": {"type": "boolean"}}),
    function("get_weather_forecast", {"location": STRING}),
    function("get_time", {"zone": STRING}),
    function("write_file", {"path": STRING, "content": STRING}),
    function("set_config", {"options": {"type": "object"}}),
    function("typed", {"i": {"type": "integer"}, "f": {"type": "number"}, "b": {"type": "boolean"},
                       "n": {"type": "null"}, "a": {"type": "array"}, "o": {"type": "object"},
                       "u": {"type": ["integer", "null"]}, "s": STRING, "t": STRING}),
])  # fmt: skip


def fmt(name: str) -> Format:
    return formats.get(name)


def thinking(name: str) -> str:
    return R1_THINKING if name == "deepseek-v3" else THINKING


def chat(name: str) -> str:
    return V3_CHAT if name == "deepseek-v3" else CHAT


def turn_text(name: str, *parts: str | ToolUse, reasoning: str | None = None,
              start: str | None = None) -> str:  # fmt: skip
    """A turn written as the model writes it (by the format's renderer, checked against
    every FORMATS.md example below)."""
    return fmt(name).render(Turn(reasoning, parts), start)


def check_invariants(outcome: Outcome) -> None:
    """Deltas add up to the fields, argument deltas to each call's arguments JSON."""
    message, events = outcome.message, outcome.events
    content = "".join(e.text for e in events if isinstance(e, ContentDelta))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert (content or None) == message.content
    assert (reasoning or None) == message.reasoning_content
    for end in (e for e in events if isinstance(e, ToolCallEnd)):
        pieces = [e.text for e in events
                  if isinstance(e, ToolCallArgumentsDelta) and e.index == end.index]  # fmt: skip
        assert "".join(pieces) == end.call.arguments_json
        assert json.loads(end.call.arguments_json) == end.call.arguments


def whole_calls(name: str, text: str) -> list[str]:
    """`text` cut so that every call section arrives in one delta."""
    reserved = fmt(name).reserved
    begin = min((text.find(m) for m in reserved[3:] if m in text), default=-1)
    if begin < 0:
        return [text]
    return split_at(text, [begin, text.rfind(EOS)])


def parse(name: str, text: str, prompt: str | None = None, tools: Any = TOOLS) -> Message:
    """`text` parsed every way (`verify`: one chunk, per character, random chunkings, …),
    and with each section in one delta."""
    return verify(fmt(name), text, prompt, tools=tools, chunkings=[whole_calls(name, text)])


def calls_of(message: Message) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]


# -- FORMATS.md §5 examples -------------------------------------------------------------------

PARIS = {"location": "Paris"}
EXAMPLES = [
    ("deepseek-v3", R1_THINKING,
     "Basic geography.\n</think>\n\nParis is the capital of France.<｜end▁of▁sentence｜>",
     Turn("Basic geography.\n", ("\n\nParis is the capital of France.",)),
     {"reasoning_content": "Basic geography.", "content": "Paris is the capital of France.",
      "tool_calls": []}),
    ("deepseek-v3", V3_CHAT,
     "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
     "{\"location\": \"Paris\"}\n```<｜tool▁call▁end｜"
     ">\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>"
     "get_time\n```json\n{\"zone\": \"Europe/Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
     "<｜end▁of▁sentence｜>",
     Turn(None, (ToolUse("get_weather", PARIS), ToolUse("get_time", {"zone": "Europe/Paris"}))),
     {"reasoning_content": None, "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": PARIS},
         {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]}),
    ("deepseek-v3.1", THINKING, "Compute 2+2.</think>4<｜end▁of▁sentence｜>",
     Turn("Compute 2+2.", ("4",)),
     {"reasoning_content": "Compute 2+2.", "content": "4", "tool_calls": []}),
    ("deepseek-v3.1", CHAT,
     "Let me check.<｜tool▁calls▁begin｜><｜tool▁cal"
     "l▁begin｜>get_weather<｜tool▁sep｜>{\"location\":"
     " \"Paris\", \"days\": 3}<｜tool▁call▁end｜><｜too"
     "l▁call▁begin｜>get_time<｜tool▁sep｜>{\"zone\": "
     "\"Europe/Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
     Turn(None, ("Let me check.", ToolUse("get_weather", {"location": "Paris", "days": 3}),
                 ToolUse("get_time", {"zone": "Europe/Paris"}))),
     {"reasoning_content": None, "content": "Let me check.", "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}},
         {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]}),
    ("deepseek-v3.2", THINKING,
     "The user wants the forecast.</think>Let me c"
     "heck.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke "
     "name=\"get_weather\">\n<｜DSML｜parameter name="
     "\"location\" string=\"true\">Paris</｜DSML｜param"
     "eter>\n<｜DSML｜parameter name=\"days\" string="
     "\"false\">3</｜DSML｜parameter>\n</｜DSML｜invoke>"
     "\n</｜DSML｜function_calls><｜end▁of▁sentence｜>",
     Turn("The user wants the forecast.",
          ("Let me check.", ToolUse("get_weather", {"location": "Paris", "days": 3}))),
     {"reasoning_content": "The user wants the forecast.", "content": "Let me check.",
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}]}),
    ("deepseek-v3.2", THINKING,
     "I need the forecast.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
     "<｜DSML｜parameter name=\"location\" string=\"t"
     "rue\">Paris</｜DSML｜parameter>\n</｜DSML｜invok"
     "e>\n</｜DSML｜function_calls><｜end▁of▁sentence｜>",
     None,
     {"reasoning_content": "I need the forecast.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": PARIS}]}),
    ("deepseek-v3.2", CHAT, "Paris is the capital of France.<｜end▁of▁sentence｜>",
     Turn(None, ("Paris is the capital of France.",)),
     {"reasoning_content": None, "content": "Paris is the capital of France.", "tool_calls": []}),
    ("deepseek-v4", THINKING,
     "Two lookups needed.</think>\n\n<｜DSML｜tool_c"
     "alls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜D"
     "SML｜parameter name=\"location\" string=\"true"
     "\">Paris</｜DSML｜parameter>\n<｜DSML｜parameter "
     "name=\"hourly\" string=\"false\">true</｜DSML｜p"
     "arameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke na"
     "me=\"set_config\">\n<｜DSML｜parameter name=\"o"
     "ptions\" string=\"false\">{\"unit\": \"celsius\"}"
     "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls><｜end▁of▁sentence｜>",
     Turn("Two lookups needed.", (ToolUse("get_weather", {"location": "Paris", "hourly": True}),
                                  ToolUse("set_config", {"options": {"unit": "celsius"}}))),
     {"reasoning_content": "Two lookups needed.", "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris", "hourly": True}},
         {"name": "set_config", "arguments": {"options": {"unit": "celsius"}}}]}),
    ("deepseek-v4", CHAT,
     "Saving it now.\n\n<｜DSML｜tool_calls>\n<｜DSML｜"
     "invoke name=\"write_file\">\n<｜DSML｜parameter"
     " name=\"path\" string=\"true\">/tmp/a.txt</｜DS"
     "ML｜parameter>\n<｜DSML｜parameter name=\"conte"
     "nt\" string=\"true\">line1\nline2</｜DSML｜para"
     "meter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>"
     "<｜end▁of▁sentence｜>",
     Turn(None, ("Saving it now.",
                 ToolUse("write_file", {"path": "/tmp/a.txt", "content": "line1\nline2"}))),
     {"reasoning_content": None, "content": "Saving it now.", "tool_calls": [
         {"name": "write_file", "arguments": {"path": "/tmp/a.txt", "content": "line1\nline2"}}]}),
    ("deepseek-v4", THINKING,
     "Check weather first.\n\n<｜DSML｜tool_calls>\n<"
     "｜DSML｜invoke name=\"get_time\">\n<｜DSML｜param"
     "eter name=\"zone\" string=\"true\">Europe/Pari"
     "s</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML"
     "｜tool_calls><｜end▁of▁sentence｜>",
     None,
     {"reasoning_content": "Check weather first.", "content": None,
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]}),
    ("deepseek-v4.1", THINKING,
     "Need forecast.</think>\n\n<｜DSML｜ calls>\n<｜D"
     "SML｜ invoke name=\"get_weather\">\n<｜DSML｜ par"
     "ameter name=\"location\" string=\"true\">Paris<"
     "/｜DSML｜ parameter>\n<｜DSML｜ parameter name=\""
     "days\" string=\"false\">3</｜DSML｜ parameter>\n<"
     "/｜DSML｜ invoke>\n</｜DSML｜ calls><｜end▁of▁sen"
     "tence｜>",
     Turn("Need forecast.", (ToolUse("get_weather", {"location": "Paris", "days": 3}),)),
     {"reasoning_content": "Need forecast.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}]}),
]  # fmt: skip


BY_NAME = {name: [(text, prompt, expected) for of, prompt, text, _, expected in EXAMPLES
                  if of == name] for name in NAMES}  # fmt: skip
"""The examples of each variant, with the generic tests in tests/test_families."""


@pytest.mark.parametrize(("name", "prompt", "text", "turn", "expected"), EXAMPLES)
def test_formats_md_examples(
    name: str, prompt: str, text: str, turn: Turn | None, expected: dict[str, Any]
) -> None:
    message = parse(name, text, prompt)
    assert message.to_dict() == expected
    assert message.errors == ()


@pytest.mark.parametrize(("name", "prompt", "text", "turn", "expected"), EXAMPLES)
def test_the_renderer_writes_the_examples(
    name: str, prompt: str, text: str, turn: Turn | None, expected: dict[str, Any]
) -> None:
    if turn is not None:  # (examples of a call inside an unclosed block are not rendered)
        assert fmt(name).render(turn, fmt(name).start_state(prompt)) == text


# -- every variant ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_generation_prompts_set_the_start_state(name: str) -> None:
    answer = "Paris." + EOS
    message = parse(name, "Basic.\n</think>\n\n" + answer, thinking(name))
    assert (message.reasoning_content, message.content) == ("Basic.", "Paris.")
    for prompt in (chat(name), None):
        message = parse(name, answer, prompt)
        assert (message.reasoning_content, message.content) == (None, "Paris.")
    message = parse(name, "<think>Hmm.</think>" + answer, None)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Paris.")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("opened_by", ["prompt", "model"])
def test_call_inside_an_unclosed_reasoning_block_ends_it(name: str, opened_by: str) -> None:
    text = turn_text(name, "Need weather.", ToolUse("get_weather", PARIS))
    prompt = thinking(name) if opened_by == "prompt" else chat(name)
    message = parse(name, text if opened_by == "prompt" else "<think>" + text, prompt)
    assert message.reasoning_content == "Need weather."
    assert (message.content, calls_of(message)) == (
        None,
        [{"name": "get_weather", "arguments": PARIS}],
    )


QUOTES = {
    "deepseek-v3": "<｜tool▁calls▁begin｜> then <｜tool▁call▁begin｜>function<｜tool▁sep｜>",
    "deepseek-v3.1": "<｜tool▁calls▁begin｜> and <｜tool▁call▁begin｜>get_weather and more",
    "deepseek-v3.2": '<｜DSML｜function_calls> then <｜DSML｜invoke name="get_weather"> …',
    "deepseek-v4": '\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather" here',
    "deepseek-v4.1": "<｜DSML｜ calls> with <｜DSML｜ invoke and <｜DSML｜ parameter",
}


@pytest.mark.parametrize("name", NAMES)
def test_markers_quoted_in_closed_reasoning_and_in_prose_stay_text(name: str) -> None:
    quoted = "I could write " + QUOTES[name] + " later."
    message = parse(name, f"<think>{quoted}</think>Done.{EOS}")
    assert (message.reasoning_content, message.content) == (quoted, "Done.")
    assert message.tool_calls == () and message.errors == ()
    message = parse(name, quoted + EOS)
    if name == "deepseek-v3.2":  # a whole bare invoke of a declared tool heads a call (#35)
        (error,) = message.errors
        assert error.code == "malformed" and error.raw == quoted[quoted.index("<｜DSML｜invoke") :]
        return
    assert (message.content, message.tool_calls, message.errors) == (quoted, (), ())


@pytest.mark.parametrize("name", NAMES)
def test_parallel_calls_and_content_before_between_and_after(name: str) -> None:
    weather, time = ToolUse("get_weather", PARIS), ToolUse("get_time", {"zone": "UTC"})
    text = turn_text(name, "Before.", weather, time, " Between. ", time, " After.")
    message = parse(name, text)
    assert message.content == "Before. Between.  After."
    assert [c.name for c in message.tool_calls] == ["get_weather", "get_time", "get_time"]


@pytest.mark.parametrize("name", NAMES)
def test_empty_arguments(name: str) -> None:
    (done,) = parse(name, turn_text(name, ToolUse("get_time", {}))).tool_calls
    assert (done.arguments, done.arguments_json) == ({}, "{}")


@pytest.mark.parametrize("name", NAMES)
def test_cjk_and_emoji(name: str) -> None:
    arguments = {"location": "東京 🌸", "unit": "晴れ ☀️ é"}
    text = turn_text(name, "了解です 👍", ToolUse("get_weather", arguments), reasoning="天気 🤔")
    message = parse(name, text)
    assert (message.reasoning_content, message.content) == ("天気 🤔", "了解です 👍")
    assert message.tool_calls[0].arguments == arguments


TYPED = {"i": 3, "f": -1.5e3, "b": True, "n": None, "a": [1, "two", [3.0]],
         "o": {"k": {"x": False}}, "u": None, "s": "42", "t": "null"}  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_typed_values(name: str) -> None:
    (done,) = parse(name, turn_text(name, ToolUse("typed", TYPED))).tool_calls
    assert done.arguments == TYPED and json.loads(done.arguments_json) == TYPED
    assert done.validation_errors == ()


@pytest.mark.parametrize("name", NAMES)
def test_nullable_union_and_numeric_looking_strings(name: str) -> None:
    for value in (7, None):
        (done,) = parse(name, turn_text(name, ToolUse("typed", {"u": value}))).tool_calls
        assert done.arguments == {"u": value}
    (done,) = parse(name, turn_text(name, ToolUse("typed", {"s": "007", "t": "1e3"}))).tool_calls
    assert done.arguments == {"s": "007", "t": "1e3"}


@pytest.mark.parametrize("name", NAMES)
def test_undeclared_tool_is_an_error_without_a_completed_call(name: str) -> None:
    text = turn_text(name, "Ok.", ToolUse("launch_rockets", {"count": "3"}),
                     ToolUse("get_time", {"zone": "UTC"}))  # fmt: skip
    outcome = stream(fmt(name), list(text), TOOLS)
    errors = outcome.message.errors
    assert [e.code for e in errors] == ["unknown_tool"] and "launch_rockets" in errors[0].message
    assert [c.name for c in outcome.message.tool_calls] == ["get_time"]
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    check_invariants(outcome)


@pytest.mark.parametrize("name", NAMES)
def test_eos_is_never_content(name: str) -> None:
    assert parse(name, "Hi." + EOS + " ").content == "Hi."
    message = parse(name, "Still thinking" + EOS, thinking(name))
    assert (message.reasoning_content, message.content) == ("Still thinking", None)


@pytest.mark.parametrize("name", NAMES)
def test_truncated_reasoning_is_kept(name: str) -> None:
    message = parse(name, "Still thinking about", thinking(name))
    assert (message.reasoning_content, message.errors) == ("Still thinking about", ())


# -- R1 / V3 and V3.1 -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["deepseek-v3", "deepseek-v3.1"])
@pytest.mark.parametrize(
    "opener",
    ["<｜tool▁calls▁begin｜>", "<｜tool_calls_begin｜>", "<｜tool calls begin｜>",
     "<｜tool\\_calls\\_begin｜>", "<｜tool▁calls｜>", ""],
)  # fmt: skip
def test_section_opener_spellings_and_a_bare_call(name: str, opener: str) -> None:
    canonical = turn_text(name, "Ok.", ToolUse("get_time", {"zone": "UTC"}))
    text = canonical.replace("<｜tool▁calls▁begin｜>", opener)
    message = parse(name, text)
    assert message.content == "Ok."
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]


def test_v3_whitespace_variants() -> None:
    text = (
        "Ok. <｜tool▁calls▁begin｜>\n<｜tool▁call▁begi"
        "n｜>function<｜tool▁sep｜> get_time \n\n```json"
        '{"zone": "UTC"}```  <｜tool▁call▁end｜>\n\n<｜too'
        "l▁call▁begin｜>function<｜tool▁sep｜>get_weather"
        '\n```json\n  {"location": "Paris"}\n\n```<｜tool▁call▁end｜>\n<｜tool▁calls▁end｜>\n' + EOS
    )
    message = parse("deepseek-v3", text)
    assert message.content == "Ok."
    assert calls_of(message) == [
        {"name": "get_time", "arguments": {"zone": "UTC"}},
        {"name": "get_weather", "arguments": PARIS},
    ]


def test_v31_whitespace_variants() -> None:
    text = (
        '<｜tool▁calls▁begin｜> <｜tool▁call▁begin｜> get_time <｜tool▁sep｜>\n{"zone": "UTC"}\n'
        "<｜tool▁call▁end｜>\n<｜tool▁calls▁end｜>" + EOS
    )
    assert calls_of(parse("deepseek-v3.1", text)) == [
        {"name": "get_time", "arguments": {"zone": "UTC"}}
    ]


def test_v31_call_in_unclosed_think_ends_reasoning() -> None:
    text = turn_text("deepseek-v3.1", "Plan.", ToolUse("get_time", {"zone": "UTC"}))
    message = parse("deepseek-v3.1", text, THINKING)
    assert (message.reasoning_content, message.content) == ("Plan.", None)


# -- DSML (V3.2, V4, V4.1) ----------------------------------------------------------------------


@pytest.mark.parametrize("name", DSML_NAMES)
def test_string_values_keep_their_whitespace_exactly(name: str) -> None:
    code = "\n  def f():\n\treturn '<a>'  \n\n"
    text = turn_text(name, ToolUse("write_file", {"path": " a.py ", "content": code}))
    assert parse(name, text).tool_calls[0].arguments == {"path": " a.py ", "content": code}


@pytest.mark.parametrize("name", DSML_NAMES)
def test_the_blank_lines_before_the_block_are_envelope(name: str) -> None:
    text = turn_text(name, "Before.", ToolUse("get_time", {"zone": "UTC"}), "After.")
    assert "\n\n<｜DSML｜" in text
    outcome = stream(fmt(name), list(text), TOOLS)
    deltas = [e.text for e in outcome.events if isinstance(e, ContentDelta)]
    assert "".join(deltas) == "Before.After." == outcome.message.content


@pytest.mark.parametrize("name", DSML_NAMES)
def test_duplicate_parameter_is_an_error(name: str) -> None:
    text = turn_text(name, ToolUse("get_weather", {"location": "Paris"}))
    layout = DSML_V41 if name == "deepseek-v4.1" else DSML
    opener, close = layout.opener, layout.value_close
    parameter = f'{opener} name="location" string="true">Paris{close}'
    outcome = stream(fmt(name), list(text.replace(parameter, parameter + "\n" + parameter)), TOOLS)
    assert outcome.message.tool_calls == ()
    (error,) = outcome.message.errors
    assert error.code == "malformed" and "duplicate" in error.message
    assert not any(isinstance(e, ToolCallEnd) for e in outcome.events)


@pytest.mark.parametrize("name", DSML_NAMES)
def test_dsml_whitespace_variants(name: str) -> None:
    text = turn_text(name, "Ok.", ToolUse("get_weather", {"location": "Paris", "days": 2}))
    spaced = text.replace(">\n<", ">\n \n<").replace('" string', '"  string')
    message = parse(name, spaced)
    assert message.content == "Ok."
    assert calls_of(message) == [
        {"name": "get_weather", "arguments": {"location": "Paris", "days": 2}}
    ]


@pytest.mark.parametrize("name", DSML_NAMES)
@pytest.mark.parametrize("spelling", ["｜｜DSML｜｜", "|DSML|", " | DSML | ", "‖DSML‖"])
def test_dsml_token_spellings_of_proxies_are_calls(name: str, spelling: str) -> None:
    """Proxies leak the DSML token corrupted (GenericAgent #804, flocks PR #687): still calls."""
    text = turn_text(name, "Ok.", ToolUse("get_weather", {"location": "Paris", "days": 2}))
    text = text.replace("｜DSML｜", spelling)
    message = parse(name, text)
    assert (message.content, message.errors) == ("Ok.", ())
    assert calls_of(message) == [
        {"name": "get_weather", "arguments": {"location": "Paris", "days": 2}}
    ]
    assert stream(fmt(name), list(text), TOOLS).message == message
    opener = text.index("<", text.index("Ok."))  # cut inside the block opener: no call
    for end in range(opener + 1, opener + len(spelling) + 3):
        cut = stream(fmt(name), list(text[:end]), TOOLS).message
        assert cut.tool_calls == (), end
        assert stream(fmt(name), [text[:end]], TOOLS).message == cut, end


@pytest.mark.parametrize("name", DSML_NAMES)
def test_a_block_cut_before_its_end_keeps_its_calls(name: str) -> None:
    text = turn_text(name, ToolUse("get_time", {"zone": "UTC"}))
    block_end = text.rindex("</")
    for end in range(block_end, len(text) + 1):
        message = stream(fmt(name), [text[:end]], TOOLS).message
        assert stream(fmt(name), list(text[:end]), TOOLS).message == message, end
        assert [c.name for c in message.tool_calls] == ["get_time"], end
        partial_eos = text[len(text) - len(EOS) : end] if end < len(text) else ""
        assert (message.content, message.errors) == (partial_eos or None, ()), end


# -- issue #15: self-closing invokes, DSML quoted in Markdown code --------------------------------


def dsml_block(name: str, *calls: ToolUse) -> str:
    """The calls' DSML block as the model writes it, without the end of turn."""
    return turn_text(name, *calls).removesuffix(EOS)


def self_closed(name: str, tool: str) -> str:
    """A DSML block whose one invoke is a self-closing tag."""
    written = dsml_block(name, ToolUse(tool))
    opening = written.index("<", written.index("invoke") - 8)
    end = written.index(">", opening)
    closing = written.index("</", end)
    return written[:end] + "/>" + written[written.index(">", closing) + 1 :]


@pytest.mark.parametrize("name", DSML_NAMES)
def test_a_self_closing_invoke_is_a_call_without_parameters(name: str) -> None:
    block = self_closed(name, "get_time")
    assert '"/>' in block and block.count("invoke") == 1
    message = parse(name, "Checking." + block + EOS, chat(name))
    assert calls_of(message) == [{"name": "get_time", "arguments": {}}]
    assert message.content == "Checking." and message.errors == ()
    assert message.tool_calls[0].arguments_json == "{}"


@pytest.mark.parametrize("name", DSML_NAMES)
def test_self_closing_and_full_invokes_in_one_block(name: str) -> None:
    full = dsml_block(name, ToolUse("get_weather", {"location": "Paris"}))
    empty = self_closed(name, "get_time")
    invoke = empty[empty.index("<", empty.index("invoke") - 8) : empty.index('"/>') + 3]
    at = full.index("<", full.index("invoke") - 8)
    text = full[:at] + invoke + "\n" + full[at:] + EOS
    message = parse(name, text, chat(name))
    assert [c["name"] for c in calls_of(message)] == ["get_time", "get_weather"]


FENCES = [("```\n", "\n```"), ("```xml\n", "\n```"), ("````\n", "\n````"), ("`", "`"),
          ("``", "``")]  # fmt: skip


@pytest.mark.parametrize("name", DSML_NAMES)
@pytest.mark.parametrize(("opening", "closing"), FENCES)
def test_dsml_quoted_in_markdown_code_is_an_example_not_a_call(
    name: str, opening: str, closing: str
) -> None:
    example = dsml_block(name, ToolUse("write_file", {"path": "/etc/passwd", "content": "x"}))
    if len(opening) < 3:
        example = example.replace("\n", " ")  # inline code stays on one line
    content = f"Write it like this:\n{opening}{example}{closing}\nThat is all."
    message = parse(name, content + EOS, chat(name))
    assert message.tool_calls == () and message.errors == ()
    assert message.content == content


@pytest.mark.parametrize("name", DSML_NAMES)
def test_a_call_after_a_closed_fence_is_a_call(name: str) -> None:
    example = dsml_block(name, ToolUse("write_file", {"path": "/a", "content": "x"}))
    content = f"Example:\n```\n{example}\n```\nNow for real, with `inline` code:"
    text = content + dsml_block(name, ToolUse("get_time", {"zone": "UTC"})) + EOS
    message = parse(name, text, chat(name))
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert message.content == content


@pytest.mark.parametrize("name", DSML_NAMES)
def test_an_unclosed_fence_keeps_everything_after_it_text(name: str) -> None:
    text = "```\n" + dsml_block(name, ToolUse("get_time", {"zone": "UTC"})) + EOS
    message = parse(name, text, chat(name))
    assert message.tool_calls == () and message.content == text.removesuffix(EOS).strip()


@pytest.mark.parametrize("name", DSML_NAMES)
def test_an_inline_span_ends_at_its_line(name: str) -> None:
    content = "A stray ` here."
    text = content + dsml_block(name, ToolUse("get_time", {"zone": "UTC"})) + EOS
    message = parse(name, text, chat(name))
    assert [c["name"] for c in calls_of(message)] == ["get_time"]
    assert message.content == content


@pytest.mark.parametrize("name", DSML_NAMES)
def test_dsml_quoted_in_code_in_pre_opened_reasoning_stays_reasoning(name: str) -> None:
    example = dsml_block(name, ToolUse("get_time", {"zone": "UTC"}))
    thought = f"The format is:\n```\n{example}\n```\nSo I will answer."
    message = parse(name, thought + "</think>Paris." + EOS, THINKING)
    assert (message.reasoning_content, message.content) == (thought, "Paris.")
    assert message.tool_calls == ()


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(DSML_NAMES), st.booleans(), st.data())
def test_fenced_examples_and_self_closing_invokes_under_random_chunkings(
    name: str, fenced: bool, data: st.DataObject
) -> None:
    example = dsml_block(name, ToolUse("get_time", {"zone": "UTC"}))
    content = f"See:\n```\n{example}\n```\nand `x`." if fenced else "Calling."
    text = content + self_closed(name, "get_weather") + EOS
    chunks = data.draw(chunkings(text, fmt(name).reserved))
    message = verify(fmt(name), text, chat(name), tools=list(TOOLS.values()), chunkings=[chunks])
    assert calls_of(message) == [{"name": "get_weather", "arguments": {}}]
    assert message.content == content


# -- issue #35: damaged wrappers, `~~~` fences, bare invokes ---------------------------------


def damaged(name: str, block: str) -> str:
    """The DSML block of a `get_time` call with its begin tag's name written `block` (and
    its end tag's too): `toolcalls`, a misspelling, or `tool_calls` cut before its `>`."""
    written = dsml_block(name, ToolUse("get_time", {"zone": "UTC"}))
    tag = written.split("<｜DSML｜", 1)[1].split(">", 1)[0]
    return written.replace(f"｜{tag}>", f"｜{block}")


@pytest.mark.parametrize("name", DSML_NAMES)
@pytest.mark.parametrize("block", ["toolcalls>", "tool>", "tool_calls\n", "invoke_calls>"])
def test_a_damaged_wrapper_is_an_error_region_never_content(name: str, block: str) -> None:
    text = "Let me check." + damaged(name, block) + EOS
    message = parse(name, text, CHAT)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "malformed"
    assert error.raw == text[len("Let me check.") : -len(EOS)]  # the rest of the turn, whole
    without = stream(fmt(name), [text], TOOLS, CHAT, passthrough_malformed=False).message
    assert (without.content, without.errors) == ("Let me check.", message.errors)


@pytest.mark.parametrize("name", DSML_NAMES)
def test_a_wrapper_cut_off_by_the_end_of_turn_is_an_error(name: str) -> None:
    begin = dsml_block(name, ToolUse("get_time", {"zone": "UTC"})).split(">")[0]
    message = parse(name, "Let me check." + begin + EOS, CHAT)
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == begin
    cut = parse(name, "Let me check." + begin, CHAT)  # cut by the end of the output
    assert [e.code for e in cut.errors] == ["truncated"] and cut.content == "Let me check."


@pytest.mark.parametrize("name", DSML_NAMES)
@pytest.mark.parametrize("fence", ["~~~", "~~~~", "```"])
def test_a_block_quoted_in_a_fence_stays_in_the_content_whole(name: str, fence: str) -> None:
    example = dsml_block(name, ToolUse("get_time", {"zone": "UTC"}))
    quoted = f"Write it so:\n{fence}\n{example.strip()}\n{fence}\nThat is all."
    message = parse(name, quoted + EOS, CHAT)
    assert (message.content, message.tool_calls, message.errors) == (quoted, (), ())
    reasoned = parse(name, quoted + "</think>Ok." + EOS, THINKING)
    assert (reasoned.reasoning_content, reasoned.content) == (quoted, "Ok.")


@pytest.mark.parametrize("name", DSML_NAMES)
def test_one_or_two_tildes_are_text_and_a_call_after_them_counts(name: str) -> None:
    prose = "It is ~20 km, ~~not~~ far."
    text = turn_text(name, prose, ToolUse("get_time", {"zone": "UTC"}))
    message = parse(name, text, CHAT)
    assert message.content == prose and calls_of(message) == [
        {"name": "get_time", "arguments": {"zone": "UTC"}}
    ]


def bare_invoke(name: str, tool: str) -> str:
    """The `invoke` element of a `tool` call, without the block around it."""
    block = dsml_block(name, ToolUse(tool, {"zone": "UTC"}))
    start = block.index("<", block.index("invoke") - 9)
    end = block.index(">", block.rindex("invoke")) + 1
    return block[start:end]


@pytest.mark.parametrize("name", DSML_NAMES)
@pytest.mark.parametrize("before", ["", "Let me check.", "Let me check.\n", "Let me check.\n\n"])
def test_a_bare_invoke_of_a_declared_tool_is_a_call(name: str, before: str) -> None:
    message = parse(name, before + bare_invoke(name, "get_time") + EOS, CHAT)
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert (message.content, message.errors) == (before.strip() or None, ())


@pytest.mark.parametrize("name", DSML_NAMES)
def test_a_bare_invoke_of_an_undeclared_tool_is_reported_whole(name: str) -> None:
    invoke = bare_invoke(name, "get_time").replace("get_time", "launch")
    message = parse(name, "Let me check.\n" + invoke + EOS, CHAT)
    (error,) = message.errors
    assert message.tool_calls == () and error.code == "unknown_tool" and error.raw == invoke


@pytest.mark.parametrize("name", DSML_NAMES)
@pytest.mark.parametrize("close", ["</think>Ok.", ""])
def test_a_bare_invoke_in_reasoning_stays_reasoning(name: str, close: str) -> None:
    thought = "Maybe " + bare_invoke(name, "get_time") + " first."
    message = parse(name, thought + close + EOS, THINKING)
    assert message.reasoning_content == thought and message.tool_calls == ()
