"""A reasoning close where no block was open is reported, never merged into content silently.

Many templates pre-open the reasoning block in the generation prompt; a caller that does
not pass that prompt gets a turn whose reasoning, as parsed, is content followed by a
stray close. The text stays content (what was emitted is final) and the close is an
`unopened_reasoning` error naming the likely cause (docs/semantics.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocall
from protocall import cli, formats
from protocall.formats import Format
from protocall.testing import chunkings, stream

NOT_A_BLOCK = {"gpt-oss", "inkling", "muse", "muse-glimmer", "solar-open", "beam"}
"""Their closes end any block (Solar Open's any message: an answer's before the calls';
Beam's `<|end|>` an answer's and a call's too)."""
THINKING = [
    name
    for name in formats.names()
    if "reasoning" in formats.get(name).channels and name not in NOT_A_BLOCK
]


def unopened(fmt: Format) -> tuple[str, str, str | None]:
    """A turn that closes a reasoning block its prompt did not open: its text, the close,
    and the prompt (one that opens nothing)."""
    close = fmt.channels["reasoning"][1]
    return f"Let me reason.{close}The answer.", close, fmt.prompts[None]


WITHOUT_REASONING = {"llama-3", "llama-4", "pythonic", "jamba", "phi-4-mini", "granite-20b-fc"}
WITHOUT_REASONING |= {"functionary-v3.1", "functionary-v3.2", "gigachat-3", "functiongemma"}
WITHOUT_REASONING |= {"generic"}


def test_every_format_with_a_reasoning_block_but_gpt_oss_is_covered() -> None:
    assert set(formats.names()) - set(THINKING) == WITHOUT_REASONING | NOT_A_BLOCK


@pytest.mark.parametrize("name", THINKING)
def test_a_close_with_no_block_open_is_reported_and_the_text_stays_content(name: str) -> None:
    fmt = formats.get(name)
    text, close, prompt = unopened(fmt)
    message = protocall.parse(text, name, generation_prompt=prompt)
    assert (message.content, message.reasoning_content) == ("Let me reason.The answer.", None)
    [error] = message.errors
    assert (error.code, error.offset, error.raw) == ("unopened_reasoning", 14, close)
    assert "pass generation_prompt" in error.message


@pytest.mark.parametrize("name", THINKING)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_the_report_is_the_same_in_every_chunking(name: str, data: st.DataObject) -> None:
    fmt = formats.get(name)
    text, close, prompt = unopened(fmt)
    whole = stream(fmt, [text], generation_prompt=prompt)
    for chunks in (list(text), data.draw(chunkings(text, (close,)))):
        split = stream(fmt, chunks, generation_prompt=prompt)
        assert split.merged_events == whole.merged_events
        assert split.message == whole.message


@pytest.mark.parametrize("name", THINKING)
def test_a_close_of_a_block_the_prompt_pre_opened_is_no_error(name: str) -> None:
    fmt = formats.get(name)
    text, _, _ = unopened(fmt)
    opening = fmt.prompt_for("reasoning") or fmt.prompts[None] + fmt.channels["reasoning"][0]
    message = protocall.parse(text, name, generation_prompt=opening)
    assert (message.reasoning_content, message.content) == ("Let me reason.", "The answer.")
    assert message.errors == ()


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder", "deepseek-v3", "kimi-k2", "seed-oss"])
def test_a_second_close_after_a_block_the_model_opened_is_a_silent_stray(name: str) -> None:
    fmt = formats.get(name)
    opener, close = fmt.channels["reasoning"]
    message = protocall.parse(
        f"{opener}R{close}A{close}B", name, generation_prompt=fmt.prompts[None]
    )
    assert (message.reasoning_content, message.content, message.errors) == ("R", "AB", ())


def test_repeated_closes_are_reported_once() -> None:
    message = protocall.parse("a</think></think>b</think></think>c", "hermes")
    assert message.content == "abc"
    errors = [(error.code, error.offset, error.raw) for error in message.errors]
    assert errors == [("unopened_reasoning", 1, "</think>")]


def test_a_close_before_any_content_closes_an_empty_block_silently() -> None:
    message = protocall.parse(" \n</think>\n\nThe answer.</think>", "hermes")
    assert (message.content, message.reasoning_content, message.errors) == ("The answer.", None, ())


def test_a_model_name_whose_template_pre_opens_needs_no_prompt() -> None:
    message = protocall.parse("Let me reason.</think>The answer.", "qwen3.5")
    assert (message.reasoning_content, message.content, message.errors) == (
        "Let me reason.",
        "The answer.",
        (),
    )


def test_the_cli_exits_1_naming_the_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "output.txt"
    output.write_text("Let me reason.</think>The answer.", encoding="utf-8")
    assert cli.main(["parse", "-f", "qwen3-coder", str(output)]) == 1
    out, err = capsys.readouterr()
    assert '"content": "Let me reason.The answer."' in out
    assert "pass generation_prompt" in out and "unopened_reasoning" in err


def test_the_semantics_page_states_the_rule_for_every_format_with_reasoning() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "semantics.md").read_text("utf-8")
    rows = {line.split(" | ")[0]: line for line in page.splitlines() if line.startswith("| `")}
    for name in [*THINKING, *NOT_A_BLOCK]:
        fmt = formats.get(name)
        close = fmt.channels["reasoning"][1].replace("|", "\\|")
        starts = "reasoning" if fmt.default_start == "reasoning" else "content"
        assert f" | `{close}`" in rows[f"| `{name}`"] and f" | {starts} | " in rows[f"| `{name}`"]
