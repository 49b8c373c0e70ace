"""The `kimi-k2` format (FORMATS.md §2): K2 / K2-Instruct / K2-Thinking / K2.5 / K2.6."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.events import (
    ContentDelta,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from protocall.message import Message
from protocall.testing import Outcome, chunkings, split_at, stream, verify

KIMI = formats.get("kimi-k2")
THINKING = "<|im_assistant|>assistant<|im_middle|><think>"  # K2.5 / K2.6, thinking on
NOT_THINKING = "<|im_assistant|>assistant<|im_middle|><think></think>"
INSTRUCT = "<|im_assistant|>assistant<|im_middle|>"  # K2-Instruct, K2-Thinking

BEGIN, END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CALL, ARGS, CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
EOT = "<|im_end|>"
MARKERS = (BEGIN, END, "<|tool_call_section_begin|>", "<|tool_call_section_end|>", CALL, ARGS,
           CALL_END, EOT, "<|im_middle|>", "<|im_system|>", "<think>", "</think>")  # fmt: skip


def function(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


STRING = {"type": "string"}
TOOLS = [
    function("get_weather", {"location": STRING, "days": {"type": "integer"},
                             "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                             "hourly": {"type": "boolean"}}),
    function("get_weather_forecast", {"location": STRING}),
    function("get_time", {"zone": STRING}),
    function("write_file", {"path": STRING, "content": STRING}),
    function("set_config", {"options": {"type": "object"}}),
]  # fmt: skip


def call(name: str, arguments: dict[str, Any], index: int = 0) -> str:
    payload = json.dumps(arguments, ensure_ascii=False)
    return f"{CALL}functions.{name}:{index}{ARGS}{payload}{CALL_END}"


def section(*calls: str) -> str:
    return BEGIN + "".join(calls) + END


def calls_of(message: Message) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]


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


def whole_calls(text: str) -> list[str]:
    """`text` cut so that each section (or bare call) arrives in one delta."""
    cuts = []
    for marker in (BEGIN, END, CALL_END):
        at = text.find(marker)
        while at >= 0:
            cuts.append(at + len(marker) if marker != BEGIN else at)
            at = text.find(marker, at + 1)
    if BEGIN in text:
        cuts = [c for c in cuts if not text.find(BEGIN) < c < text.find(END)]
    return split_at(text, cuts)


def parse(text: str, prompt: str | None = None, tools: Any = TOOLS) -> Message:
    """`text` parsed every way (`verify`: one chunk, per character, random chunkings, …),
    and with each section (or bare call) in one delta."""
    return verify(KIMI, text, prompt, tools=tools, chunkings=[whole_calls(text)])


# -- FORMATS.md §2 examples ----------------------------------------------------------------

EXAMPLES = [
    ("Hello! How can I help you today?<|im_end|>", INSTRUCT,
     {"reasoning_content": None, "content": "Hello! How can I help you today?", "tool_calls": []},
     []),
    ("<think>The user wants the Paris forecast.</think>Let me check." + section(call(
        "get_weather", {"location": "Paris", "days": 3})) + EOT, INSTRUCT,
     {"reasoning_content": "The user wants the Paris forecast.", "content": "Let me check.",
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}]},
     ["functions.get_weather:0"]),
    ('<think>Two lookups.</think><|tool_calls_section_begin|><|tool_call_begin|>functions.get_'
     'weather:0<|tool_call_argument_begin|>{"location":"Paris"}<|tool_call_end|><|tool_call_begi'
     'n|>functions.get_time:1<|tool_call_argument_begin|>{"zone":"Europe/Paris"}<|tool_call_end|'
     '><|tool_calls_section_end|><|im_end|>', None,
     {"reasoning_content": "Two lookups.", "content": None, "tool_calls": [
         {"name": "get_weather", "arguments": {"location": "Paris"}},
         {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]},
     ["functions.get_weather:0", "functions.get_time:1"]),
    ("I need the weather first. " + section(call("get_weather", {"location": "Paris"}, 2)) + EOT,
     THINKING,
     {"reasoning_content": "I need the weather first.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]},
     ["functions.get_weather:2"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "prompt", "expected", "ids"), EXAMPLES)
def test_formats_md_examples(
    text: str, prompt: str | None, expected: dict[str, Any], ids: list[str]
) -> None:
    message = parse(text, prompt)
    assert message.to_dict() == expected
    assert [c.id for c in message.tool_calls] == ids
    assert message.errors == ()


def test_event_sequence_announces_the_final_name_with_the_model_id() -> None:
    text = EXAMPLES[1][0]
    events = stream(KIMI, list(text), TOOLS).merged_events
    kinds = [type(e) for e in events]
    assert kinds == [ReasoningDelta, ContentDelta, ToolCallStart, ToolCallArgumentsDelta,
                     ToolCallEnd]  # fmt: skip
    start = events[2]
    assert isinstance(start, ToolCallStart)
    assert (start.index, start.id, start.name) == (0, "functions.get_weather:0", "get_weather")


# -- ids, names, sections --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call_id", "name"),
    [
        ("functions.get_weather:0", "get_weather"),
        ("functions.get_weather:12345678901234567890", "get_weather"),
        ("get_weather:7", "get_weather"),
        ("functions.ns:get_weather:3", "ns:get_weather"),
        ("functions.mcp.fs.read:1", "mcp.fs.read"),
    ],
)
def test_name_derived_from_the_id_and_the_id_kept(call_id: str, name: str) -> None:
    text = f"{BEGIN}{CALL}{call_id}{ARGS}{{}}{CALL_END}{END}"
    (done,) = parse(text, tools=None).tool_calls
    assert (done.id, done.name, done.arguments) == (call_id, name, {})


def test_an_id_without_an_index_names_only_a_declared_tool() -> None:
    text = f"{BEGIN}{CALL}functions.get_weather{ARGS}{{}}{CALL_END}{END}"
    (done,) = parse(text).tool_calls
    assert (done.id, done.name, done.arguments) == ("functions.get_weather", "get_weather", {})


@pytest.mark.parametrize("tools", [TOOLS, None])
@pytest.mark.parametrize("call_id", ["functions.invalid.0", "functions.launch", "get_weather"])
def test_an_id_that_names_no_tool_is_a_malformed_call_never_a_call(
    call_id: str, tools: Any
) -> None:
    bad = f'{CALL}{call_id} {ARGS}{{"city": "Beijing"}}{CALL_END}'
    text = "Help. " + section(bad, call("get_time", {"zone": "UTC"}, 1)) + EOT
    message = parse(text, tools=tools)
    assert [c.name for c in message.tool_calls] == ["get_time"]
    (error,) = message.errors
    assert error.code == "malformed" and f"not `{call_id}`" in error.message
    assert error.raw == BEGIN + bad
    without = stream(KIMI, [text], tools, passthrough_malformed=False).message
    assert without.content == "Help." and without.errors == message.errors


def test_a_bare_call_with_an_id_that_names_no_tool_is_malformed_too() -> None:
    text = f"Use {CALL}get_weather{ARGS}{{}}{CALL_END} like this."
    message = parse(text)
    (error,) = message.errors
    assert message.tool_calls == () and error.code == "malformed"
    assert message.content == text  # passed through, as the model wrote it


@pytest.mark.parametrize("stray", [END, "<|tool_call_section_end|>", ARGS, CALL_END])
def test_a_stray_closing_or_separating_marker_is_dropped(stray: str) -> None:
    for text, prompt in ((f"Hi{stray} there{EOT}", INSTRUCT),
                         (f"<think>r</think>Hi {stray}there{EOT}", INSTRUCT)):  # fmt: skip
        message = parse(text, prompt)
        assert (message.content, message.tool_calls, message.errors) == ("Hi there", (), ())
    after = parse(section(call("get_time", {"zone": "UTC"})) + stray + " Done." + EOT)
    assert after.content == "Done." and len(after.tool_calls) == 1


def test_a_stray_marker_quoted_in_reasoning_stays_reasoning() -> None:
    message = parse(f"<think>Close with {END} or {CALL_END}.</think>Ok.{EOT}")
    assert message.reasoning_content == f"Close with {END} or {CALL_END}."
    assert message.content == "Ok."


@pytest.mark.parametrize("inside", ["", "\n", " nothing to call "])
def test_an_empty_section_is_dropped(inside: str) -> None:
    for begin, end in ((BEGIN, END), ("<|tool_call_section_begin|>", "<|tool_call_section_end|>")):
        message = parse(f"Reasoning. {begin}{inside}{end} Done.{EOT}")
        assert (message.content, message.tool_calls, message.errors) == (
            "Reasoning.  Done.",
            (),
            (),
        )


def test_noise_between_section_markers_is_no_content() -> None:
    first, second = call("get_time", {"zone": "UTC"}), call("get_weather", {"location": "Oslo"}, 1)
    text = f"Before. {BEGIN} spurious noise {first} between {second} trailing {END} After.{EOT}"
    message = parse(text)
    assert message.content == "Before.  After."
    assert [c.name for c in message.tool_calls] == ["get_time", "get_weather"]
    assert message.errors == ()


NOISE = st.text(st.sampled_from("ab <|>_\n"), max_size=12).filter(
    lambda text: not any(marker in text for marker in MARKERS)
)


@given(st.lists(NOISE, min_size=3, max_size=3), st.data())
@settings(max_examples=30, deadline=None)
def test_any_noise_between_section_markers_is_no_content(
    noise: list[str], data: st.DataObject
) -> None:
    first, second = call("get_time", {"zone": "UTC"}), call("get_weather", {"location": "Oslo"}, 1)
    text = f"Before.{BEGIN}{noise[0]}{first}{noise[1]}{second}{noise[2]}{END}After.{EOT}"
    message = verify(KIMI, text, tools=TOOLS, chunkings=[data.draw(chunkings(text))])
    assert (message.content, message.errors) == ("Before.After.", ())
    assert [c.name for c in message.tool_calls] == ["get_time", "get_weather"]


def test_text_after_the_last_call_of_an_unclosed_section_is_content() -> None:
    text = BEGIN + call("get_time", {"zone": "UTC"}) + " The time is known." + EOT
    message = parse(text)
    assert message.content == "The time is known." and len(message.tool_calls) == 1


def test_a_section_opener_before_prose_stays_text() -> None:
    prose = f"Open with {BEGIN} then prose, and {BEGIN} again"
    message = parse(prose + EOT)
    assert (message.content, message.errors) == (prose, ())


def test_singular_section_spelling() -> None:
    text = (
        "<|tool_call_section_begin|>"
        + call("get_time", {"zone": "UTC"})
        + "<|tool_call_section_end|>"
    )
    message = parse(text)
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert message.content is None


def test_bare_call_without_a_section() -> None:
    text = (
        "Checking. "
        + call("get_time", {"zone": "UTC"})
        + call("get_weather", {"location": "Oslo"}, 1)
        + EOT
    )
    message = parse(text)
    assert [c.name for c in message.tool_calls] == ["get_time", "get_weather"]
    assert message.content == "Checking."


def test_missing_section_end_keeps_the_calls() -> None:
    text = BEGIN + call("get_time", {"zone": "UTC"}) + EOT
    message = parse(text)
    assert [c.name for c in message.tool_calls] == ["get_time"]
    assert message.content is None and message.errors == ()


def test_whitespace_around_markers() -> None:
    text = (
        f"Sure.\n{BEGIN}\n {CALL} functions.get_weather:0 \n{ARGS} \n"
        f'{{"location": "Paris"}}\n {CALL_END}\n{CALL}functions.get_time:1{ARGS}'
        f'{{"zone": "UTC"}}{CALL_END}\n{END}\n{EOT}'
    )
    message = parse(text)
    assert message.content == "Sure."
    assert calls_of(message) == [
        {"name": "get_weather", "arguments": {"location": "Paris"}},
        {"name": "get_time", "arguments": {"zone": "UTC"}},
    ]


def test_parallel_calls_and_content_before_between_and_after() -> None:
    two = section(call("get_time", {"zone": "UTC"}), call("get_weather", {"location": "Rome"}, 1))
    one = section(call("get_weather_forecast", {"location": "Oslo"}, 2))
    text = "Before. " + two + " Between. " + one + " After." + EOT
    message = parse(text)
    assert message.content == "Before.  Between.  After."
    assert [c.name for c in message.tool_calls] == [
        "get_time",
        "get_weather",
        "get_weather_forecast",
    ]
    ids = ["functions.get_time:0", "functions.get_weather:1", "functions.get_weather_forecast:2"]
    assert [c.id for c in message.tool_calls] == ids


def test_empty_arguments() -> None:
    text = section(f"{CALL}functions.get_time:0{ARGS}{{}}{CALL_END}") + EOT
    (done,) = parse(text).tool_calls
    assert (done.arguments, done.arguments_json) == ({}, "{}")


def test_cjk_and_emoji() -> None:
    arguments = {"location": "東京 🌸", "note": "晴れ ☀️ \u00e9"}
    text = (
        "<think>天気を調べる 🤔</think>了解です 👍" + section(call("get_weather", arguments)) + EOT
    )
    message = parse(text)
    assert message.reasoning_content == "天気を調べる 🤔" and message.content == "了解です 👍"
    assert message.tool_calls[0].arguments == arguments


def test_typed_values_keep_their_json_types() -> None:
    arguments = {
        "days": 3, "ratio": -1.5e3, "hourly": True, "unit": None, "list": [1, "two", [3.0]],
        "options": {"a": {"b": False}}, "zone": "42", "code": "null", "n": 12345678901234567890,
    }  # fmt: skip
    (done,) = parse(section(call("set_config", arguments)), tools=None).tool_calls
    assert done.arguments == arguments
    assert json.loads(done.arguments_json) == arguments


def test_nullable_union_accepts_null_and_string() -> None:
    tools = [function("get_time", {"zone": {"type": ["string", "null"]}})]
    for value in (None, "null", "UTC"):
        (done,) = parse(section(call("get_time", {"zone": value})), tools=tools).tool_calls
        assert done.arguments == {"zone": value} and done.validation_errors == ()


# -- reasoning ------------------------------------------------------------------------------


def test_thinking_prompt_pre_opens_reasoning() -> None:
    message = parse("Basic.</think>Paris.<|im_end|>", THINKING)
    assert (message.reasoning_content, message.content) == ("Basic.", "Paris.")


@pytest.mark.parametrize("prompt", [NOT_THINKING, INSTRUCT, None])
def test_prompts_without_an_open_block_start_in_content(prompt: str | None) -> None:
    message = parse("Paris.<|im_end|>", prompt)
    assert (message.reasoning_content, message.content) == (None, "Paris.")


def test_k2_thinking_opens_reasoning_itself() -> None:
    message = parse("<think>Hmm.</think>\n\nParis.<|im_end|>", INSTRUCT)
    assert (message.reasoning_content, message.content) == ("Hmm.", "Paris.")


@pytest.mark.parametrize(
    ("prefix", "prompt"),
    [("", THINKING), ("<think>", INSTRUCT)],
)
@pytest.mark.parametrize("opener", ["section", "bare"])
def test_call_inside_an_unclosed_reasoning_block_ends_it(
    prefix: str, prompt: str, opener: str
) -> None:
    the_call = call("get_weather", {"location": "Paris"})
    text = (
        prefix + "Need weather.\n" + (section(the_call) if opener == "section" else the_call) + EOT
    )
    message = parse(text, prompt)
    assert message.reasoning_content == "Need weather."
    assert message.content is None
    assert calls_of(message) == [{"name": "get_weather", "arguments": {"location": "Paris"}}]


def test_markers_quoted_in_a_closed_reasoning_block_stay_reasoning() -> None:
    quoted = f"I could emit {BEGIN} and then {CALL} functions.x later, or {CALL}{ARGS}."
    message = parse(f"<think>{quoted}</think>Done.{EOT}")
    assert message.reasoning_content == quoted
    assert message.content == "Done." and message.tool_calls == () and message.errors == ()


def test_markers_quoted_in_content_prose_stay_content() -> None:
    prose = f"Write {BEGIN} first, then {CALL}, e.g. {CALL} functions.get_weather:0 !"
    message = parse(prose + EOT)
    assert message.content == prose and message.tool_calls == () and message.errors == ()


# -- the `(no content)` placeholder and stop tokens --------------------------------------------


def test_no_content_placeholder_before_a_call_is_dropped() -> None:
    for the_call in (section(call("get_time", {"zone": "UTC"})), call("get_time", {"zone": "UTC"})):
        message = parse("(no content)" + the_call + EOT)
        assert message.content is None and [c.name for c in message.tool_calls] == ["get_time"]


def test_no_content_elsewhere_is_text() -> None:
    assert parse("(no content)<|im_end|>").content == "(no content)"
    text = "A (no content) B" + section(call("get_time", {"zone": "UTC"})) + " (no content)"
    assert parse(text).content == "A (no content) B (no content)"


@pytest.mark.parametrize("stop", ["<|im_end|>", "<|im_middle|>", "<|im_system|>"])
def test_stop_tokens_are_never_content(stop: str) -> None:
    message = parse("Hi." + stop)
    assert message.content == "Hi."
    message = parse("Still thinking" + stop, THINKING)
    assert message.reasoning_content == "Still thinking" and message.content is None


# -- names and tools -------------------------------------------------------------------------


def test_undeclared_tool_is_an_error_without_a_completed_call() -> None:
    text = "Ok." + section(
        call("launch_rockets", {"count": 3}), call("get_time", {"zone": "UTC"}, 1)
    )
    outcome = stream(KIMI, list(text), TOOLS)
    errors = outcome.message.errors
    assert [e.code for e in errors] == ["unknown_tool"] and "launch_rockets" in errors[0].message
    assert [c.name for c in outcome.message.tool_calls] == ["get_time"]
    assert [e.name for e in outcome.events if isinstance(e, ToolCallStart)] == ["get_time"]
    check_invariants(outcome)


# -- truncation ------------------------------------------------------------------------------


def test_truncation_at_every_position_and_inside_special_tokens() -> None:
    """(The generic cuts: tests/test_families; here also the cuts inside a token.)"""
    first = call("get_time", {"zone": "UTC"}, 0)
    second = call("get_weather", {"location": "Paris", "days": 2}, 1)
    text = "Hi " + BEGIN + first + second + END + EOT
    at = len("Hi ")
    # Per call: where its raw text starts, the first cut that leaves it open, its end. A
    # cut-off `<|tool_call_` might still be a (singular) section end, which opens nothing.
    spans = [(at, at + len(BEGIN), at + len(BEGIN) + len(first))]
    spans.append((spans[0][2], spans[0][2] + len("<|tool_call_b"), spans[0][2] + len(second)))
    tokens = [(at, at + len(BEGIN)), (len(text) - len(EOT), len(text))]
    for end in range(len(text) + 1):
        outcome = stream(KIMI, [text[:end]], TOOLS)
        check_invariants(outcome)
        message = outcome.message
        done = sum(end >= finished for _, _, finished in spans)
        assert [c.name for c in message.tool_calls] == ["get_time", "get_weather"][:done], end
        open_call = next((start for start, opened, finished in spans
                          if opened <= end < finished), None)  # fmt: skip
        partial = next((text[start:end] for start, stop in tokens if start < end < stop), None)
        if open_call is not None:
            (error,) = message.errors
            assert error.code == "truncated" and "tool" in error.message, end
            assert error.raw == text[open_call:end], end
            assert message.content == "Hi", end
            if end % 8 == 0:
                assert stream(KIMI, list(text[:end]), TOOLS).message == message
        elif partial is not None:
            # Cut inside a special token, as no tokenizer cuts: the partial token is prose,
            # or, where it might open a call, a truncated one; it is never lost.
            raws = "".join(e.raw for e in message.errors if e.code == "truncated")
            assert len(message.errors) == bool(raws), end
            assert (message.content or "") + raws in ("Hi " + partial, "Hi" + partial), end
        else:
            assert message.errors == () and message.content == (text[: min(end, 2)] or None)


def test_truncated_error_names_the_call() -> None:
    text = BEGIN + call("get_weather", {"location": "Paris"})[:-20]
    (error,) = stream(KIMI, [text], TOOLS).message.errors
    assert error.code == "truncated" and "`get_weather`" in error.message
    assert error.raw == text


def test_truncated_reasoning_is_kept() -> None:
    message = parse("Still thinking about", THINKING)
    assert message.reasoning_content == "Still thinking about" and message.errors == ()


# -- issue #35: an undeclared or ill-formed call is kept whole; a section opener ends reasoning --


@pytest.mark.parametrize("in_section", [True, False])
@pytest.mark.parametrize(
    ("call_id", "code"),
    [("functions.get_time:0 x", "malformed"), ("functions.run shell:0", "unknown_tool")],
)
def test_an_id_with_spaces_is_reported_with_its_markers_whole(
    call_id: str, code: str, in_section: bool
) -> None:
    bad = f'{CALL}{call_id}{ARGS}{{"zone": "UTC"}}{CALL_END}'
    text = "Hi." + (section(bad) if in_section else bad) + EOT
    message = parse(text)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == code
    assert error.raw == (BEGIN + bad if in_section else bad)
    assert message.content == "Hi." + error.raw  # passed through as written, markers and all
    without = stream(KIMI, [text], TOOLS, passthrough_malformed=False).message
    assert without.content == "Hi." and without.errors == message.errors


def test_an_id_with_spaces_names_a_declared_tool() -> None:
    tools = [*TOOLS, function("run shell", {"cmd": STRING})]
    text = section(f'{CALL}functions.run shell:3 {ARGS}{{"cmd": "ls"}}{CALL_END}') + EOT
    (done,) = parse(text, tools=tools).tool_calls
    assert (done.id, done.name, done.arguments) == (
        "functions.run shell:3",
        "run shell",
        {"cmd": "ls"},
    )


@pytest.mark.parametrize(("prefix", "prompt"), [("", THINKING), ("<think>", INSTRUCT)])
@pytest.mark.parametrize(
    "after",
    [
        f"{BEGIN}garbage{END}",
        f"{BEGIN}{CALL}functions.get_time{ARGS}{{bad{CALL_END}{END}",
        f"{BEGIN}{CALL}functions.get_time:0 {ARGS}{{}}",
        f"<|tool_call_section_begin|>{CALL}functions.nope{ARGS}{{}}{CALL_END}",
        f"{CALL}functions.get_time:0{ARGS}{{",
        BEGIN,
    ],
)
def test_a_section_opener_ends_an_unclosed_reasoning_block_whatever_follows(
    prefix: str, prompt: str, after: str
) -> None:
    message = parse(prefix + "Reason. " + after + EOT, prompt)
    assert message.reasoning_content == "Reason."
    assert "Reason" not in (message.content or "")


def test_a_section_opener_quoted_in_a_block_that_closes_stays_reasoning() -> None:
    quoted = f"Maybe {BEGIN}garbage{END} later."
    for prefix, prompt in (("", THINKING), ("<think>", INSTRUCT)):
        message = parse(f"{prefix}{quoted}</think>Done.{EOT}", prompt)
        assert (message.reasoning_content, message.content) == (quoted, "Done.")


@pytest.mark.parametrize("call_id", ["oops no args", "functions.get_time:0", "functions.nope:1"])
def test_a_call_cut_short_by_its_closer_is_reported_whole(call_id: str) -> None:
    bad = f"{CALL}{call_id}{CALL_END}"
    for text, raw in ((f"Hi.{bad}{EOT}", bad), (f"Hi.{section(bad)}{EOT}", BEGIN + bad)):
        message = parse(text)
        (error,) = message.errors
        assert (error.code, error.raw, message.tool_calls) == ("malformed", raw, ())
        assert message.content == "Hi." + raw  # markers and all, never stripped of its closer
