"""The exported Lark grammar against the parser, with llguidance as the oracle: every valid
turn the testing kit renders is accepted (each proper prefix viable), and over valid and
mutated calls llguidance accepts exactly what protocall completes without an error."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from grammar_oracle import DEL, EXPORTABLE, calls, check, completes, specials
from hypothesis import HealthCheck, assume, given, note, settings
from sampled import every_format

from protocall import formats
from protocall.combinators import UsageError
from protocall.grammar import export, walk
from protocall.spec import from_json, to_json
from protocall.testing import cases
from protocall.testing.strategies import neutral, render
from protocall.tools import normalize_tools

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


@pytest.mark.parametrize("name", every_format(EXPORTABLE))
def test_valid_turns_are_accepted_and_every_prefix_is_viable(name: str) -> None:
    fmt = formats.get(name)

    @SETTINGS
    @given(cases(fmt))
    def accepted(case: Any) -> None:
        assume(DEL not in case.text)
        assume(specials(case.text) == specials(render(fmt, neutral(case.turn), case.start)))
        grammar = fmt.decoding_grammar(case.tools, generation_prompt=case.generation_prompt)
        verdict = check(grammar, case.text)
        note(f"text {case.text!r}\n{grammar}")
        assert verdict.viable == verdict.tokens, f"refused after {verdict.viable}: {verdict.error}"
        assert verdict.accepted

    accepted()


# -- the differential property ---------------------------------------------------------------


@pytest.mark.slow
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
        complete, shown = completes(fmt, tools, text)
        note(f"{mutation}: {text!r}\nllguidance: {verdict}\nprotocall: {shown}")
        problem = (
            f"{name}, a {mutation} call: llguidance "
            f"{'accepts' if verdict.accepted else 'refuses'} it, protocall "
            f"{'completes' if complete else 'does not complete'} it\n"
            f"  text: {text!r}\n  protocall: {shown}\n  llguidance: {verdict.error[:200]}"
        )
        if mutation == "broken envelope":  # the parser tolerates more than the written form
            assert complete or not verdict.accepted, problem
        else:
            assert verdict.accepted == complete, problem

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
    headed = formats.get("gpt-oss").spec
    call = dataclasses.replace(headed.call, template="<|channel|>commentary {name} {arguments}")
    unshaped = dataclasses.replace(headed, call=call)
    with pytest.raises(UsageError, match="a headed message's call template is"):
        dataclasses.replace(formats.get("gpt-oss"), spec=unshaped).decoding_grammar(TOOLS)


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


# -- the command line ------------------------------------------------------------------------


def test_the_cli_prints_each_dialect(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from protocall.cli import main

    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    assert main(["grammar", "hermes", "--tools", str(tools)]) == 0
    lark = capsys.readouterr().out
    assert lark.startswith("%llguidance {}") and check(lark, "hi<|im_end|>").accepted
    assert main(["grammar", "hermes", "--tools", str(tools), "--dialect", "gbnf"]) == 0
    assert capsys.readouterr().out.startswith("root ::= ")
    for dialect, key in (("gbnf-lazy", "grammar_triggers"), ("structural-tag", "format")):
        assert main(["grammar", "hermes", "--tools", str(tools), "--dialect", dialect]) == 0
        assert key in json.loads(capsys.readouterr().out)
    argv = ["grammar", "hermes", "--tools", str(tools), "--tool-choice", "f", "--no-parallel"]
    assert main([*argv, "--no-reasoning"]) == 0
    single = capsys.readouterr().out
    assert not check(single, "<think>r</think>hi<|im_end|>").accepted


def test_the_cli_lists_what_it_dropped_on_stderr(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from protocall.cli import main

    bounded = {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "f", "parameters": bounded}]))
    assert main(["grammar", "hermes", "--tools", str(tools), "--dialect", "gbnf"]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith("root ::= ") and "dropped" not in printed.out
    assert printed.err == "dropped: the parameters of 'f'.n: multipleOf 3\n"
    assert main(["grammar", "hermes", "--tools", str(tools)]) == 0  # Lark keeps it
    assert capsys.readouterr().err == ""


def test_the_cli_says_why_there_is_no_grammar(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from protocall.cli import main

    tools = tmp_path / "tools.json"
    tools.write_text("[]")
    argv = ["grammar", "gemma-4", "--tools", str(tools), "--dialect", "structural-tag"]
    assert main(argv) == 2
    assert "a structural tag needs declared tools" in capsys.readouterr().err


def test_the_grammar_page_runs() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "grammar.md"
    (first, coverage, *_) = re.findall(r"```python\n(.*?)```", page.read_text(), re.DOTALL)
    exec(compile(first + coverage, "docs/grammar.md", "exec"), {})


def test_ref_schemas_resolve_in_json_and_raw_text_values() -> None:
    tool = {"name": "f", "parameters": {"type": "object", "required": ["p"],
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            "properties": {"p": {"$ref": "#/$defs/point"}}}}  # fmt: skip
    hermes = formats.get("hermes").decoding_grammar([tool])
    call = '<tool_call>\n{"name": "f", "arguments": {"p": {"x": 1}}}\n</tool_call><|im_end|>'
    assert check(hermes, call).accepted
    assert not check(hermes, call.replace("1", '"1"')).accepted
    xml = formats.get("qwen3-coder").decoding_grammar([tool])  # a JSON value: its $defs
    call = "<tool_call>\n<function=f>\n<parameter=p>\n{0}\n</parameter>\n</function>\n</tool_call>"
    assert check(xml, call.format('{"x": 1}') + "<|im_end|>").accepted
    assert not check(xml, call.format('{"x": "1"}') + "<|im_end|>").accepted


# -- the formats written with their own literals, hooks and optional pieces ------------------

TYPED = [{"name": "get", "parameters": {"type": "object", "required": ["s"], "properties": {
    "s": {"type": "string"}, "on": {"type": "boolean"},
    "n": {"type": ["integer", "null"]}}}}]  # fmt: skip


def test_python_literals_are_typed_and_content_may_hold_brackets() -> None:
    grammar = formats.get("pythonic").decoding_grammar(TYPED)
    assert check(grammar, "see [1] [get(s='x', on=True, n=None)]<|eot_id|>").accepted
    assert check(grammar, """[get(s="it's", n=-3)]<|eot_id|>""").accepted
    assert not check(grammar, "[get(s='x', on=true)]<|eot_id|>").accepted  # JSON's spelling
    assert not check(grammar, "[get(s=1)]<|eot_id|>").accepted
    assert not check(grammar, "[get(on=True)]<|eot_id|>").accepted  # `s` is required


def test_gemma_values_are_bare_objects() -> None:
    grammar = formats.get("gemma-4").decoding_grammar(TYPED)
    call = '<|tool_call>call:get{n:3,on:false,s:<|"|>a "b"<|"|>}<tool_call|><|tool_response>'
    assert check(grammar, call).accepted
    assert not check(grammar, call.replace("n:3", "n:None")).accepted  # written `null`
    assert not check(grammar, call.replace('<|"|>a "b"<|"|>', '"a"')).accepted


def test_a_keyword_the_literals_cannot_write_is_dropped_and_reported() -> None:
    tool = {"name": "f", "parameters": {"type": "object", "properties": {
        "s": {"type": "string", "pattern": "(?=a)"}, "t": {"type": "string", "pattern": "^a"},
        "n": {"type": "number", "minimum": 1}}}}  # fmt: skip
    exported = export(formats.get("pythonic"), normalize_tools([tool]))
    assert exported.dropped == (
        "parameter 's' of 'f': pattern \"(?=a)\"",
        "parameter 'n' of 'f': minimum 1",
    )
    assert check(exported.text, "[f(s='b', n=0)]<|eot_id|>").accepted  # looser: the parser says
    assert not check(exported.text, "[f(t='b')]<|eot_id|>").accepted  # a pattern it writes


def test_mistral_writes_the_call_id_only_where_there_is_one() -> None:
    grammar = formats.get("mistral").decoding_grammar(TYPED, tool_choice="required")
    assert check(grammar, '[TOOL_CALLS]get[ARGS]{"s": "x"}</s>').accepted
    assert check(grammar, '[TOOL_CALLS]get[CALL_ID]a1b2c3d4e[ARGS]{"s": "x"}</s>').accepted
    assert not check(
        grammar, '[TOOL_CALLS] [{"name": "get", "arguments": {"s": "x"}}]</s>'
    ).accepted


def test_harmony_turns_follow_the_options() -> None:
    fmt = formats.get("gpt-oss")
    call = '<|channel|>commentary to=functions.get <|constrain|>json<|message|>{"s": "x"}<|call|>'
    thought = "<|channel|>analysis<|message|>hm<|end|><|start|>assistant"
    final = "<|channel|>final<|message|>ok<|return|>"
    auto = fmt.decoding_grammar(TYPED)
    assert check(auto, thought + call).accepted and check(auto, final).accepted
    assert not check(fmt.decoding_grammar(TYPED, reasoning=False), thought + call).accepted
    required = fmt.decoding_grammar(TYPED, tool_choice="required", parallel=False)
    assert not check(required, final).accepted
    assert not check(required, f"{call}<|start|>assistant{call}").accepted
    assert check(required, f"{call}<|start|>assistant{final}").accepted
