"""The `minimax-m1` format, from the shapes of vLLM's MiniMax-M1 tool parser tests (our own
strings), one-shot and streamed in every test."""

from __future__ import annotations

import json

import pytest
from peer_tools import TOOLS

from protocall.formats.minimax_m1 import FORMAT
from protocall.testing import example_tests, stream, verify
from protocall.tools import normalize_tools

DALLAS = {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}
MIAMI = {"name": "get_current_weather", "arguments": {"city": "Miami", "unit": "F"}}


def calls(*objects: object) -> str:
    return "<tool_calls>\n" + "".join(json.dumps(o) + "\n" for o in objects) + "</tool_calls>"


EXAMPLES = [
    ("Just text.", None, {"reasoning_content": None, "content": "Just text.", "tool_calls": []}),
    (calls(DALLAS), None, {"reasoning_content": None, "content": None, "tool_calls": [DALLAS]}),
    (f"Checking both. {calls(DALLAS, MIAMI)}<end_of_sentence>", None, {
        "reasoning_content": None, "content": "Checking both.", "tool_calls": [DALLAS, MIAMI]}),
    ('<tool_calls>\n{"name": "get_time", "arguments": {"zone": "UTC"}}', None, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip


test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_call_quoted_in_the_reasoning_is_reasoning() -> None:
    """As vLLM's parser ignores calls inside `<think>`: a block the model opened ends only
    at its close (`verify` cannot run it: the kit holds reserved markers in reasoning a
    leak, so one-shot and per character are compared here)."""
    text = f"<think>Maybe {calls(MIAMI)} would do.</think>\n\nLet me help. {calls(DALLAS)}"
    expected = {"reasoning_content": f"Maybe {calls(MIAMI)} would do.",
                "content": "Let me help.", "tool_calls": [DALLAS]}  # fmt: skip
    for chunks in ([text], list(text)):
        assert stream(FORMAT, chunks, normalize_tools(TOOLS), None).message.to_dict() == expected


# -- lines that are no call: an error of their own, the section going on (vLLM skips them) ------


def lines_tests() -> list[tuple[str, int, list[tuple[str, str]], str | None]]:
    good, bad_key = json.dumps(DALLAS), '{"name": "get_time", "argumentz": {}}'
    return [
        (f"<tool_calls>\n{good}\nnot a call\n{good}\n</tool_calls>after", 2,
         [("malformed", "not a call")], "not a callafter"),
        (f"<tool_calls>\n{good}\n{bad_key}\n{good}\n</tool_calls>", 2,
         [("malformed", bad_key)], bad_key),
        (f"<tool_calls>\n{good}\nThe answer, the end missing.", 1,
         [("malformed", "The answer, the end missing.")], "The answer, the end missing."),
        ('<tool_calls>\n{"name": "get_time", "arguments": [}\n' + good + "\n</tool_calls>ok", 0,
         [("malformed", '{"name": "get_time", "arguments": [}\n' + good + "\n")], None),
        (f"<tool_calls>\n{good}\n" + '{"name": "get_ti', 1,
         [("truncated", '{"name": "get_ti')], None),
    ]  # fmt: skip


@pytest.mark.parametrize(("text", "complete", "errors", "content"), lines_tests())
def test_a_line_that_is_no_call_is_an_error_and_the_end_never_leaks(
    text: str, complete: int, errors: list[tuple[str, str]], content: str | None
) -> None:
    message = verify(FORMAT, text, None, tools=TOOLS)
    assert len(message.tool_calls) == complete
    assert [(error.code, error.raw) for error in message.errors] == errors
    assert "</tool_calls>" not in (message.content or "")
    if content is not None:
        assert message.content == content


def test_an_end_cut_off_by_the_end_of_the_output_is_no_line() -> None:
    for cut in ("<", "</tool_ca", "<end_of_sen"):
        text = f"<tool_calls>\n{json.dumps(DALLAS)}\n{cut}"
        message = verify(FORMAT, text, None, tools=TOOLS)
        assert len(message.tool_calls) == 1, cut
        assert all(error.code == "truncated" for error in message.errors), cut
