"""The testing kit catches broken formats and shrinks each bug to a short counterexample,
and passes a correct one (protocall.testing, issue 6)."""

from __future__ import annotations

import functools
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import ast
from protocall.blocks.calls import Calls, tool_calls
from protocall.blocks.names import NAME_CHARS, arguments, tool_name
from protocall.blocks.prose import Reasoning, assistant_turn
from protocall.blocks.render import render_turn
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import (
    Backtrack,
    Input,
    Parser,
    Step,
    Text,
    alt,
    end_of_input,
    literal,
    many,
    optional,
    seq,
    tag,
    whitespace,
)
from protocall.events import (
    ContentDelta,
    Event,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallStart,
)
from protocall.formats import Format, registry
from protocall.pytest_plugin import protocall_check  # noqa: F401  (the fixture)
from protocall.testing import (
    RUNS,
    Report,
    byte_chunkings,
    cases,
    check_format,
    chunkings,
    is_event_prefix,
    split_at,
    stream,
    tool_names,
    values,
)
from protocall.testing.__main__ import main
from protocall.testing.properties import prefix_violation
from protocall.testing.strategies import reads_as_other_type
from protocall.tools import Tools
from protocall.values import (
    json_object,
)

THINK, END_THINK = "<think>", "</think>"
REASONING = Reasoning(THINK, END_THINK)
CALL, END_CALL, EOT = "<call>", "</call>", "<eot>"


def toy_calls(name: Parser[str] | None = None, close: Parser[Any] | None = None) -> Calls:
    body = seq(whitespace, arguments(json_object()), whitespace, close or literal(END_CALL))
    return tool_calls((CALL,), literal(CALL).then(tool_name(name)), lambda _: body,
                      (END_CALL, CALL, EOT))  # fmt: skip


def toy_grammar(
    tools: Tools | None,
    start: str | None,
    *,
    calls: Calls | None = None,
    reasoning: Reasoning | None = REASONING,
) -> Parser[Any]:
    """`<think>R</think>content<call>NAME\\n{json}</call><eot>`."""
    return assistant_turn(calls=calls or toy_calls(), stops=(EOT,), reasoning=reasoning,
                          start=start)  # fmt: skip


def render_call(call: ToolUse) -> str:
    return f"{CALL}{call.name}\n{json.dumps(call.arguments, ensure_ascii=False)}{END_CALL}"


def toy_render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=REASONING, call=render_call, stop=EOT)


def toy(name: str, grammar: Any = toy_grammar, **changes: Any) -> Format:
    options: dict[str, Any] = {
        "reserved": (THINK, END_THINK, CALL, END_CALL, EOT),
        "channels": {"reasoning": (THINK, END_THINK)},
        "prompts": {None: "", "reasoning": THINK},
    }
    return Format(name, grammar, changes.pop("render", toy_render), **{**options, **changes})


TOY = toy("toy")
VALID, TRUNCATIONS, MUTATIONS = RUNS


# -- three deliberately broken formats -----------------------------------------------------


class GreedyText(Parser[str]):
    """Content up to the first complete marker, emitted as soon as it arrives — including
    a tail that may be the start of a marker (the bug: no hold-back)."""

    def __init__(self, *markers: str) -> None:
        self.find = re.compile("|".join(map(re.escape, markers)))

    def step(self, inp: Input, pos: int) -> Step[str]:
        start = pos
        while True:
            found = self.find.search(inp.buf, pos - inp.base)
            end = found.start() + inp.base if found else inp.end
            if end > pos:
                inp.cut()
                inp.out.append(Text(inp.text(pos, end), pos))
                pos = end
            if found is not None or inp.eof:
                if pos == start:
                    raise Backtrack(pos, ("text",))
                return inp.text(start, pos), pos
            yield pos


def greedy_grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    content = tag(ast.CONTENT, GreedyText(CALL, EOT))
    segment = alt(toy_calls().call, tag(ast.END_OF_TURN, literal(EOT)), content)
    return seq(many(segment), end_of_input)


class EagerName(Parser[str]):
    """A tool name, taken as soon as what has arrived is a declared name — before its
    terminator, so `get` is announced while `get_weather` is still arriving (the bug)."""

    def __init__(self, tools: Tools | None) -> None:
        self.names = set(tools or ())
        self.pattern = re.compile(NAME_CHARS)

    def step(self, inp: Input, pos: int) -> Step[str]:
        while True:
            match = self.pattern.match(inp.buf, pos - inp.base)
            if match is not None and (
                match.end() < len(inp.buf) or inp.eof or match.group() in self.names
            ):
                return match.group(), match.end() + inp.base
            if match is None and (pos < inp.end or inp.eof):
                raise Backtrack(pos, ("a tool name",))
            yield pos


def eager_grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    return toy_grammar(tools, start, calls=toy_calls(name=EagerName(tools)))


def lenient_close_grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    """The closer is optional: a call cut off after its arguments completes (the bug)."""
    return toy_grammar(tools, start, calls=toy_calls(close=optional(literal(END_CALL))))


GREEDY = toy("toy-greedy", greedy_grammar, channels={}, prompts={None: ""})


@functools.cache
def lenient_report() -> Report:
    return check(toy("toy-lenient", lenient_close_grammar), TRUNCATIONS)


def no_implicit_end_grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    """A call opener does not end an open reasoning block (the Ling 3.0 bug)."""
    return toy_grammar(tools, start, reasoning=Reasoning(THINK, END_THINK, ends_at_call=False))


ONE_TOOL = [
    {"name": "a", "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}
]
CONFUSABLE = [{"name": "a"}, {"name": "a_b"}]


def check(fmt: Format, *runs: str, tools: Any = ONE_TOOL, examples: int = 30) -> Report:
    return check_format(fmt, tools=tools, max_examples=examples, seed=0, runs=runs or RUNS)


def shortest(report: Report, *properties: str) -> int:
    """The length of the shortest counterexample found for any of `properties`."""
    found = [len(f.text) for f in report.failures if f.property in properties]
    assert found, f"none of {properties} failed:\n{report}"
    return min(found)


def test_a_correct_format_passes() -> None:
    report = check(TOY, tools=None, examples=20)
    assert report.ok, report


def test_missing_hold_back_is_caught_and_shrunk() -> None:
    report = check(GREEDY, VALID)
    assert shortest(report, "emitted means final", "chunking invariance") <= 12


def test_name_announced_before_its_terminator_is_caught() -> None:
    report = check(toy("toy-eager", eager_grammar), VALID, tools=CONFUSABLE)
    assert shortest(report, "emitted means final", "final names") <= 30


def test_completed_truncated_call_is_caught() -> None:
    assert shortest(lenient_report(), "truncated call never completes") <= 20


def test_call_lost_in_unclosed_reasoning_is_caught() -> None:
    # the mutation this needs is one kind of eight: 60 examples draw it at seed 0
    report = check(toy("toy-no-implicit-end", no_implicit_end_grammar), MUTATIONS, examples=60)
    assert shortest(report, "parses back") <= 30
    assert any("unclosed" in f.label for f in report.failures)


def test_render_that_disagrees_with_the_grammar_is_caught() -> None:
    def spaced(turn: Turn, start: str | None) -> str:
        return render_turn(turn, start, reasoning=REASONING, call=render_call,
                           between_calls="\n", stop=EOT)  # fmt: skip

    report = check(toy("toy-spaced", render=spaced), VALID, examples=20)
    failure = next(f for f in report.failures if f.property == "parses back")
    assert "\n" + CALL in failure.text and failure.text.count(CALL) == 2


def test_inconsistent_prompts_are_reported() -> None:
    report = check_format(toy("toy-prompts", prompts={None: THINK}), runs=())
    assert "start state from the prompt" in report.failed_properties


def test_report_reads_as_a_counterexample() -> None:
    report = lenient_report()
    text = str(report)
    assert "truncated call never completes" in text
    for field in ("input:", "chunks:", "expected:", "got:", "tools:"):
        assert field in text
    with pytest.raises(AssertionError, match="truncated call never completes"):
        report.raise_if_failed()


def test_fixture_raises_with_the_report(protocall_check: Any) -> None:  # noqa: F811
    protocall_check(TOY, max_examples=5, seed=1)
    with pytest.raises(AssertionError, match="emitted means final"):
        protocall_check(GREEDY, tools=ONE_TOOL, max_examples=10, seed=0, runs=[VALID])


def test_command_line_lists_checks_and_exits_non_zero_on_failures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["--list"]) == 0
    assert "hermes" in capsys.readouterr().out
    assert main(["no-such-format"]) == 2
    assert "registered formats" in capsys.readouterr().err
    monkeypatch.setitem(registry._REGISTRY, GREEDY.name, GREEDY)
    assert main([GREEDY.name, "--examples", "10", "--seed", "0", "--runs", VALID]) == 1
    assert "emitted means final" in capsys.readouterr().out


def test_module_runs_as_a_command() -> None:
    command = [sys.executable, "-m", "protocall.testing", "--list"]
    listed = subprocess.run(command, capture_output=True, text=True, check=True)
    assert "hermes" in listed.stdout.split()


# -- the strategies -----------------------------------------------------------------------


@given(st.text(max_size=30), st.data())
@settings(max_examples=50, deadline=None)
def test_chunkings_cover_the_text(text: str, data: st.DataObject) -> None:
    assert "".join(data.draw(chunkings(text, (CALL, EOT)))) == text
    assert b"".join(data.draw(byte_chunkings(text))) == text.encode()


def test_marker_chunkings_cut_at_and_inside_every_marker() -> None:
    text = "Hi <call>a\n{}</call><eot>"
    bounds = {3, 9, 13, 20}  # each marker's start and end, but the end of the text
    split = []

    @given(chunkings(text, (CALL, END_CALL, EOT)))
    @settings(max_examples=60, deadline=None)
    def collect(chunks: list[str]) -> None:
        cuts = {sum(map(len, chunks[:i])) for i in range(1, len(chunks))}
        split.append(
            bounds <= cuts and not any(m in c for m in (CALL, END_CALL, EOT) for c in chunks)
        )

    collect()
    assert any(split)


def test_byte_chunkings_split_inside_characters() -> None:
    chunks = split_at("é東".encode(), [1, 3, 4])
    assert [len(chunk) for chunk in chunks] == [1, 2, 1, 1]

    @given(byte_chunkings("é東🙂"))
    @settings(max_examples=30, deadline=None)
    def decodes_whole(parts: list[bytes]) -> None:
        assert b"".join(parts).decode() == "é東🙂"

    decodes_whole()


@given(tool_names())
@settings(max_examples=60, deadline=None)
def test_tool_names_are_distinct_and_carry_no_terminator(names: list[str]) -> None:
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(NAME_CHARS, name) for name in names)


def test_tool_names_are_often_confusable() -> None:
    confusable = []

    @given(tool_names(min_size=3, max_size=3))
    @settings(max_examples=60, deadline=None)
    def collect(names: list[str]) -> None:
        confusable.append(any(a != b and b.startswith(a) for a in names for b in names))

    collect()
    assert sum(confusable) >= 10


SCHEMAS = [
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": ["string", "null"]},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]},
    {"enum": ["x", 1]},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"type": "string", "nullable": True},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: json.dumps(s))
def test_values_satisfy_their_schema(schema: dict[str, Any]) -> None:
    import jsonschema

    @given(values(schema, reserved=(CALL,)))
    @settings(max_examples=40, deadline=None)
    def valid(value: Any) -> None:
        if schema.get("nullable"):  # OpenAPI's spelling of a union with null
            assert value is None or jsonschema.validate(value, {"type": schema["type"]}) is None
        else:
            jsonschema.validate(value, schema)
        json.dumps(value)
        union = (
            schema.get("type") == ["string", "null"] or "anyOf" in schema or "nullable" in schema
        )
        if union and isinstance(value, str):
            assert not reads_as_other_type(value)

    valid()


@given(cases(TOY))
@settings(max_examples=40, deadline=None)
def test_generated_cases_render_with_the_format_and_avoid_its_markers(case: Any) -> None:
    assert case.text == TOY.render(case.turn, case.start)
    assert case.expected == case.turn.expected()
    content = "".join(part for part in case.turn.parts if isinstance(part, str))
    assert not any(marker in content for marker in TOY.reserved)
    assert stream(TOY, [case.text], case.tools, case.generation_prompt).message.to_dict() == (
        case.expected
    )


def test_is_event_prefix_allows_a_growing_last_delta() -> None:
    full = [ContentDelta("Hello"), ToolCallStart(0, "id", "a")]
    assert is_event_prefix([], full)
    assert is_event_prefix([ContentDelta("He")], full)
    assert is_event_prefix([ContentDelta("He"), ContentDelta("llo")], full)
    assert not is_event_prefix([ContentDelta("Hex")], full)
    assert not is_event_prefix([ToolCallStart(0, "id", "a")], full)


EVENTS = st.lists(
    st.one_of(
        st.builds(ContentDelta, st.sampled_from(["a", "b", "ab"])),
        st.builds(ReasoningDelta, st.sampled_from(["r", "s"])),
        st.builds(ToolCallStart, st.just(0), st.just("id"), st.sampled_from(["a", "a_b"])),
        st.builds(ToolCallArgumentsDelta, st.just(0), st.sampled_from(["{", "}", "{}"])),
    ),
    max_size=6,
)


@given(EVENTS, EVENTS, st.data())
@settings(max_examples=100, deadline=None)
def test_incremental_prefix_check_agrees_with_is_event_prefix(
    before: list[Event], full: list[Event], data: st.DataObject
) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(before))))
    batches = [before[a:b] for a, b in itertools.pairwise([0, *sorted(cuts), len(before)])]
    fed = itertools.accumulate(batches, lambda so_far, batch: so_far + batch)
    holds = all(is_event_prefix(events, full) for events in fed)
    assert (prefix_violation(batches, full) is None) == holds
    assert is_event_prefix(before, before + full)


def test_docs_example_runs() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "testing.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)
    assert blocks
    namespace: dict[str, Any] = {}
    exec("\n".join(blocks), namespace)
