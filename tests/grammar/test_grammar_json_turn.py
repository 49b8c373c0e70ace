"""The grammar of a turn that is one JSON object (`JsonTurn`, the `generic` format), with
llguidance as the oracle: the answer, the calls or both, as the renderer writes them; a
tool choice makes the calls required; lazy grammars and structural tags refuse by name."""

from __future__ import annotations

import pytest
from grammar_oracle import check

from protocall import formats
from protocall.combinators import UsageError

TOOLS = [
    {
        "name": "special_function",
        "parameters": {
            "type": "object",
            "properties": {"arg1": {"type": "integer"}},
            "required": ["arg1"],
        },
    }
]
FORMAT = formats.get("generic")
ANSWER = '{"response": "Hello, world!\\nWhat\'s up?"}'
CALLS = '{"tool_calls": [{"id": "call0001", "name": "special_function", "arguments": {"arg1": 1}}]}'
BOTH = (
    '{"response": "Checking.", "tool_calls": [{"id": "0", "name": "special_function", '
    '"arguments": {"arg1": 2}}, {"id": "1", "name": "special_function", "arguments": {"arg1": 3}}]}'
)


def test_the_answer_the_calls_or_both_are_accepted() -> None:
    grammar = FORMAT.decoding_grammar(TOOLS)
    for text in (ANSWER, CALLS, BOTH, "{\n  " + ANSWER[1:-1] + "\n}"):
        assert check(grammar, text).accepted, text
    for text in (
        '{"response": 1}',
        '{"tool_calls": [{"id": "0", "name": "other", "arguments": {}}]}',
        "Hello",
        '{"tool_calls": []}',
    ):
        assert not check(grammar, text).accepted, text


def test_a_tool_choice_requires_the_calls_and_no_parallel_one_call() -> None:
    required = FORMAT.decoding_grammar(TOOLS, tool_choice="required")
    assert not check(required, ANSWER).accepted
    assert check(required, CALLS).accepted and check(required, BOTH).accepted
    single = FORMAT.decoding_grammar(TOOLS, parallel=False)
    assert check(single, CALLS).accepted and not check(single, BOTH).accepted


def test_without_tools_the_answer_only() -> None:
    grammar = FORMAT.decoding_grammar([])
    assert check(grammar, ANSWER).accepted and not check(grammar, CALLS).accepted


def test_the_gbnf_grammar_exports() -> None:
    assert FORMAT.decoding_grammar(TOOLS, "gbnf").startswith('root ::= "{"')


@pytest.mark.parametrize("dialect", ["gbnf-lazy", "structural-tag"])
def test_no_trigger_opens_the_turn(dialect: str) -> None:
    with pytest.raises(UsageError, match="the whole turn is one JSON object"):
        FORMAT.decoding_grammar(TOOLS, dialect)
