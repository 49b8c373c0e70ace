"""The kit reads real text too: every spelling of every marker is rendered
(`testing.spellings`), and a file of real outputs (JSON lines) is judged one-shot and
streamed, from Python (`judge_examples`), the command line (`protocall check NAME
--examples FILE`) and the pytest fixture."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from protocall import cli, formats
from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.pytest_plugin import protocall_check  # noqa: F401  (the fixture)
from protocall.spec import Call, Section, Spec
from protocall.spec.codecs import NameAndArguments
from protocall.testing import check_format, judge_examples, read_examples
from protocall.testing.spellings import respellings

WEATHER = [{"name": "get_weather", "parameters": {"type": "object", "properties": {
    "location": {"type": "string"}}}}]  # fmt: skip
PARIS = {"name": "get_weather", "arguments": {"location": "Paris"}}
HERMES_CALL = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>'
)
GOOD = [
    {
        "output": f"<think>Rain?</think>Checking.{HERMES_CALL}",
        "generation_prompt": "<|im_start|>assistant\n",
        "tools": WEATHER,
        "expected": {"reasoning": "Rain?", "content": "Checking.", "tool_calls": [PARIS]},
    },
    {"output": "Just text.", "expected": {"content": "Just text."}},
    {"output": f"{HERMES_CALL}<|im_end|>", "tools": WEATHER},  # judged by the properties only
]


def write(path: Path, entries: list[Any]) -> Path:
    lines = [entry if isinstance(entry, str) else json.dumps(entry) for entry in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_real_outputs_read_as_expected(tmp_path: Path) -> None:
    report = judge_examples(formats.get("hermes"), read_examples(write(tmp_path / "e", GOOD)))
    assert report.ok and report.count == 3, report
    assert str(report) == (
        "format `hermes`: 3 of 3 examples read as expected (one-shot and streamed)"
    )


def test_an_output_read_otherwise_is_reported_by_its_line(tmp_path: Path) -> None:
    wrong = {"output": "Just text.", "expected": {"content": "Other."}}
    path = write(tmp_path / "e", [*GOOD, "// a comment", "", wrong])
    report = judge_examples(formats.get("hermes"), read_examples(path))
    assert not report.ok and [where for where, _ in report.failures] == [f"{path}:6"]
    assert "'content': 'Other.'" in str(report) and "'content': 'Just text.'" in str(report)
    with pytest.raises(AssertionError, match="3 of 4 examples"):
        report.raise_if_failed()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{", "invalid JSON"),
        ('{"text": "x"}', 'an object with an "output" string'),
        ('{"output": "x", "expect": {}}', "unknown keys ['expect']"),
        ('{"output": "x", "tools": "get_weather"}', '"tools" is a list of tools or null'),
        ('{"output": "x", "tools": [{"parameters": {}}]}', "a tool needs a function name"),
        ('{"output": "x", "expected": {"calls": []}}', '"expected" is an object with keys'),
        ('{"output": "x", "expected": {"tool_calls": [{}]}}', '"tool_calls" is a list'),
    ],
)
def test_a_line_that_is_no_example_is_a_usage_error_naming_it(
    tmp_path: Path, line: str, message: str
) -> None:
    path = write(tmp_path / "e", [GOOD[1], line])
    with pytest.raises(UsageError, match=re.escape(f"{path}:2: ") + ".*" + re.escape(message)):
        read_examples(path)


def test_check_examples_file_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "good.jsonl", GOOD)
    assert cli.main(["check", "hermes", "--examples", str(path)]) == 0
    assert capsys.readouterr().out.startswith("format `hermes`: 3 of 3 examples read")
    bad = write(tmp_path / "bad.jsonl", [{"output": "x", "expected": {"content": "y"}}])
    assert cli.main(["check", "hermes", "--examples", str(bad)]) == 1
    assert f"✗ {bad}:1: parses back" in capsys.readouterr().out
    assert cli.main(["check", "hermes", "--examples", str(tmp_path / "missing")]) == 2
    assert "cannot read examples from" in capsys.readouterr().err
    assert cli.main(["check", "hermes", "--examples", str(path), "--seed", "1"]) == 2


def test_the_fixture_takes_the_same_file(tmp_path: Path, protocall_check: Any) -> None:  # noqa: F811
    good = write(tmp_path / "good.jsonl", GOOD)
    protocall_check("hermes", examples=good, max_examples=3, seed=0)
    bad = write(tmp_path / "bad.jsonl", [{"output": "x", "expected": {"content": "y"}}])
    with pytest.raises(AssertionError, match=r"0 of 1 examples read as expected"):
        protocall_check("hermes", examples=bad, max_examples=3, seed=0)


# A template that does not match the model's real text passes every property of the kit
# (the kit renders the template), and the real outputs say so.
PLUGIN = Spec(
    name="plugin",
    summary="a call template written without the space the model writes",
    call=Call("<|action_start|><|plugin|>\n{call}<|action_end|>", NameAndArguments()),
    stops=("<|im_end|>",),
)


def test_real_outputs_catch_a_template_the_kit_cannot(tmp_path: Path) -> None:
    fmt = build(PLUGIN)
    assert check_format(fmt, max_examples=5, seed=0).ok
    real = '<|action_start|> <|plugin|>\n{"name": "get_weather", "parameters": {}}<|action_end|>'
    example = {"output": real, "expected": {"tool_calls": [{"name": "get_weather"}]}}
    report = judge_examples(fmt, read_examples(write(tmp_path / "e", [example])))
    assert not report.ok


def test_every_spelling_is_listed_for_the_kit_to_write() -> None:
    assert respellings(formats.get("granite")) == (
        (("<|tool_call|>", "<tool_call>"),),
        (("<|end_of_text|>", "<response>"),),
        (("<|end_of_text|>", "</response>"),),
    )
    assert respellings(formats.get("mistral")) == (
        (("[THINK]", "<think>"), ("[/THINK]", "</think>")),
    )
    dsml = respellings(formats.get("deepseek-v3.2"))
    invoke = tuple(pair for pair in dsml[1] if pair[0] == "<｜DSML｜invoke")
    assert invoke == (("<｜DSML｜invoke", "<|DSML|invoke"),)


def test_a_spelling_the_grammar_does_not_read_fails_the_kit() -> None:
    """A format that claims an end spelling its grammar does not read (its grammar built
    without it): the kit writes that spelling and reports it."""
    section = Section(("<calls>",), ("</calls>",))
    spec = Spec(
        name="claims",
        summary="claims a spelling it does not read",
        call=Call("<call>{call}</call>", NameAndArguments()),
        section=section,
        stops=("<|end|>",),
    )
    claimed = replace(spec, section=replace(section, ends=("</calls>", "</calls_end>")))
    fmt = replace(build(spec), spec=claimed)
    report = check_format(fmt, max_examples=40, seed=0, runs=["valid turns"])
    assert not report.ok
    assert "'</calls_end>' for '</calls>'" in str(report)
