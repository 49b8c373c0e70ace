"""Specs that used to be accepted and then read outputs wrong: `build` refuses those it
cannot read right, with a `UsageError` naming the field and the fix, and reads the others
as written."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.spec import Call, Section, Spec, Think
from protocall.spec.codecs import NameAndArguments
from protocall.testing import assert_format, verify

CALL = Call("<tool_call>{call}</tool_call>", NameAndArguments())
BASE = Spec(name="refused", summary="refused", call=CALL, stops=("<|end|>",))
IN_SECTION = replace(BASE, section=Section(("<calls>\n",), ("\n</calls>",)))
A_CALL = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
ONE_CALL = {"reasoning_content": None, "content": "Hi", "tool_calls": [
    {"name": "f", "arguments": {}}]}  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (replace(BASE, section=Section(("",), ())), "Section.begins has an empty marker"),
        (replace(BASE, section=Section(("<c>",), (" ",))), "Section.ends has an empty marker"),
        (replace(BASE, turn=Think("", "</think>")), "Think.open has an empty marker"),
        (replace(BASE, turn=Think("<t>", "", also=())), "Think.close has an empty marker"),
        (replace(BASE, stops=("",)), "stops has an empty marker"),
        (replace(BASE, dropped=("",)), "dropped has an empty marker"),
        (replace(BASE, call=Call("{name}{arguments}")), "Call.template '{name}{arguments}' has"),
        (
            replace(BASE, dropped=("<tool",)),
            "the dropped marker '<tool' begins the call opener '<tool_call>'",
        ),
        (
            replace(BASE, section=Section(("<|x|><calls>",), ()), dropped=("<|x|>",)),
            "the dropped marker '<|x|>' begins the call opener '<|x|><calls>'",
        ),
    ],
)
def test_a_spec_that_cannot_be_read_right_is_refused(spec: Spec, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        build(spec)


def test_a_dropped_marker_before_the_opener_drops_and_lets_the_call_follow() -> None:
    fmt = build(replace(BASE, dropped=("<|x|>",)))
    verify(fmt, f"Hi<|x|>{A_CALL}", expected=ONE_CALL)
    verify(fmt, "Hi<|x|>", expected={**ONE_CALL, "tool_calls": []})


@pytest.mark.parametrize(
    "text",
    [f"Hi<calls>\n{A_CALL}\n</calls>", f"Hi<calls>{A_CALL}</calls>", f"Hi <calls> {A_CALL}"],
)
def test_a_section_begin_ending_in_a_newline_reads_any_whitespace_or_none(text: str) -> None:
    verify(build(IN_SECTION), text, expected=ONE_CALL)


def test_a_section_begin_cut_before_its_newline_is_a_truncated_call() -> None:
    message = verify(build(IN_SECTION), "Hi<calls>")
    assert message.content == "Hi" and [error.code for error in message.errors] == ["truncated"]


def test_a_section_begin_ending_in_a_newline_passes_the_kit() -> None:
    assert_format(build(IN_SECTION), max_examples=10, seed=0)


def test_a_call_without_a_closer_leaves_the_whitespace_after_it_to_the_content() -> None:
    fmt = build(replace(BASE, call=Call("<call>{name}<args>{arguments}")))
    expected = {"reasoning_content": None, "content": "Hi   \n Done", "tool_calls": [
        {"name": "f", "arguments": {"a": 1}}]}  # fmt: skip
    verify(fmt, 'Hi <call>f<args>{"a": 1}  \n Done', expected=expected)


def test_proven_calls_separated_by_whitespace_alone() -> None:
    """A `proof` with a `between` of whitespace only (it used to fail with a raw
    `ValueError` when first parsing): calls one a line."""
    from protocall.formats.llama3 import SPEC as LLAMA_3

    spec = replace(LLAMA_3, name="lines", call=replace(LLAMA_3.call, between="\n"), section=None)
    fmt = build(spec)
    one = '{"name": "f", "parameters": {}}'
    verify(
        fmt, f"Hi\n{one}\n{one}", expected={**ONE_CALL, "tool_calls": ONE_CALL["tool_calls"] * 2}
    )
    assert_format(fmt, max_examples=10, seed=0)


def test_a_section_without_an_end_closes_at_what_is_no_call() -> None:
    """A template section with `ends=()` (it failed with a raw `TypeError` when first
    parsing): its calls follow its begin, and the first thing that is no call ends it."""
    fmt = build(replace(BASE, section=Section(("<calls>",), ())))
    expected = {**ONE_CALL, "content": "Hi  Done."}  # the spaces around the call are content
    verify(fmt, f"Hi <calls>{A_CALL} Done.", expected=expected)


def test_a_call_object_alone_in_a_section_is_one_a_line() -> None:
    spec = Spec(
        name="objects",
        summary="objects in a section",
        call=Call("{call}", NameAndArguments(), between=", "),
        section=Section(("<calls>",), ("</calls>",)),
        stops=("<end>",),
    )
    with pytest.raises(UsageError, match="one call a line"):
        build(spec)
