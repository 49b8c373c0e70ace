"""llama.cpp's own grammar parser and matcher (`llamacpp_oracle`, through node-llama-cpp's
prebuilt binary) on the exported GBNF: every export of every format parses there, with
the real tool set and every option, and over the kit's turns, mutated calls and the real
spellings llama.cpp accepts exactly the texts the project's GBNF recognizer accepts."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from gbnf_recognizer import Recognizer
from grammar_oracle import DEL, EXPORTABLE, TRIGGERED, calls, turn_in_order
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llamacpp_oracle import LlamaCpp, available
from test_grammar_agreement import READ_BAD, READ_CLEAN
from test_grammar_agreement import TOOLS as AGREEMENT_TOOLS
from test_grammar_gbnf import BOUNDS, PATTERNS
from test_grammar_schemas import CALLS as REAL_CALLS
from test_grammar_schemas import TOOLS as REAL_TOOLS

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.grammar import Options, export, gbnf
from protocall.grammar.ir import Grammar, Json
from protocall.testing import cases
from protocall.testing.strategies import render

pytestmark = pytest.mark.skipif(not available(), reason="llama.cpp's oracle is not installed")


@pytest.fixture(scope="module")
def llama_cpp() -> Iterator[LlamaCpp]:
    oracle = LlamaCpp()
    yield oracle
    oracle.close()


OPTIONS = [
    Options(),
    Options(tool_choice="required", parallel=False),
    Options(tool_choice="search_direct_flight", reasoning=False),
    Options(stop=False),
]


@pytest.mark.parametrize("name", EXPORTABLE)
def test_every_gbnf_export_parses_in_llama_cpp(name: str, llama_cpp: LlamaCpp) -> None:
    fmt = formats.get(name)
    for options in OPTIONS:
        for prompt in {fmt.prompt_for(None), fmt.prompt_for(True), fmt.prompt_for(False)}:
            start = fmt.start_state(prompt)
            if start == "reasoning" and not options.reasoning:
                continue  # a UsageError: the prompt opened the block the options forbid
            for dialect in ("gbnf", "gbnf-lazy") if name in TRIGGERED else ("gbnf",):
                text = export(fmt, REAL_TOOLS, dialect, start=start, options=options).text
                grammar = json.loads(text)["grammar"] if dialect == "gbnf-lazy" else text
                assert llama_cpp.judge(grammar, [])[0], f"{name} {dialect} {options}"


def agree(llama_cpp: LlamaCpp, grammar: str, texts: list[str]) -> list[bool]:
    """llama.cpp parses `grammar` and accepts exactly the `texts` the recognizer accepts;
    its verdicts."""
    parsed, by_llama = llama_cpp.judge(grammar, texts)
    assert parsed, grammar
    recognizer = Recognizer(grammar)
    for text, verdict in zip(texts, by_llama, strict=True):
        assert verdict == recognizer.accepts(text), f"llama.cpp {verdict} on {text!r}"
    return by_llama


@functools.cache
def _real_gbnf(name: str) -> str:
    fmt = formats.get(name)
    options = Options(tool_choice="required", parallel=False)
    return export(fmt, REAL_TOOLS, "gbnf", start=fmt.start_state(fmt.prompt_for(None)),
                  options=options).text  # fmt: skip


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder", "pythonic", "mistral", "glm-4.5"])
def test_llama_cpp_and_the_recognizer_agree_on_the_real_tools(
    name: str, llama_cpp: LlamaCpp
) -> None:
    """The valid and violating calls of the real tool set (test_grammar_schemas)."""
    fmt = formats.get(name)
    texts = [fmt.render(Turn(None, (ToolUse(tool, arguments),)), None)
             for tool, arguments in REAL_CALLS]  # fmt: skip
    verdicts = agree(llama_cpp, _real_gbnf(name), texts + [text[:-1] for text in texts])
    assert 0 < sum(verdicts) < len(texts)  # valid calls accepted, violations refused


def test_llama_cpp_and_the_recognizer_agree_on_real_spellings(llama_cpp: LlamaCpp) -> None:
    """The spellings real models write, read clean or bad (test_grammar_agreement)."""
    spellings = [(clean, *case[:3]) for clean, cases in ((True, READ_CLEAN), (False, READ_BAD))
                 for case in cases]  # fmt: skip
    for clean, name, text, prompt in spellings:
        fmt = formats.get(name)
        prompt = fmt.prompt_for(None) if prompt is None else prompt
        grammar = fmt.decoding_grammar(AGREEMENT_TOOLS, "gbnf", generation_prompt=prompt)
        assert agree(llama_cpp, grammar, [text, text[:-1]])[0] == clean, text


SETTINGS = settings(
    max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPORTABLE)
def test_llama_cpp_and_the_recognizer_agree_on_turns_and_calls(
    name: str, llama_cpp: LlamaCpp
) -> None:
    """The kit's valid turns (arguments in GBNF's order) with their prefixes, and single
    calls, valid or mutated (a wrong name, a type violation, a missing required parameter,
    a character deleted)."""
    fmt = formats.get(name)

    @SETTINGS
    @given(cases(fmt), st.data())
    def agreeing(case: Any, data: st.DataObject) -> None:
        turn = turn_in_order(case.turn, case.tools, required_first=True)
        text = render(fmt, turn, case.start)
        grammar = fmt.decoding_grammar(case.tools, "gbnf", generation_prompt=case.generation_prompt)
        assert agree(llama_cpp, grammar, [text, text[: len(text) // 2], text[:-1]])[0]
        tools, call, _ = data.draw(calls(fmt, required_first=True))
        required = fmt.decoding_grammar(tools, "gbnf", tool_choice="required", parallel=False,
                                        generation_prompt=fmt.prompt_for(None))  # fmt: skip
        agree(llama_cpp, required, [t for t in (call,) if DEL not in t])

    agreeing()


def test_llama_cpp_and_the_recognizer_agree_on_patterns_and_bounds(llama_cpp: LlamaCpp) -> None:
    """The GBNF of string patterns and integer bounds (test_grammar_gbnf's), over strings
    and numbers around them."""
    texts = ["", "AAA", "#W1234567", "ab", "abd", "\\n", '\\"', "x", "a1b", "12345-6789", "-0"]
    schemas = [{"type": "string", "pattern": p} for p in PATTERNS]
    schemas += [{"type": "integer", **bounds} for bounds in BOUNDS]
    for schema in schemas:
        grammar = Grammar(())
        grammar.rules["start"] = Json(json.dumps(schema))
        strings = [f'"{text}"' for text in texts]
        numbers = [str(n) for n in (-1000, -100, -5, -1, 0, 1, 7, 9, 12, 13, 19, 99, 4567, 4568)]
        agree(llama_cpp, gbnf.write(grammar), strings + numbers)
