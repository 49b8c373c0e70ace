"""`Spec.primed`: a generation prompt that ends with the start of the turn's first marker
(Functionary v3.2's template ends its prompt with `>>>`), so the model's output begins
inside that marker."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.spec import Call, Spec, from_json, to_json
from protocall.testing import verify

LOCATION = {"type": "object", "properties": {"location": {"type": "string"}}}
TOOLS = [{"name": "get_weather", "parameters": LOCATION}]
SPEC = Spec(
    name="primed-demo",
    summary="headed messages: >>>NAME\\n{…} calls, >>>all\\n text",
    turn=None,
    call=Call(">>>{name}\n{arguments}"),
    stops=("<|eot|>",),
    dropped=(">>>all\n",),
    prompt="<|bot|>",
    primed=(">>>",),
)
CALL = {"name": "get_weather", "arguments": {"location": "Paris"}}


def message(content: str | None, *calls: dict[str, object]) -> dict[str, object]:
    return {"reasoning_content": None, "content": content, "tool_calls": list(calls)}


def test_after_a_prompt_ending_in_a_primed_text_the_turn_reads_as_begun_with_it() -> None:
    fmt = build(SPEC)
    text = 'all\nChecking.>>>get_weather\n{"location": "Paris"}<|eot|>'
    verify(fmt, text, "<|bot|>>>>", tools=TOOLS, expected=message("Checking.", CALL))
    only_call = 'get_weather\n{"location": "Paris"}<|eot|>'
    verify(fmt, only_call, "<|bot|>>>>", tools=TOOLS, expected=message(None, CALL))


def test_after_another_prompt_the_turn_is_read_as_written() -> None:
    fmt = build(SPEC)
    verify(fmt, ">>>all\nChecking.<|eot|>", "<|bot|>", tools=TOOLS, expected=message("Checking."))
    unprimed = build(replace(SPEC, primed=()))
    verify(unprimed, "all\nChecking.<|eot|>", "<|bot|>>>>", expected=message("all\nChecking."))


def test_a_primed_spec_reads_back_from_json() -> None:
    assert from_json(to_json(SPEC)) == SPEC
    assert build(SPEC).primed == (">>>",)


def test_the_grammar_after_a_primed_prompt_begins_after_its_text() -> None:
    """Lark and GBNF begin inside the first marker (tests/grammar/test_grammar_primed.py
    checks them); a lazy grammar's and a structural tag's triggers cannot."""
    fmt = build(SPEC)
    plain = fmt.decoding_grammar(TOOLS, "gbnf", generation_prompt="<|bot|>")
    primed = fmt.decoding_grammar(TOOLS, "gbnf", generation_prompt="<|bot|>>>>")
    assert plain.startswith("root ::= (run)*") and primed.startswith("root ::= (call ")
    for dialect in ("gbnf-lazy", "structural-tag"):
        with pytest.raises(UsageError, match="start of the turn's first marker"):
            fmt.decoding_grammar(TOOLS, dialect, generation_prompt="<|bot|>>>>")
