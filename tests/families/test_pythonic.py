"""The pythonic formats (FORMATS.md §6.7): `pythonic` (Llama 3.2), `llama-4`, `lfm2`."""

from __future__ import annotations

from typing import Any

import pytest

from protocall import formats
from protocall.events import ToolCallStart
from protocall.formats import Format
from protocall.message import Message
from protocall.testing import Case, Trial, stream, verify
from protocall.testing.mutations import truncated
from protocall.testing.properties import first_problem
from protocall.tools import normalize_tools

PYTHONIC, LLAMA_4, LFM2 = (formats.get(n) for n in ("pythonic", "llama-4", "lfm2"))
ALL = [PYTHONIC, LLAMA_4, LFM2]
START, END = "<|tool_call_start|>", "<|tool_call_end|>"
PY_START, PY_END = "<|python_start|>", "<|python_end|>"


def function(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


STRING = {"type": "string"}
TOOLS = [
    function("get_weather", location=STRING, days={"type": "integer"}),
    function("get_weather_forecast", location=STRING),
    function("get_time", zone=STRING),
    function("write_file", path=STRING, content=STRING),
    function("read-file", path=STRING),
    function("fs.read", path=STRING),
]


def parse(fmt: Format, text: str, prompt: str | None = None, tools: Any = TOOLS) -> Message:
    """`text` parsed every way (`verify`: one chunk, per character, in 3-character and
    random chunkings, each call whole), every property of the testing kit holding."""
    return verify(fmt, text, prompt, tools=tools)


def calls_of(message: Message) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]


# -- FORMATS.md §6.16 (6.7) --------------------------------------------------------------------

EXAMPLE = '[get_weather(location="Paris", days=3), get_time(zone="Europe/Paris")]'
EXPECTED = {
    "reasoning_content": None,
    "content": None,
    "tool_calls": [
        {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}},
        {"name": "get_time", "arguments": {"zone": "Europe/Paris"}},
    ],
}
EXAMPLES = [
    (PYTHONIC, EXAMPLE + "<|eot_id|>"),
    (LLAMA_4, EXAMPLE + "<|eot|>"),
    (LLAMA_4, PY_START + EXAMPLE + PY_END + "<|eot|>"),
    (LFM2, START + EXAMPLE + END + "<|im_end|>"),
]
PYTHONIC_EXAMPLES, LLAMA_4_EXAMPLES, LFM2_EXAMPLES = (
    [(text, None, EXPECTED) for of, text in EXAMPLES if of is fmt] for fmt in ALL
)  # with the generic tests in tests/test_families


@pytest.mark.parametrize(("fmt", "text"), EXAMPLES, ids=lambda v: getattr(v, "name", "text"))
def test_formats_md_example(fmt: Format, text: str) -> None:
    message = parse(fmt, text)
    assert message.to_dict() == EXPECTED and message.errors == ()
    assert message.tool_calls[0].arguments_json == '{"location": "Paris", "days": 3}'


def test_arguments_stream_before_the_call_closes() -> None:
    session = PYTHONIC.parser(TOOLS, seed=0)
    events = session.feed('[write_file(path="a.py", content="print(1)')
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["write_file"]
    assert session.message.tool_calls == ()
    session.feed('")]')
    session.finish()
    assert calls_of(session.message)[0]["arguments"] == {"path": "a.py", "content": "print(1)"}


# -- where a list counts -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [PYTHONIC, LLAMA_4])
def test_bare_list_after_and_before_content(fmt: Format) -> None:
    message = parse(fmt, 'Let me check. [get_time(zone="UTC")] Done.')
    assert message.content == "Let me check.  Done."
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]


@pytest.mark.parametrize(
    "prose",
    [
        "See [the docs](https://x.y) and [1, 2, 3].",
        "A list: [get_time] or [get_time (x)] or [get_time(zone)] or [print(x=1)].",
        "Unclosed [get_weather(",
        "[",
    ],
)
@pytest.mark.parametrize("fmt", [PYTHONIC, LLAMA_4])
def test_brackets_that_head_no_declared_call_stay_text(fmt: Format, prose: str) -> None:
    message = parse(fmt, prose)
    assert message.content == prose and message.tool_calls == () and message.errors == ()


def test_any_name_heads_a_bare_call_when_no_tools_are_declared() -> None:
    message = parse(PYTHONIC, "[print(x=1)]", tools=None)
    assert calls_of(message) == [{"name": "print", "arguments": {"x": 1}}]


def test_lfm2_counts_calls_only_inside_its_section() -> None:
    text = 'Bare [get_time(zone="UTC")] is text. ' + START + '[get_time(zone="UTC")]' + END
    message = parse(LFM2, text + " After.<|im_end|>")
    assert message.content == 'Bare [get_time(zone="UTC")] is text.  After.'
    assert [c.name for c in message.tool_calls] == ["get_time"]


def test_llama_4_python_start_without_end_and_with_whitespace() -> None:
    message = parse(LLAMA_4, PY_START + ' \n[get_time(zone="UTC"), ]\n<|eot|>')
    assert calls_of(message) == [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert message.content is None and message.errors == ()


def test_a_list_without_its_bracket_is_malformed_and_calls_nothing() -> None:
    message = parse(PYTHONIC, '[get_time(zone="UTC")<|eot_id|>')
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == '[get_time(zone="UTC")'


# -- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["read-file", "fs.read"])
@pytest.mark.parametrize("fmt", ALL)
def test_hyphenated_and_dotted_names(fmt: Format, name: str) -> None:
    text = f'[{name}(path="/tmp/x")]'
    text = START + text + END if fmt is LFM2 else text
    message = parse(fmt, text)
    assert calls_of(message) == [{"name": name, "arguments": {"path": "/tmp/x"}}]


def test_undeclared_bare_call_stays_text_and_earlier_calls_are_kept() -> None:
    assert parse(PYTHONIC, "[launch(count=3)]").content == "[launch(count=3)]"
    message = parse(PYTHONIC, '[get_time(zone="UTC"), launch(count=3)]')
    assert [c.name for c in message.tool_calls] == ["get_time"]
    (error,) = message.errors
    assert error.code == "unknown_tool" and error.raw == "launch(count=3)"


def test_undeclared_call_in_a_section_is_reported() -> None:
    message = parse(LFM2, START + "[launch(count=3)]" + END + "<|im_end|>")
    assert message.tool_calls == ()
    assert [e.code for e in message.errors] == ["unknown_tool"]


# -- values ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ALL)
def test_typed_values_and_both_literal_styles(fmt: Format) -> None:
    text = ("[set_config(options={'a': [1, 2.5, None, True]}, flag=false, n=-0x10, "
            "s='it\\'s', t=\"\"\"two\nlines\"\"\", u=(1, 2), v=null, w=1_000)]")  # fmt: skip
    text = START + text + END if fmt is LFM2 else text
    (call,) = parse(fmt, text, tools=None).tool_calls
    assert call.arguments == {
        "options": {"a": [1, 2.5, None, True]}, "flag": False, "n": -16, "s": "it's",
        "t": "two\nlines", "u": [1, 2], "v": None, "w": 1000,
    }  # fmt: skip


# -- reasoning (LFM2.5) ----------------------------------------------------------------------------


def test_lfm2_reasoning_then_content_and_a_call() -> None:
    text = "<think>Need the time.</think>Checking." + START + '[get_time(zone="UTC")]' + END
    message = parse(LFM2, text + "<|im_end|>", "<|im_start|>assistant\n")
    assert (message.reasoning_content, message.content) == ("Need the time.", "Checking.")
    assert [c.name for c in message.tool_calls] == ["get_time"]


def test_lfm2_section_ends_model_opened_reasoning_never_closed() -> None:
    # LFM2.5 writes `<think>` itself: a section with no `</think>` after it is a call
    message = parse(LFM2, "<think>Need the time." + START + '[get_time(zone="UTC")]' + END)
    assert (message.reasoning_content, message.content) == ("Need the time.", None)
    assert [c.name for c in message.tool_calls] == ["get_time"] and message.errors == ()


def test_lfm2_section_begin_quoted_in_reasoning_stays_reasoning() -> None:
    message = parse(LFM2, f"<think>I will write {START} then [f(x=1)].</think>Ok.")
    assert message.reasoning_content == f"I will write {START} then [f(x=1)]."
    assert message.content == "Ok." and message.tool_calls == ()


@pytest.mark.parametrize("fmt", ALL)
def test_generation_prompts_start_in_content(fmt: Format) -> None:
    (prompt,) = fmt.prompts.values()
    assert fmt.start_state(prompt) is None
    assert parse(fmt, "Hi." + fmt.reserved[-1], prompt).content == "Hi."


# -- truncation ------------------------------------------------------------------------------------


def test_truncation_at_every_position_of_llama_4_s_python_block() -> None:
    """Every prefix keeps the kit's truncation properties: exactly the calls whose node
    closed before the cut are complete, only `truncated` errors, no marker in content.
    (The spellings the renderers write: tests/test_families.)"""
    fmt = LLAMA_4
    text = PY_START + '[get_time(zone="UTC"), get_weather(location="Paris")]' + PY_END
    whole = stream(fmt, [text], TOOLS)
    assert whole.message.errors == ()
    full = Case(text, normalize_tools(TOOLS), None, None, expected=whole.message.to_dict())
    for cut in range(len(text)):
        case = truncated(full, cut)
        one = stream(fmt, [case.text], TOOLS)
        chunks = [case.text[i : i + 1 + cut % 4] for i in range(0, cut, 1 + cut % 4)]
        trial = Trial(fmt, case, chunks, one, stream(fmt, chunks, TOOLS), whole)
        assert first_problem(trial) is None, (cut, first_problem(trial))


def test_call_cut_off_inside_a_value_is_a_truncated_error() -> None:
    text = '[get_time(zone="UTC"), get_weather(location="Par'
    message = stream(PYTHONIC, [text], TOOLS).message
    assert message.tool_calls == ()  # the list never closed: none of its calls is complete
    (error,) = message.errors
    assert error.code == "truncated" and "get_weather" in error.message
    assert error.raw == text


def test_a_malformed_call_is_reported_and_passed_through_alone() -> None:
    text = '[get_time(zone="UTC"), get_weather("Paris")] after<|eot_id|>'
    message = parse(PYTHONIC, text)
    assert [call.name for call in message.tool_calls] == ["get_time"]  # judged on its own
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == 'get_weather("Paris")'
    assert message.content == 'get_weather("Paris") after'


def test_a_call_whose_brackets_do_not_close_fails_the_whole_list() -> None:
    text = '[get_time(zone="UTC"), get_weather(location=("Paris")] after<|eot_id|>'
    message = parse(PYTHONIC, text)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == text[: -len("<|eot_id|>")]


# -- the testing kit -------------------------------------------------------------------------------
