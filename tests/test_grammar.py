"""The exported Lark grammar against the parser, with llguidance as the oracle: every valid
turn the testing kit renders is accepted (each proper prefix viable), and over valid and
mutated calls llguidance accepts exactly what protocall completes without an error."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from grammar_oracle import check
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.combinators import UsageError
from protocall.formats.spec import Messages, Spec, from_json, to_json
from protocall.formats.turns import ToolUse, Turn
from protocall.grammar import walk
from protocall.testing import arguments, cases, prose, tool_sets
from protocall.testing.strategies import neutral, render
from protocall.tools import normalize_tools


def _exportable() -> list[str]:
    names = []
    for name in formats.names():
        spec = formats.get(name).spec
        if isinstance(spec, Spec) and not isinstance(spec.turn, Messages):
            try:
                walk.check_fields(spec)
            except UsageError:
                continue
            names.append(name)
    return names


EXPORTABLE = _exportable()
DEL = "\x7f"
"""llguidance's JSON strings refuse a raw U+007F, which JSON allows (docs/grammar.md)."""
SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
TOOLS = [
    {"name": "get", "parameters": {"type": "object", "required": ["s"],
     "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}}},
    {"name": "f"},
]  # fmt: skip


def test_the_built_in_specs_export() -> None:
    assert len(EXPORTABLE) >= 18, EXPORTABLE


@pytest.mark.parametrize("name", formats.names())
def test_every_format_exports_or_says_why(name: str) -> None:
    fmt = formats.get(name)
    try:
        text = fmt.decoding_grammar(TOOLS)
    except UsageError as error:
        assert name not in EXPORTABLE
        assert "no spec" in str(error) or "no grammar for" in str(error)
        return
    assert text.startswith("%llguidance {}") and "start:" in text


def _specials(text: str) -> int:
    """How many special tokens `text` holds (prose that spells one is not prose to a
    tokenizer: it becomes the token)."""
    return len(walk.AUTO_SPECIAL.findall(text))


@pytest.mark.parametrize("name", EXPORTABLE)
def test_valid_turns_are_accepted_and_every_prefix_is_viable(name: str) -> None:
    fmt = formats.get(name)

    @SETTINGS
    @given(cases(fmt))
    def accepted(case: Any) -> None:
        assume(DEL not in case.text)
        assume(_specials(case.text) == _specials(render(fmt, neutral(case.turn), case.start)))
        grammar = fmt.decoding_grammar(case.tools, generation_prompt=case.generation_prompt)
        verdict = check(grammar, case.text)
        note(f"text {case.text!r}\n{grammar}")
        assert verdict.viable == verdict.tokens, f"refused after {verdict.viable}: {verdict.error}"
        assert verdict.accepted

    accepted()


# -- the differential property ---------------------------------------------------------------

MUTATIONS = ("valid", "wrong name", "type violation", "missing required", "broken envelope")
WRONG_VALUE = {"string": 7, "integer": "seven", "number": "x", "boolean": "maybe",
               "array": "x", "object": 3}  # fmt: skip


@st.composite
def calls(draw: st.DrawFn, fmt: formats.Format) -> tuple[Any, str, str]:
    """Tools, a turn of one call (valid or mutated) as the format writes it, the mutation."""
    declared = normalize_tools(draw(tool_sets(max_size=2)))
    assert declared is not None
    tool = declared[draw(st.sampled_from(sorted(declared)))]
    values = dict(draw(arguments(tool.parameters, fmt.reserved)))
    mutation = draw(st.sampled_from(MUTATIONS))
    name = tool.name
    properties = tool.parameters.get("properties") or {}
    required = [k for k in tool.parameters.get("required") or () if k in values]
    if mutation == "wrong name":
        name = draw(st.sampled_from(["nope", f"{tool.name}x", f"x{tool.name}"]))
    elif mutation == "type violation" and properties:
        key = draw(st.sampled_from(sorted(properties)))
        kind = properties[key].get("type")
        values[key] = WRONG_VALUE.get(kind if isinstance(kind, str) else "string", 7)
    elif mutation == "missing required" and required:
        del values[draw(st.sampled_from(required))]
    before = draw(prose(fmt.reserved, max_pieces=2).filter(lambda text: not _specials(text)))
    turn = Turn(None, (*((before,) if before else ()), ToolUse(name, values)))
    text = fmt.render(turn, None)
    if mutation == "broken envelope":
        at = draw(st.integers(len(before), len(text) - 1))
        text = text[:at] + text[at + 1 :]
    return declared, text, mutation


def _completes(fmt: formats.Format, tools: Any, text: str) -> tuple[bool, Any]:
    """Whether protocall reads `text` as exactly one complete call, without an error or a
    validation error."""
    session = fmt.parser(tools, fmt.prompt_for(None))
    session.feed(text)
    session.finish()
    message = session.message
    calls = message.tool_calls
    ok = not message.errors and len(calls) == 1 and not calls[0].validation_errors
    shown = {
        "errors": [f"{e.code}: {e.message}" for e in message.errors],
        "calls": [(c.name, c.arguments, c.validation_errors) for c in calls],
    }
    return ok, shown


@pytest.mark.parametrize("name", EXPORTABLE)
def test_llguidance_accepts_exactly_the_calls_protocall_completes(name: str) -> None:
    fmt = formats.get(name)

    @settings(SETTINGS, max_examples=25)
    @given(calls(fmt))
    def agree(drawn: tuple[Any, str, str]) -> None:
        tools, text, mutation = drawn
        grammar = fmt.decoding_grammar(
            tools, tool_choice="required", parallel=False, generation_prompt=fmt.prompt_for(None)
        )
        verdict = check(grammar, text)
        completes, shown = _completes(fmt, tools, text)
        note(f"{mutation}: {text!r}\nllguidance: {verdict}\nprotocall: {shown}")
        problem = (
            f"{name}, a {mutation} call: llguidance "
            f"{'accepts' if verdict.accepted else 'refuses'} it, protocall "
            f"{'completes' if completes else 'does not complete'} it\n"
            f"  text: {text!r}\n  protocall: {shown}\n  llguidance: {verdict.error[:200]}"
        )
        if mutation == "broken envelope":  # the parser tolerates more than the written form
            assert completes or not verdict.accepted, problem
        else:
            assert verdict.accepted == completes, problem

    agree()


# -- options and errors ----------------------------------------------------------------------


def test_tool_choice_required_needs_a_call_and_a_named_tool_only_that_tool() -> None:
    fmt = formats.get("hermes")
    call = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    get = '<tool_call>\n{"name": "get", "arguments": {"s": "x"}}\n</tool_call>'
    auto = fmt.decoding_grammar(TOOLS)
    required = fmt.decoding_grammar(TOOLS, tool_choice="required")
    named = fmt.decoding_grammar(TOOLS, tool_choice="get")
    single = fmt.decoding_grammar(TOOLS, parallel=False)
    assert check(auto, "hi<|im_end|>").accepted
    assert not check(required, "hi<|im_end|>").accepted
    assert check(required, f"hi{call}<|im_end|>").accepted
    assert not check(named, f"{call}<|im_end|>").accepted
    assert check(named, f"{get}<|im_end|>").accepted
    assert check(single, f"{get}<|im_end|>").accepted
    assert not check(single, f"{get}\n{call}<|im_end|>").accepted
    assert check(auto, f"{get}\n{call}<|im_end|>").accepted


def test_reasoning_can_be_ruled_out() -> None:
    fmt = formats.get("hermes")
    assert check(fmt.decoding_grammar(TOOLS), "<think>r</think>hi<|im_end|>").accepted
    off = fmt.decoding_grammar(TOOLS, reasoning=False)
    assert not check(off, "<think>r</think>hi<|im_end|>").accepted
    assert check(off, "hi<|im_end|>").accepted
    with pytest.raises(UsageError, match="reasoning=False"):
        fmt.decoding_grammar(TOOLS, reasoning=False, generation_prompt=fmt.prompt_for("reasoning"))


def test_special_tokens_are_tokens_not_text() -> None:
    grammar = formats.get("kimi-k2").decoding_grammar(TOOLS)
    assert "<|tool_calls_section_begin|>" in grammar
    assert '"<|tool_calls_section_begin|>"' not in grammar
    as_text = formats.get("kimi-k2").decoding_grammar(TOOLS, special_tokens=())
    assert "<|tool_calls_section_begin|>" in as_text and "FREE <|" not in as_text


def test_a_format_without_a_spec_says_so() -> None:
    fmt = dataclasses.replace(formats.get("hermes"), spec=None)
    with pytest.raises(UsageError, match="has no spec"):
        fmt.decoding_grammar(TOOLS)


def test_an_unhandled_spec_field_is_named() -> None:
    spec = formats.get("hermes").spec
    data = json.loads(to_json(spec))
    data["turn"]["type"] = "Think"
    changed = from_json(json.dumps(data))
    fmt = dataclasses.replace(formats.get("hermes"), spec=changed)
    assert fmt.decoding_grammar(TOOLS)  # unchanged: fine
    channel = dataclasses.replace(formats.get("kimi-k3").spec.turn.channels[0], label="x")
    turn = dataclasses.replace(formats.get("kimi-k3").spec.turn, channels=(channel,))
    labelled = dataclasses.replace(
        formats.get("kimi-k3"), spec=dataclasses.replace(formats.get("kimi-k3").spec, turn=turn)
    )
    with pytest.raises(UsageError, match=r"Channel\.label"):
        labelled.decoding_grammar(TOOLS)


def test_a_field_the_walk_does_not_know_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(walk.HANDLED, "Call", walk.HANDLED["Call"] - {"between"})
    with pytest.raises(UsageError, match=r"Call\.between"):
        formats.get("hermes").decoding_grammar(TOOLS)


def test_unknown_options_are_usage_errors() -> None:
    fmt = formats.get("hermes")
    with pytest.raises(UsageError, match="dialect"):
        fmt.decoding_grammar(TOOLS, "yacc")
    with pytest.raises(UsageError, match="tool_choice"):
        fmt.decoding_grammar(TOOLS, tool_choice="nope")
    with pytest.raises(UsageError, match="required"):
        fmt.decoding_grammar([], tool_choice="required")
