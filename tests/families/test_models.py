"""Model names: `formats.get` and `-f` take the names of the model families the formats read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import protocall
from protocall import cli, formats
from protocall.combinators import UsageError
from protocall.formats.models import MODELS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command line in this process: its status, stdout and stderr."""
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("model", MODELS)
def test_a_model_name_gives_its_format_starting_where_its_template_leaves_it(model: str) -> None:
    name, start = MODELS[model]
    fmt = formats.get(model)
    assert fmt.name == name and fmt.default_start == start
    assert fmt.grammar is formats.get(name).grammar
    assert f"`{name}`" in README  # a format of the README's table


def test_no_model_name_is_also_a_format_name() -> None:
    assert not set(MODELS) & set(formats.names())


def test_a_model_name_is_read_in_any_case_and_spacing_as_one_shared_format() -> None:
    assert formats.get("Kimi K2.5") is formats.get("kimi-k2.5") is formats.get("KIMI_K2.5")
    assert formats.get("Hermes") is formats.get("hermes")


def test_a_model_whose_template_pre_opens_reasoning_reads_its_text_as_reasoning() -> None:
    message = protocall.parse("Let me reason.</think>The answer.", "qwen3.5")
    assert (message.reasoning_content, message.content) == ("Let me reason.", "The answer.")


@pytest.mark.parametrize(
    ("name", "suggested"),
    [("qwen3.5-coder", "qwen3-coder"), ("kimi-k2.7", "kimi-k2.6"), ("deepseek-r2", "deepseek-r1")],
)
def test_a_near_miss_suggests_the_nearest_names(name: str, suggested: str) -> None:
    with pytest.raises(UsageError, match=rf"did you mean .*`{re.escape(suggested)}`"):
        formats.get(name)


def test_a_name_far_from_every_name_lists_the_formats() -> None:
    with pytest.raises(UsageError, match=r"unknown format 'zzz' \(nor a model name\); registered"):
        formats.get("zzz")


def test_the_cli_names_a_model_s_format(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "formats", "--model", "qwen3")
    assert status == 0 and out.startswith("qwen3 writes format hermes\nhermes\n")
    entry = json.loads(run(capsys, "formats", "--model", "deepseek-r1", "--json")[1])
    assert (entry["model"], entry["name"], entry["default_start"]) == (
        "deepseek-r1",
        "deepseek-v3",
        "reasoning",
    )
    listed = json.loads(run(capsys, "formats", "--models", "--json")[1])
    assert listed["qwen3.6"] == {"format": "qwen3-coder", "default_start": "reasoning"}


def test_parse_takes_a_model_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "output.txt"
    output.write_text("Let me reason.</think>The answer.", encoding="utf-8")
    message = json.loads(run(capsys, "parse", "-f", "Qwen3.5", str(output))[1])
    assert (message["reasoning_content"], message["content"]) == ("Let me reason.", "The answer.")


def test_a_misspelt_model_name_is_bad_usage_with_a_suggestion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "parse", "-f", "qwen3.5-coder", str(tmp_path / "unread"))
    assert status == 2
    assert "did you mean `qwen3-coder`" in err and err.count("\n") == 1
