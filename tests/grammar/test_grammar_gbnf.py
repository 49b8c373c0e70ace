"""The exported GBNF against the parser, with a character-level GBNF recognizer as the
oracle (llama.cpp's semantics: special tokens are text, every alternative kept): every valid
turn the testing kit renders (its arguments in GBNF's fixed order) is accepted; over valid
and mutated calls the recognizer accepts what protocall completes; the lazy form accepts a
turn from its trigger on. llguidance compiles every exported GBNF (its GBNF-to-Lark
converter); as a matcher it reads GBNF through a lexer, which refuses free text that ends
in a marker's prefix right before a marker (docs/grammar.md), so it is not the oracle here."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import jsonschema
import llguidance
import pytest
from gbnf_recognizer import Recognizer
from grammar_oracle import DEL, EXPORTABLE, TRIGGERED, calls, completes, turn_in_order
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st
from llguidance.gbnf_to_lark import any_to_lark

from protocall import formats
from protocall.combinators import UsageError
from protocall.grammar import export, gbnf
from protocall.grammar.ir import Grammar, Json
from protocall.grammar.walk import spec_of
from protocall.testing import cases
from protocall.testing.strategies import render
from protocall.tools import normalize_tools

SETTINGS = settings(
    max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


def _ordered(case: Any, fmt: formats.Format) -> str:
    """The case's turn with its arguments in GBNF's order (required ones first)."""
    return render(fmt, turn_in_order(case.turn, case.tools, required_first=True), case.start)


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPORTABLE)
def test_valid_turns_are_accepted_and_every_prefix_is_viable(name: str) -> None:
    fmt = formats.get(name)

    @SETTINGS
    @given(cases(fmt))
    def accepted(case: Any) -> None:
        text = _ordered(case, fmt)
        assume(DEL not in text)
        gbnf = fmt.decoding_grammar(case.tools, "gbnf", generation_prompt=case.generation_prompt)
        note(f"text {text!r}\n{gbnf}")
        assert Recognizer(gbnf).accepts(text)
        if spec_of(fmt).stops:  # a turn may end anywhere where no stop ends it (K2 Horizon)
            assert not Recognizer(gbnf).accepts(text[:-1])
        compiles(gbnf)

    accepted()


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", [n for n in EXPORTABLE if n != "gpt-oss" and spec_of(formats.get(n)).stops]
)
def test_without_its_stop_a_turn_ends_where_the_stop_would_begin(name: str) -> None:
    """`stop=False` (for engines whose stop token ends the turn): the turn without its stop
    is accepted, and with the stop's text it is not (free text never holds a marker)."""
    fmt = formats.get(name)

    @SETTINGS
    @given(cases(fmt))
    def accepted(case: Any) -> None:
        text = _ordered(case, fmt)
        stop = next((s for s in spec_of(fmt).stops if text.endswith(s)), None)
        assume(DEL not in text and stop is not None)
        prompt = case.generation_prompt
        gbnf = fmt.decoding_grammar(case.tools, "gbnf", generation_prompt=prompt, stop=False)
        note(f"text {text!r}\n{gbnf}")
        assert Recognizer(gbnf).accepts(text[: -len(stop)])
        assert not Recognizer(gbnf).accepts(text)

    accepted()


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPORTABLE)
def test_llguidance_on_gbnf_accepts_exactly_the_calls_protocall_completes(name: str) -> None:
    fmt = formats.get(name)

    @settings(SETTINGS, max_examples=10)
    @given(calls(fmt, required_first=True))
    def agree(drawn: tuple[Any, str, str]) -> None:
        tools, text, mutation = drawn
        assume(DEL not in text)
        gbnf = fmt.decoding_grammar(
            tools, "gbnf", tool_choice="required", parallel=False,
            generation_prompt=fmt.prompt_for(None),
        )  # fmt: skip
        accepted = Recognizer(gbnf).accepts(text)
        complete, shown = completes(fmt, tools, text)
        problem = f"{name}, a {mutation} call {text!r}: GBNF {accepted}, protocall {shown}"
        if mutation == "broken envelope":  # the parser tolerates more than the written form
            assert complete or not accepted, problem
        else:
            assert accepted == complete, problem

    agree()


@pytest.mark.slow
@pytest.mark.parametrize("name", TRIGGERED)
def test_the_lazy_grammar_accepts_a_turn_from_its_trigger_on(name: str) -> None:
    fmt = formats.get(name)

    @SETTINGS
    @given(cases(fmt, max_calls=2))
    def accepted(case: Any) -> None:
        assume(case.turn.calls)
        text = _ordered(case, fmt)
        assume(DEL not in text)
        lazy = json.loads(
            fmt.decoding_grammar(case.tools, "gbnf-lazy", generation_prompt=case.generation_prompt)
        )
        assert lazy["grammar_lazy"] is True
        triggers = [t["value"] for t in lazy["grammar_triggers"]]  # one per tool if bare
        at = min(text.index(t) for t in triggers if t in text)
        note(f"text {text!r}\n{lazy['grammar']}")
        assert Recognizer(lazy["grammar"]).accepts(text[at:])

    accepted()


def compiles(gbnf: str) -> None:
    """llguidance reads `gbnf` (converted to its Lark) without an error."""
    lark = any_to_lark(gbnf)
    error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(
        llguidance.LLMatcher.grammar_from_lark(lark)
    )
    assert not error, messages


def test_the_recognizer_is_a_recognizer() -> None:
    gbnf = 'root ::= "a" (x | [b-c]{2,3})* "."?\nx ::= [^a-c\\-] "-"'
    assert Recognizer(gbnf).accepts("abcbcb.")
    assert Recognizer(gbnf).accepts("az-bb")
    assert not Recognizer(gbnf).accepts("ab")
    assert not Recognizer(gbnf).accepts("a--")
    assert not Recognizer(gbnf).accepts("abb..")


def test_gbnf_has_a_root_and_writes_special_tokens_as_text() -> None:
    gbnf = formats.get("kimi-k2").decoding_grammar([{"name": "f"}], "gbnf")
    assert gbnf.startswith("root ::= ")
    assert '"<|tool_calls_section_begin|><|tool_call_begin|>" call' in gbnf


def test_what_gbnf_cannot_say_is_dropped_and_reported() -> None:
    tool = {"name": "f", "parameters": {"type": "object", "properties": {
        "when": {"type": "string", "format": "date"}, "n": {"type": "number", "minimum": 1},
        "s": {"type": "string", "minLength": 2, "maxLength": 3},
        "i": {"type": "integer", "minimum": 1}}}}  # fmt: skip
    exported = export(formats.get("hermes"), normalize_tools([tool]), "gbnf")
    assert exported.dropped == ("the parameters of 'f'.n: minimum 1",)
    call = '<tool_call>\n{{"name": "f", "arguments": {{{0}}}}}\n</tool_call><|im_end|>'
    accepts = Recognizer(exported.text).accepts
    assert accepts(call.format('"when": "2024-02-29", "n": 0, "s": "ab", "i": 1'))  # n: looser
    assert not accepts(call.format('"i": 0'))
    assert not accepts(call.format('"when": "2024-02-30x"'))
    assert not accepts(call.format('"s": "abcd"')) and not accepts(call.format('"s": "a"'))
    with pytest.raises(UsageError, match="lazy grammar needs declared tools"):
        formats.get("hermes").decoding_grammar([], "gbnf-lazy")


ARRAYS = [
    {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}],
     "minItems": 2, "maxItems": 2},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
    {"type": "array", "items": {"type": "integer"}, "minItems": 2},
    {"type": "array", "items": {"type": "integer"}, "maxItems": 0},
    {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
    {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
     "items": {"type": "boolean"}, "minItems": 1, "maxItems": 4},
    {"type": "array", "prefixItems": [{"type": "string"}], "minItems": 3},
    {"type": "array", "items": {"type": "integer"}},
]  # fmt: skip


@pytest.mark.parametrize("schema", ARRAYS)
def test_arrays_are_exactly_those_of_their_schema(schema: dict[str, Any]) -> None:
    """`prefixItems`, `items` (or `false`), `minItems` and `maxItems` together: over every
    array of up to five of `"a"`, `1` and `true`, the GBNF accepts exactly the valid ones."""
    grammar = Grammar(())
    grammar.rules["start"] = Json(json.dumps(schema))
    accepts = Recognizer(gbnf.write(grammar)).accepts
    validator = jsonschema.Draft202012Validator(schema)
    for size in range(6):
        for items in itertools.product(['"a"', "1", "true"], repeat=size):
            text = "[" + ", ".join(items) + "]"
            assert accepts(text) == validator.is_valid(json.loads(text)), text


BOUNDS = [
    {"minimum": 1},
    {"minimum": 0, "maximum": 100},
    {"minimum": -5, "maximum": 5},
    {"maximum": -3},
    {"exclusiveMinimum": 12.5, "maximum": 4567},
    {"minimum": 7, "maximum": 7},
    {"exclusiveMinimum": -1000, "exclusiveMaximum": -99},
    {"minimum": 10, "maximum": 19},
    {"minimum": 99, "maximum": 1001},
]  # fmt: skip


@pytest.mark.parametrize("bounds", BOUNDS)
def test_integer_bounds_admit_exactly_the_integers_between(bounds: dict[str, Any]) -> None:
    """Integer bounds, as llama.cpp's json-schema-to-grammar writes them: over every integer
    from -1,200 to 5,000 the GBNF accepts exactly those the schema admits (written as JSON
    writes them: `007`, `-0` and `1.0` refused); nothing is dropped."""
    schema = {"type": "integer", **bounds}
    grammar = Grammar(())
    grammar.rules["start"] = Json(json.dumps(schema))
    text = gbnf.write(grammar)
    assert grammar.dropped == []
    accepts = Recognizer(text).accepts
    validator = jsonschema.Draft202012Validator(schema)
    for number in range(-1200, 5001):
        assert accepts(str(number)) == validator.is_valid(number), number
    assert not any(accepts(t) for t in ("007", "-0", "1.0", "01", "-"))


def test_bounds_on_other_numbers_are_dropped() -> None:
    for schema in ({"type": "number", "minimum": 1}, {"type": ["integer", "number"], "maximum": 2},
                   {"type": "integer", "minimum": 5, "maximum": 4}):  # fmt: skip
        grammar = Grammar(())
        grammar.rules["start"] = Json(json.dumps(schema))
        gbnf.write(grammar)
        assert len(grammar.dropped) == len(schema) - 1, schema


PATTERNS = [
    "^[A-Z]{3}$", "^#W[0-9]{7}$", "[0-9]+", "^(ab|c)*d?$", "^[^a-c]{2,}$", "^.x$",
    r"^\d{5}(-\d{4})?$", r"^\w+@\w+\.com$", r"^[\s\"\\]+$", "x|y", r"^\s\d\w$",
    r"^a{2}b{1,}c{0,2}$", r"^[-+]?[0-9]*\.?[0-9]+$", r"^\x41\u00e9\t$", "^(?:a|b)+?$",
]  # fmt: skip
TEXTS = st.text(st.sampled_from('abcdxyAZ09#W-+.@_ "\\\n\té\x01'), max_size=9)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_pattern_admits_exactly_the_strings_it_matches(pattern: str) -> None:
    """A string's `pattern` (searched, as JSON Schema does) in GBNF: over strings drawn
    from it and others, written as JSON writes them, the GBNF accepts exactly those it
    matches as ECMA-262 reads it (`$` the very end, `\\d \\w \\s` ASCII), all of which
    Python's `re.search` (the validation's) matches too; nothing is dropped."""
    schema = {"type": "string", "pattern": pattern}
    grammar = Grammar(())
    grammar.rules["start"] = Json(json.dumps(schema))
    accepts = Recognizer(gbnf.write(grammar)).accepts
    assert grammar.dropped == []

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(st.one_of(st.from_regex(pattern), TEXTS))
    def agree(text: str) -> None:
        written = json.dumps(text, ensure_ascii=False)
        ecma = pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern
        assert accepts(written) == bool(re.search(ecma, text, re.ASCII)), written
        assert not accepts(written) or re.search(pattern, text)

    agree()


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?=a)b",
        r"^a\b",
        r"(a)\1",
        r"^a$b",
        r"\p{L}",
        "a{2000}",
        r"\S",
        r"[\D]",
        "^a|b",
        "x|^y",
        "^(a|b$)",
    ],
)
def test_a_pattern_outside_the_linear_subset_is_dropped(pattern: str) -> None:
    schema = {"type": "string", "pattern": pattern, "maxLength": 3}
    grammar = Grammar(())
    grammar.rules["start"] = Json(json.dumps(schema))
    assert Recognizer(gbnf.write(grammar)).accepts('"abc"')  # its lengths written instead
    assert grammar.dropped == [f"a value: pattern {json.dumps(pattern)}"]


STRINGS = [
    ({"pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3}, []),  # implied
    ({"pattern": "^[a-z_]+$", "maxLength": 5}, []),
    ({"pattern": "^#W[0-9]+$", "minLength": 4, "maxLength": 6}, []),
    ({"pattern": "^(abc|de)$", "minLength": 3}, []),
    ({"pattern": "^x", "minLength": 2, "maxLength": 4}, []),
    ({"pattern": "a$", "maxLength": 3}, []),
    ({"pattern": "[0-9]+", "minLength": 2, "maxLength": 4}, ["minLength", "maxLength"]),
    ({"pattern": "^(ab|c)*d?$", "minLength": 1, "maxLength": 3}, ["minLength", "maxLength"]),
    ({"pattern": "^a(b|cd)x*$", "maxLength": 6}, ["maxLength"]),
    ({"format": "date", "minLength": 10, "maxLength": 12}, []),
    ({"format": "time", "minLength": 9, "maxLength": 12}, ["maxLength"]),
    ({"format": "uuid", "pattern": "^a"}, ["pattern"]),
    ({"minLength": 2, "maxLength": 3}, []),
]  # fmt: skip
_DATE = r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_TIME = r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
_FORMATS = {
    "date": f"^{_DATE}$",
    "time": f"^{_TIME}$",
    "uuid": "^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$",
}
STRING_TEXTS = st.text(st.sampled_from('abcdexAZ09#W-:.+Z_ "\\\n\té\U0001f600'), max_size=8)


def _valid(schema: dict[str, Any], text: str) -> bool:
    """Whether `text` satisfies `schema`'s string keywords (patterns read as ECMA-262)."""
    pattern = _FORMATS.get(schema.get("format", "")) or schema.get("pattern", "")
    ecma = pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern
    return bool(re.search(ecma, text, re.ASCII)) and schema.get("minLength", 0) <= len(
        text
    ) <= schema.get("maxLength", len(text))


@pytest.mark.parametrize(("schema", "dropped"), STRINGS)
def test_a_pattern_and_lengths_are_written_together(
    schema: dict[str, Any], dropped: list[str]
) -> None:
    """A string's pattern (or format) and lengths in one GBNF expression: nothing dropped
    where the pattern varies in length in one place only or implies the lengths, else the
    lengths it does not imply, reported; over strings drawn from the pattern and others,
    the GBNF accepts exactly those valid for what it keeps, and a string spelled with `\\u`
    escapes (a surrogate pair for `😀`) only if valid for that too."""
    grammar = Grammar(())
    grammar.rules["start"] = Json(json.dumps({"type": "string", **schema}))
    accepts = Recognizer(gbnf.write(grammar)).accepts
    assert [line.split(": ")[1].split(" ")[0] for line in grammar.dropped] == dropped
    kept = {k: v for k, v in schema.items() if k not in dropped}
    source = _FORMATS.get(schema.get("format", "")) or schema.get("pattern") or ".*"

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(st.one_of(st.from_regex(source, fullmatch=True), STRING_TEXTS))
    def agree(text: str) -> None:
        assert accepts(json.dumps(text, ensure_ascii=False)) == _valid(kept, text), text
        assert not accepts(json.dumps(text)) or _valid(kept, text), text

    agree()
