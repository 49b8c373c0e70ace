"""Spec pieces for markers a model writes only to call (#35): a `sealed` section, `bare`
calls that count in the content only, and reasoning that `ends_at` a section opener."""

from __future__ import annotations

import pytest

from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.spec import Call, Section, Spec, Think
from protocall.testing import stream, verify

OWL = build(
    Spec(
        name="owl",
        summary="Owl: <|call|>NAME<|args|>{…}<|end|> calls in <|calls|>, <|eot|> ends",
        turn=Think(ends_at=("<|calls|>",)),
        call=Call("<|call|>{name}<|args|>{arguments}<|end|>"),
        section=Section(
            ("<|calls|>",),
            ("<|/calls|>",),
            bare=True,
            bare_ends_reasoning=False,
            opener="<|",
            sealed=True,
        ),
        stops=("<|eot|>",),
    )
)
TOOLS = [{"name": "get_time", "parameters": {"type": "object", "properties": {}}}]
CALL = '<|call|>get_time<|args|>{"zone": "UTC"}<|end|>'


@pytest.mark.parametrize("damaged", ["<|cals|>", "<|calls\n", "<|calls|", "<|call_x|>"])
def test_a_damaged_opener_is_an_error_to_the_end_of_the_turn(damaged: str) -> None:
    rest = damaged + CALL + "<|/calls|> After."
    message = verify(OWL, "Before. " + rest + "<|eot|>", tools=TOOLS)
    assert message.tool_calls == ()
    (error,) = message.errors
    assert (error.code, error.raw) == ("malformed", rest)
    quiet = stream(OWL, ["Before. " + rest + "<|eot|>"], TOOLS, passthrough_malformed=False)
    assert quiet.message.content == "Before."


def test_whole_markers_quoted_in_prose_and_the_stop_stay_what_they_are() -> None:
    prose = "Write <|calls|> then <|call|> in that order."
    message = verify(OWL, prose + "<|eot|>", tools=TOOLS)
    assert (message.content, message.errors) == (prose, ())


def test_a_bare_call_counts_in_the_content_not_in_the_reasoning() -> None:
    message = verify(OWL, "<think>Maybe " + CALL + " later.</think>Now " + CALL, tools=TOOLS)
    assert message.reasoning_content == "Maybe " + CALL + " later."
    assert message.content == "Now" and [c.name for c in message.tool_calls] == ["get_time"]


@pytest.mark.parametrize("after", ["<|calls|>nonsense<|/calls|>", "<|calls|><|call|>x y"])
def test_a_section_opener_ends_an_unclosed_reasoning_block_whatever_follows(after: str) -> None:
    message = verify(OWL, "<think>Plan. " + after + "<|eot|>", tools=TOOLS)
    assert message.reasoning_content == "Plan."


def test_the_pieces_refuse_what_they_cannot_mean() -> None:
    with pytest.raises(UsageError, match="sealed"):
        Section(("<|calls|>",), ("<|/calls|>",), sealed=True)
    with pytest.raises(UsageError, match="bare_ends_reasoning"):
        Section(("<|calls|>",), ("<|/calls|>",), bare_ends_reasoning=False)
