"""The `olmo-3` format: pythonic calls, one per line, in `<function_calls>`."""

from __future__ import annotations

from typing import Any

from protocall import formats
from protocall.formats.olmo3 import FORMAT
from protocall.message import Message
from protocall.testing import verify

BEGIN, END, EOT = "<function_calls>", "</function_calls>", "<|im_end|>"
PROMPT, THINKING = "<|im_start|>assistant\n", "<|im_start|>assistant\n<think>"


PARAMETERS = {
    "get_weather": {"location": "string", "days": "integer"},
    "get_weather_forecast": {"location": "string"},
    "get_time": {"zone": "string"},
    "read-file": {"path": "string"},
}
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {key: {"type": kind} for key, kind in keys.items()}}}}
    for name, keys in PARAMETERS.items()
]  # fmt: skip


def parsed(text: str, prompt: str | None = PROMPT, tools: Any = TOOLS) -> Message:
    """`text` through every property of the testing kit, one-shot and streamed."""
    return verify(FORMAT, text, prompt, tools=tools)


def calls_of(message: Message) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]


TWO_CALLS = [
    {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}},
    {"name": "get_time", "arguments": {"zone": "UTC"}},
]
EXAMPLES = [
    (f'{BEGIN}get_weather(location="Paris", days=3)\nget_time(zone="UTC"){END}{EOT}', PROMPT,
     {"reasoning_content": None, "content": None, "tool_calls": TWO_CALLS}),
    (f'Let me check.{BEGIN}\nget_weather(location="Paris", days=3)\n  get_time(zone="UTC")\n'
     f"{END}{EOT}", PROMPT,
     {"reasoning_content": None, "content": "Let me check.", "tool_calls": TWO_CALLS}),
    (f'Need the time.</think>{BEGIN}get_time(zone="UTC"){END}{EOT}', THINKING,
     {"reasoning_content": "Need the time.", "content": None,
      "tool_calls": [TWO_CALLS[1]]}),
    ("<think>Easy.</think>Paris.<|im_end|>", PROMPT,
     {"reasoning_content": "Easy.", "content": "Paris.", "tool_calls": []}),
]  # fmt: skip


def test_registered() -> None:
    assert formats.get("olmo-3") is FORMAT


def test_json_literals_as_the_template_writes_them() -> None:
    text = f'{BEGIN}get_time(zone=null, a=true, b=false, c={{"k": [1, 2.5]}}, d="\\u00e9"){END}'
    (call,) = parsed(text, tools=None).tool_calls
    assert call.arguments == {"zone": None, "a": True, "b": False, "c": {"k": [1, 2.5]}, "d": "é"}


def test_python_literals_too() -> None:
    (call,) = parsed(f"{BEGIN}get_time(zone=None, a=True, b='x'){END}", tools=None).tool_calls
    assert call.arguments == {"zone": None, "a": True, "b": "x"}


def test_a_call_with_no_arguments_and_a_dashed_name() -> None:
    message = parsed(f'{BEGIN}get_time()\nread-file(path="/a"){END}')
    assert calls_of(message) == [{"name": "get_time", "arguments": {}},
                                 {"name": "read-file", "arguments": {"path": "/a"}}]  # fmt: skip


def test_the_section_marker_quoted_in_prose_stays_text() -> None:
    for text in (f"Wrap calls in {BEGIN} tags.", f"{BEGIN} is the tag", f"{BEGIN}get_time is"):
        message = parsed(text + EOT)
        assert (message.content, message.tool_calls, message.errors) == (text, (), ())


def test_content_after_the_section_is_content() -> None:
    message = parsed(f'{BEGIN}get_time(zone="UTC"){END} Done.{EOT}')
    assert message.content == "Done." and len(message.tool_calls) == 1


def test_missing_section_end_is_tolerated() -> None:
    message = parsed(f'{BEGIN}get_time(zone="UTC")\nget_weather(location="Oslo"){EOT}')
    assert [c.name for c in message.tool_calls] == ["get_time", "get_weather"]
    assert message.errors == ()


def test_calls_separated_by_any_whitespace() -> None:
    message = parsed(f'{BEGIN}get_time(zone="UTC") get_time(zone="CET")\n\n get_time(){END}')
    assert [c.arguments for c in message.tool_calls] == [{"zone": "UTC"}, {"zone": "CET"}, {}]
    assert message.content is None


def test_a_malformed_call_is_an_error_of_its_own_text() -> None:
    message = parsed(f"{BEGIN}get_time(zone=UTC){END}After.{EOT}")
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == "get_time(zone=UTC)"
    assert message.tool_calls == () and message.content == error.raw + "After."
    message = parsed(f'{BEGIN}get_time("CET")\nget_time(zone="UTC"){END}After.{EOT}')
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == 'get_time("CET")'
    assert len(message.tool_calls) == 1


def test_a_malformed_call_whose_brackets_do_not_close_is_skipped_to_the_section_end() -> None:
    message = parsed(f'{BEGIN}get_time(zone=("UTC"){END}After.{EOT}')
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == f'get_time(zone=("UTC"){END}'
    assert message.tool_calls == () and message.content == error.raw + "After."


def test_a_first_call_with_a_positional_argument_is_malformed_not_text() -> None:
    message = parsed(f'{BEGIN}get_time("UTC"){END}{EOT}')
    (error,) = message.errors
    assert error.code == "malformed" and error.raw == 'get_time("UTC")'
    assert message.tool_calls == () and message.content == error.raw


def test_a_key_holding_a_marker_makes_its_call_malformed() -> None:
    for marker in (BEGIN, END, EOT, "<think>", "</think>"):
        text = f'{BEGIN}get_time(k{marker}x=1)\nget_weather(location="Oslo"){END}{EOT}'
        message = parsed(text)
        assert message.errors[0].code == "malformed", marker
        assert message.errors[0].raw.startswith("get_time(k"), marker


def test_undeclared_tool_is_reported_never_called() -> None:
    message = parsed(f'{BEGIN}get_time(zone="UTC")\nlaunch(n=3){END}')
    assert [c.name for c in message.tool_calls] == ["get_time"]
    (error,) = message.errors
    assert error.code == "unknown_tool" and "launch" in error.message
