"""A grammar after a primed prompt (`protocall.grammar.primed`): the turn from inside its
first marker, where the model's output begins after a prompt ending with `>>>`
(Functionary v3.2). Checked against its definition by enumeration on small grammars,
then on the format: what the grammar accepts after the prompt, protocall reads as the same
clean call; every valid turn the format writes, the grammar accepts."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from gbnf_recognizer import Recognizer
from grammar_oracle import DEL, calls, check, special_tokens, turn_in_order
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.combinators import UsageError
from protocall.grammar import gbnf
from protocall.grammar.ir import Grammar, Json, Lit, Node, Opt, Ref, Seq, Star, Token, Until, alt
from protocall.grammar.primed import after
from protocall.testing import cases, verify

FUNCTIONARY = formats.get("functionary-v3.2")
PROMPT = FUNCTIONARY.prompt_for(None) + ">>>"

# -- the derivative, against its definition ------------------------------------------------

ALPHABET = "ab"
WORDS = ["".join(w) for n in range(6) for w in itertools.product(ALPHABET, repeat=n)]

leaves = st.sampled_from([Lit("a"), Lit("b"), Lit("ab"), Lit("ba"), Lit(""), Ref("r")])
nodes = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda items: Seq(tuple(items))),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: alt(*items)),
        inner.map(Opt),
        inner.filter(lambda node: node != Lit("")).map(Star),
    ),
    max_leaves=6,
)


def accepts(grammar: Grammar) -> Recognizer:
    return Recognizer(gbnf.write(grammar))


@settings(max_examples=300, deadline=None)
@given(nodes, st.sampled_from(["a", "b", "ab", "ba", "aab"]))
def test_a_text_follows_the_prompt_exactly_when_the_prompt_and_it_match_the_grammar(
    start: Node, prompt: str
) -> None:
    """`after(g, p)` accepts `w` exactly when `g` accepts `p + w` (`r` a rule `a`*, so
    references are followed too); none does when `after` says no turn begins with `p`."""
    grammar = Grammar((), {"start": start, "r": Star(Lit("a"))})
    whole = accepts(grammar)
    expected = [word for word in WORDS if whole.accepts(prompt + word)]
    try:
        primed = accepts(after(grammar, prompt))
    except UsageError as error:
        assert "no turn of the grammar begins with" in str(error)
        assert not expected
        return
    assert [word for word in WORDS if primed.accepts(word)] == expected


def test_a_marker_begins_where_the_prompt_ends_and_text_before_it_is_none() -> None:
    """Free text then a marker: the prompt's text is the marker's start, so the rest of the
    marker comes first (free text before it is empty); a dropped marker may lead instead."""
    grammar = Grammar((">>>",), {"start": Seq((Until(Lit(">>>")), Lit("x")))})
    primed = accepts(after(grammar, ">>>"))
    assert primed.accepts("x") and not primed.accepts(">x") and not primed.accepts(">>>x")
    led = accepts(after(grammar, ">>>", dropped=(">>>all\n",)))
    assert led.accepts("x") and led.accepts("all\n>>>x") and led.accepts("all\nhi>>>x")


@pytest.mark.parametrize(
    ("start", "prompt", "message"),
    [
        (Token("<|python_tag|>"), "<|py", "inside the special token"),
        (Json('{"type":"string"}'), '"', "inside json"),
        (Until(Lit("</a>"), string='{"minLength":1}'), "<", "inside a string value"),
        (Lit("x"), ">>>", "no turn of the grammar begins with"),
        (Ref("start"), "a", "refers to itself"),
    ],
)
def test_a_prompt_ending_where_no_grammar_can_begin_is_a_usage_error(
    start: Node, prompt: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        after(Grammar((), {"start": start}), prompt)


# -- Functionary v3.2 after its own prompt ----------------------------------------------------


def primed_text(rendered: str) -> str:
    """The output after the prompt's `>>>`, of a turn the format writes after its plain
    prompt: a call's header without the `>>>`, text after the `>>>all\\n` it drops (text
    that begins with `>` makes the render begin `>>>>`)."""
    call_first = rendered.startswith(">>>") and not rendered.startswith(">>>>")
    return rendered[3:] if call_first else "all\n" + rendered


def grammars(tools: Any, tool_choice: str) -> tuple[str, str]:
    lark = FUNCTIONARY.decoding_grammar(tools, generation_prompt=PROMPT, tool_choice=tool_choice)
    gbnf_text = FUNCTIONARY.decoding_grammar(
        tools, "gbnf", generation_prompt=PROMPT, tool_choice=tool_choice
    )
    return lark, gbnf_text


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_every_turn_the_format_writes_is_accepted_after_the_primed_prompt(
    data: st.DataObject,
) -> None:
    """A kit turn of Functionary v3.2, as the model writes it after `>>>`: the Lark grammar
    (llguidance) accepts it, and the GBNF with its members in the GBNF's order (with
    `required` too where it calls), and the
    session primed by the prompt reads it as the turn, one-shot and streamed."""
    case = data.draw(cases(FUNCTIONARY))
    assume(DEL not in case.text)  # see `DEL`
    text = primed_text(case.text)
    assert case.turn is not None and case.tools is not None
    ordered = turn_in_order(case.turn, case.tools, required_first=True)  # as GBNF writes
    in_order = primed_text(FUNCTIONARY.render(ordered, None))
    choices = ["auto", *(["required"] if case.expected["tool_calls"] else [])]
    for choice in choices:
        lark, gbnf_text = grammars(case.tools, choice)
        assert check(lark, text, special_tokens(lark)).accepted, (choice, text)
        assert Recognizer(gbnf_text).accepts(in_order), (choice, in_order)
    verify(FUNCTIONARY, text, PROMPT, tools=case.tools, expected=case.expected)


@settings(max_examples=60, deadline=None)
@given(calls(FUNCTIONARY, required_first=True))
def test_what_the_primed_grammar_accepts_protocall_reads_as_one_clean_call(
    drawn: tuple[Any, str, str],
) -> None:
    """A call (valid, or with a wrong name, a type violation, a missing member or a broken
    envelope) after the prompt's `>>>`: the GBNF accepts it exactly when protocall reads
    one complete call with no error (a broken envelope: only where protocall does)."""
    tools, rendered, mutation = drawn
    assume(DEL not in rendered)  # see `DEL`
    text = primed_text(rendered)
    accepted = Recognizer(grammars(tools, "required")[1]).accepts(text)
    session = FUNCTIONARY.parser(tools, PROMPT)
    session.feed(text)
    session.finish()
    message = session.message
    clean = not message.errors and len(message.tool_calls) == 1
    clean = clean and not message.tool_calls[0].validation_errors
    if mutation == "broken envelope":  # the parser tolerates more than the written form
        assert clean or not accepted, (mutation, text, message)
    else:  # text ending `>` before `>>>` stands for no call: refused, and read as text
        assert accepted == clean, (mutation, text, message, {n: tools[n].parameters for n in tools})


def test_triggers_begin_at_a_markers_start_so_lazy_grammars_and_tags_refuse() -> None:
    tools = [{"name": "get_weather", "parameters": {"type": "object"}}]
    for dialect in ("gbnf-lazy", "structural-tag"):
        with pytest.raises(UsageError, match="triggers begin at a marker's start"):
            FUNCTIONARY.decoding_grammar(tools, dialect, generation_prompt=PROMPT)
