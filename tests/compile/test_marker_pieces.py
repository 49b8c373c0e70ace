"""Spec pieces for what real outputs need (#35): a `sealed` section, `bare` calls that
count in the content only, reasoning that `ends_at` a section opener, and a prefixed call
that may stand `bare` where content starts or miss its closer (`unclosed`), and a call
closed by any of several closers (`other_closers`) whose head has `optional` pieces between
its name and XML arguments (Beam's)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.spec import Call, Section, Spec, Think
from protocall.spec.codecs import Plain, XmlArguments
from protocall.testing import stream, verify
from protocall.values.xmlargs import Layout

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
    with pytest.raises(UsageError, match="explicit"):
        Think(explicit=True, ends_at=("<|calls|>",))


HERON = build(
    Spec(
        name="heron",
        summary="Heron: [CALL]fn:NAME{…}[/CALL] after <think>…</think>",
        call=Call(
            "[CALL]{name}{arguments}[/CALL]", name=Plain(prefix="fn:"), bare=True, unclosed=True
        ),
        stops=("[EOT]",),
    )
)
HERON_TOOLS = [{"name": "get_time", "parameters": {"type": "object", "properties": {}}}]


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ('fn:get_time{"zone": "UTC"}[EOT]', None, None),
        ('<think>Plan.</think>\nfn:get_time{"zone": "UTC"}[/CALL]', "Plan.", None),
        ('[CALL]fn:get_time{"zone": "UTC"}[EOT]', None, None),
        ('Ok.[CALL]get_time{"zone": "UTC"}[CALL]fn:get_time{"zone": "UTC"}[/CALL]', None, "Ok."),
    ],
)
def test_a_prefixed_call_bare_where_content_starts_or_unclosed_before_a_stop(
    text: str, reasoning: str | None, content: str | None
) -> None:
    message = verify(HERON, text, tools=HERON_TOOLS)
    assert (message.reasoning_content, message.content, message.errors) == (reasoning, content, ())
    assert {c.name for c in message.tool_calls} == {"get_time"}


@pytest.mark.parametrize("text", ['Now fn:get_time{"zone": "UTC"}', 'fn:launch{"n": 1}'])
def test_a_bare_call_elsewhere_or_of_an_undeclared_tool_is_text(text: str) -> None:
    message = verify(HERON, text + "[EOT]", tools=HERON_TOOLS)
    assert (message.content, message.tool_calls, message.errors) == (text, (), ())


def test_a_bare_call_needs_a_name_prefix() -> None:
    spec = Spec(
        name="wren",
        summary="x",
        call=Call("[CALL]{name}{arguments}[/CALL]", bare=True),
        stops=("[EOT]",),
    )
    with pytest.raises(UsageError, match="prefix"):
        build(spec)


def test_a_call_cut_short_by_its_closer_is_malformed_when_the_closer_proves_it() -> None:
    template = "<|c|>{name}<|args|>{arguments}<|end|>"
    text = "Hi.<|c|>get_time<|end|> bye"
    for proves, expected in (
        (False, "Hi.<|c|>get_time bye"),
        (True, "Hi.<|c|>get_time<|end|> bye"),
    ):
        spec = Spec(
            name="kite",
            summary="Kite: <|c|>NAME<|args|>{…}<|end|>",
            call=Call(template, stray_closers=True, closer_proves=proves),
            stops=("<|eot|>",),
        )
        message = verify(build(spec), text + "<|eot|>", tools=HERON_TOOLS)
        assert message.content == expected
        assert [e.code for e in message.errors] == (["malformed"] if proves else [])


WREN_LAYOUT = Layout("<arg", ">", "</arg>", "<|call|>", key_attribute="name")
WREN = build(
    Spec(
        name="wren",
        summary="Wren: <|c|>NAME<|as|> json<|m|> XML arguments, closed by <|call|> or <|end|>",
        call=Call(
            "<|c|>{name}<|as|> json<|m|>{arguments}<|call|>",
            XmlArguments(WREN_LAYOUT),
            optional=(" json",),
            other_closers=("<|end|>",),
        ),
        stops=("<|eot|>",),
    )
)
WREN_TOOLS = [
    {"name": "get_time", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}
]


@pytest.mark.parametrize("kind", [" json", ""])
@pytest.mark.parametrize("closer", ["<|call|>", "<|end|>"])
def test_a_call_closes_at_any_spelling_of_its_closer_and_an_optional_piece_may_be_missing(
    kind: str, closer: str
) -> None:
    text = f'Hi.<|c|>get_time<|as|>{kind}<|m|><arg name="n">3</arg>{closer} Bye.<|eot|>'
    message = verify(WREN, text, tools=WREN_TOOLS)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("get_time", {"n": 3})]
    assert message.content == "Hi. Bye."


def test_the_first_closer_and_every_optional_piece_are_written() -> None:
    turn = Turn(None, (ToolUse("get_time", {"n": 3}),))
    assert (
        WREN.render(turn, None)
        == '<|c|>get_time<|as|> json<|m|><arg name="n">3</arg><|call|><|eot|>'
    )
    assert "<|end|>" in WREN.reserved


def test_an_optional_piece_cut_off_is_a_truncated_call() -> None:
    message = verify(WREN, "Hi.<|c|>get_time<|as|> js", tools=WREN_TOOLS)
    assert message.content == "Hi." and [e.code for e in message.errors] == ["truncated"]


def test_other_closers_close_a_call_read_piece_by_piece() -> None:
    spec = Spec(
        name="finch",
        summary="Finch: <|c|>NAME<|a|>{…}<|call|> or <|end|>",
        call=Call("<|c|>{name}<|a|>{arguments}<|call|>", other_closers=("<|end|>",)),
        stops=("<|eot|>",),
    )
    for closer in ("<|call|>", "<|end|>"):
        text = f'<|c|>get_time<|a|>{{"n": 3}}{closer}<|eot|>'
        message = verify(build(spec), text, tools=WREN_TOOLS)
        assert [(c.name, c.arguments) for c in message.tool_calls] == [("get_time", {"n": 3})]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: Call("<|c|>{name}<|a|>{arguments}", other_closers=("<|end|>",)),
            "other spellings",
        ),
        (
            lambda: Call("<|c|>{name}<|a|>{arguments}<|x|>", other_closers=("<|x|>",)),
            "other spellings",
        ),
        (lambda: Call("<|c|>{name}{arguments}<|x|>", other_closers=(" ",)), "marker texts"),
        (
            lambda: Call(
                "<w>\n<f={name}>\n{arguments}</f>\n</w>",
                XmlArguments(Layout("<p=", ">", "</p>", "</f>")),
                other_closers=("<|end|>",),
            ),
            "no outer one",
        ),
        (
            lambda: Call(
                "<|c|>{name} json<|m|>{arguments}<|call|>",
                XmlArguments(WREN_LAYOUT),
                optional=("<|m|>{arguments}",),
            ),
            "between {name} and XML {arguments}",
        ),
    ],
)
def test_other_closers_and_xml_optional_pieces_are_refused_where_unread(
    make: Callable[[], Call], message: str
) -> None:
    """Refused when the call is made (`Call`) or the spec built (`build`)."""
    with pytest.raises(UsageError, match=re.escape(message)):
        build(Spec(name="refused", summary="refused", call=make(), stops=("<|eot|>",)))
