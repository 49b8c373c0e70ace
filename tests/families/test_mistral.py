"""The `mistral` format (FORMATS.md §6.8), one-shot and streamed in every test."""

from __future__ import annotations

import json

import pytest

from protocall import formats
from protocall.events import ToolCallStart
from protocall.formats.mistral import FORMAT
from protocall.message import Message
from protocall.testing import (
    PROPERTIES,
    Case,
    Trial,
    completion_offsets,
    example_tests,
    split_at,
    stream,
    verify,
)
from protocall.tools import normalize_tools

THINK, END_THINK = "[THINK]", "[/THINK]"
TOOL_CALLS, CALL_ID, ARGS, EOS = "[TOOL_CALLS]", "[CALL_ID]", "[ARGS]", "</s>"
PROMPT = "[/INST]"


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


def call(name: str, arguments: dict[str, object], call_id: str = "") -> str:
    """A v11+ call (with a call id: the v11 spelling)."""
    ids = f"{CALL_ID}{call_id}" if call_id else ""
    return f"{TOOL_CALLS}{name}{ids}{ARGS}{json.dumps(arguments, ensure_ascii=False)}"


def listed(*calls: dict[str, object]) -> str:
    """Pre-v11 calls: one JSON array after `[TOOL_CALLS] `."""
    return f"{TOOL_CALLS} {json.dumps(list(calls), ensure_ascii=False)}"


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


# -- FORMATS.md §6.16 example and the other tokenizer versions ------------------------------------

EXAMPLES = [
    ('[THINK]Two lookups.[/THINK][TOOL_CALLS]get_weather[ARGS]{"location": "Paris"}[TOOL_CALLS]'
     'get_time[ARGS]{"zone": "Europe/Paris"}</s>', PROMPT,
     {"reasoning_content": "Two lookups.", "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris"}},
         {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]}),
    (listed({"name": "get_weather", "arguments": {"location": "Paris"}},
            {"name": "get_time", "arguments": {"zone": "UTC"}}) + EOS, PROMPT,
     {"reasoning_content": None, "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris"}},
         {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
    ("Checking. " + call("get_weather", {"days": 2}, "a1B2c3D4e") + EOS, PROMPT,
     {"reasoning_content": None, "content": "Checking.",
      "tool_calls": [{"name": "get_weather", "arguments": {"days": 2}}]}),
    ("Paris.[/THINK]It is sunny.</s>", PROMPT + THINK,
     {"reasoning_content": "Paris.", "content": "It is sunny.", "tool_calls": []}),
]  # fmt: skip


def test_registered() -> None:
    assert formats.get("mistral") is FORMAT


# -- ids and the spellings of a call ---------------------------------------------------------------


def test_v11_call_id_is_kept() -> None:
    text = call("get_time", {"zone": "UTC"}, "abc123XYZ") + call("get_time", {}) + EOS
    message = verified(text)
    assert message.tool_calls[0].id == "abc123XYZ"
    assert message.tool_calls[1].id.startswith("call_")


def test_pre_v11_id_member_is_kept_before_the_arguments() -> None:
    text = listed({"name": "get_time", "id": "k9Zx8Yw7V", "arguments": {}}) + EOS
    (result,) = verified(text).tool_calls
    assert (result.id, result.name, result.arguments) == ("k9Zx8Yw7V", "get_time", {})


def test_pre_v11_id_member_after_the_arguments_comes_too_late() -> None:
    # mistral-common writes it last; the call was announced with an id when its arguments began
    text = listed({"name": "get_time", "arguments": {}, "id": "k9Zx8Yw7V"}) + EOS
    (result,) = verified(text).tool_calls
    assert result.id.startswith("call_") and result.arguments == {}


@pytest.mark.parametrize(
    "text",
    [
        '[TOOL_CALLS]get_time{"zone": "UTC"}</s>',
        '[TOOL_CALLS]get_time [ARGS] {"zone": "UTC"}</s>',
        '[TOOL_CALLS] get_time[CALL_ID]x1[ARGS]{"zone": "UTC"}</s>',
        '[TOOL_CALLS][{"name": "get_time", "arguments": {"zone": "UTC"}}]</s>',
    ],
)
def test_tolerated_spellings(text: str) -> None:
    (result,) = verified(text).tool_calls
    assert (result.name, result.arguments) == ("get_time", {"zone": "UTC"})


def test_pre_v11_members_in_any_order() -> None:
    text = f'{TOOL_CALLS} [{{"id": "i", "name": "get_time", "x": [1], "arguments": {{}}}}]{EOS}'
    assert names(verified(text)) == ["get_time"]
    text = f'{TOOL_CALLS} [{{"arguments": {{"zone": "UTC"}}, "name": "get_time"}}]{EOS}'
    (result,) = verified(text).tool_calls
    assert (result.name, result.arguments) == ("get_time", {"zone": "UTC"})


def test_an_opener_that_heads_no_call_is_text() -> None:
    prose = f"Write {TOOL_CALLS} then the name, as in {TOOL_CALLS} get_time or {TOOL_CALLS}."
    message = verified(prose + EOS)
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- reasoning -----------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FORMAT.start_state(PROMPT) is None and FORMAT.start_state(None) is None
    assert FORMAT.start_state(PROMPT + THINK) == "reasoning"


@pytest.mark.parametrize("terminator", [END_THINK, EOS, ""])
def test_reasoning_terminators(terminator: str) -> None:
    message = verified(THINK + "Hmm. " + terminator + "x")
    assert message.reasoning_content == "Hmm." + ("" if terminator else " x")
    assert message.content == ("x" if terminator else None)


def calls_of(version: str) -> str:
    if version == "v11":
        return call("get_time", {"zone": "UTC"})
    return listed({"name": "get_time", "arguments": {"zone": "UTC"}})


@pytest.mark.parametrize("version", ["v11", "pre-v11"])
def test_a_call_ends_pre_opened_reasoning(version: str) -> None:
    message = verified("Look it up. " + calls_of(version) + EOS, PROMPT + THINK)
    assert (message.reasoning_content, message.content) == ("Look it up.", None)
    assert names(message) == ["get_time"]


@pytest.mark.parametrize(("opener", "closer"), [(THINK, END_THINK), ("<think>", "</think>")])
@pytest.mark.parametrize("version", ["v11", "pre-v11"])
def test_a_call_quoted_in_model_opened_reasoning_stays_reasoning(
    opener: str, closer: str, version: str
) -> None:
    # the model wrote the opener itself: only its close ends the block (issue #15)
    thought = "I could write " + calls_of(version) + " here."
    message = verified(opener + thought + closer + "Done." + EOS)
    assert (message.reasoning_content, message.content) == (thought, "Done.")
    assert message.tool_calls == () and message.errors == ()


@pytest.mark.parametrize("version", ["v11", "pre-v11"])
def test_a_call_ends_model_opened_reasoning_never_closed(version: str) -> None:
    # no close after it up to the end of the turn: the call is a call, not reasoning
    message = verified(THINK + "Look it up. " + calls_of(version) + EOS)
    assert (message.reasoning_content, message.content) == ("Look it up.", None)
    assert names(message) == ["get_time"] and message.errors == ()


def test_the_think_spelling_of_older_templates() -> None:
    message = verified("<think>Hmm.</think>Answer." + call("get_time", {"zone": "UTC"}) + EOS)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Answer.")
    assert names(message) == ["get_time"]


@pytest.mark.parametrize("redundant", [THINK, "<think>", "\n" + THINK])
def test_a_redundant_opener_after_a_pre_opened_prompt_is_dropped(redundant: str) -> None:
    closer = "</think>" if "<" in redundant else END_THINK
    message = verified(redundant + "Hmm." + closer + "Answer." + EOS, PROMPT + THINK)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Answer.")


def test_think_mid_content_is_content() -> None:
    message = verified("Use <think> tags or [THINK]." + EOS)
    assert message.content == "Use <think> tags or [THINK]." and message.reasoning_content is None


def test_markers_quoted_in_closed_reasoning_stay_reasoning() -> None:
    thought = f"I could write {TOOL_CALLS} then a name, or {ARGS} {{ or {TOOL_CALLS}[ later."
    message = verified(THINK + thought + END_THINK + "Done." + EOS)
    assert message.reasoning_content == thought and message.content == "Done."


# -- calls ---------------------------------------------------------------------------------------


def test_content_before_between_and_after_calls() -> None:
    text = ("A " + call("get_time", {"zone": "UTC"}) + " B " + call("get_weather", {})
            + call("get_weather_forecast", {}) + " C" + EOS)  # fmt: skip
    message = verified(text)
    assert names(message) == ["get_time", "get_weather", "get_weather_forecast"]
    assert message.content == "A  B  C"


def test_typed_values_keep_their_json_types() -> None:
    arguments = {"days": 3, "ratio": -1.5e3, "hourly": True, "unit": None, "list": [1, "two"],
                 "options": {"a": {"b": False}}, "zone": "42",
                 "n": 12345678901234567890}  # fmt: skip
    for text in (call("set_config", arguments),
                 listed({"name": "set_config", "arguments": arguments})):  # fmt: skip
        (result,) = verified(text, tools=None).tool_calls
        assert result.arguments == arguments and json.loads(result.arguments_json) == arguments


@pytest.mark.parametrize("marker", FORMAT.reserved)
def test_every_marker_inside_a_string_argument_of_a_pre_v11_list(marker: str) -> None:
    content = f"x = '{marker}'\n{marker}]}}"
    arguments = {"path": "/p", "content": content}
    (result,) = verified(listed({"name": "write_file", "arguments": arguments}) + EOS).tool_calls
    assert result.arguments == arguments


def test_a_pre_v11_list_never_announces_the_shorter_name() -> None:
    text = listed({"name": "get_weather_forecast", "arguments": {}},
                  {"name": "get_weather", "arguments": {}})  # fmt: skip
    starts = [e.name for e in stream(FORMAT, list(text), TOOLS).events
              if isinstance(e, ToolCallStart)]  # fmt: skip
    assert starts == ["get_weather_forecast", "get_weather"]
    verified(text)


def test_undeclared_tool_is_reported_and_the_others_kept() -> None:
    for text in (call("get_time", {}) + call("launch", {"n": 3}) + call("get_weather", {}),
                 listed({"name": "get_time", "arguments": {}}, {"name": "launch", "arguments": {}},
                        {"name": "get_weather", "arguments": {}})):  # fmt: skip
        message = verified(text + EOS)
        assert names(message) == ["get_time", "get_weather"]
        (error,) = message.errors
        assert error.code == "unknown_tool" and "launch" in error.message


def test_malformed_v11_call_is_skipped_to_the_next_call() -> None:
    bad = f'{TOOL_CALLS}get_weather{ARGS}{{"location": nope}}'
    message = verified(bad + call("get_time", {}) + EOS)
    assert names(message) == ["get_time"]
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == bad


# -- truncation ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v11", "pre-v11"])
def test_truncation_at_every_position_with_a_call_id_or_a_pre_v11_list(version: str) -> None:
    """The spellings the renderer does not write (v11 without ids: tests/test_families)."""
    first, second = ("get_time", {"zone": "UTC"}), ("write_file", {"content": '<y> "z"'})
    if version == "v11":
        calls = call(*first) + call(*second, call_id="id9")
    else:
        calls = listed(*({"name": name, "arguments": args} for name, args in (first, second)))
    text = THINK + "R" + END_THINK + "Hi " + calls + EOS
    full = Case(text, normalize_tools(TOOLS), PROMPT, None, expected=verified(text).to_dict())
    reference = stream(FORMAT, [text], TOOLS, PROMPT)
    ends = completion_offsets(reference.tree)  # pre-v11: both at the list's `]`
    opened = text.index(TOOL_CALLS) + len(TOOL_CALLS)
    for cut in range(len(text)):
        prefix = text[:cut]
        case = Case(prefix, full.tools, PROMPT, None, truncates=full)
        whole = stream(FORMAT, [prefix], TOOLS, PROMPT)
        chunks = split_at(prefix, range(1 + cut % 4, cut, 1 + cut % 4))
        trial = Trial(FORMAT, case, chunks, whole, stream(FORMAT, chunks, TOOLS, PROMPT), reference)
        for prop in PROPERTIES:
            assert prop.check(trial) is None, (cut, prop.name, prop.check(trial))
        message = whole.message
        assert names(message) == ["get_time", "write_file"][: sum(e <= cut for e in ends)]
        if opened <= cut < ends[0]:
            (error,) = message.errors
            assert error.code == "truncated" and error.raw == text[opened - len(TOOL_CALLS) : cut]
        assert all(e.code == "truncated" for e in message.errors)


ISSUE_15 = [
    # quoted markers in the result: the values are pinned by the unit tests above
    ('[THINK]I could write [TOOL_CALLS]get_time[ARGS]{"zone": "UTC"} now.[/THINK]No.' + EOS,
     PROMPT, None),
    ('<think>Hmm.</think>Ok.[TOOL_CALLS]get_time[ARGS]{"zone": "UTC"}' + EOS, PROMPT,
     {"reasoning_content": "Hmm.", "content": "Ok.",
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}]}),
    ('[THINK]Look.[TOOL_CALLS]get_time[ARGS]{"zone": "UTC"}' + EOS, PROMPT + THINK,
     {"reasoning_content": "Look.", "content": None,
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip
test_issue_15_examples_under_random_chunkings = example_tests(FORMAT, ISSUE_15, tools=TOOLS)
