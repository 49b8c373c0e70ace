"""What a user's type checker sees: session options and finish reasons are typed, so a typo
in either is a mypy error in the user's code, not a silent default at run time."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from protocall.session import Session, SessionOptions

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """\
import protocall
from protocall.openai import DeltaStream, FinishReason, finish_reason

TOOLS = [{"name": "get_weather"}]
session = protocall.formats.get("hermes").parser(TOOLS, None, reject_invalid=True, seed=1)
message = protocall.parse("Hi", "hermes", TOOLS, passthrough_malformed=False)
reason: FinishReason = finish_reason(message)
ended = DeltaStream().finish_reason() == "tool_calls"
"""
TYPOS = """\
typo = protocall.formats.get("hermes").parser(TOOLS, None, passthrough_malformd=False)
wrong = protocall.parse("Hi", "hermes", TOOLS, seed="1")
reason = "tool_call"
"""


def mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` on `source` as a user's script, against this checkout's protocall."""
    script = tmp_path / "user_script.py"
    script.write_text(source, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("typing")
    clean = mypy(folder, SCRIPT)
    typos = mypy(folder, SCRIPT + TYPOS)
    return {"clean": clean.stdout + clean.stderr, "typos": typos.stdout}


def test_a_correct_script_type_checks(checked: dict[str, str]) -> None:
    assert "Success: no issues found" in checked["clean"], checked["clean"]


def test_a_misspelt_option_is_a_type_error(checked: dict[str, str]) -> None:
    assert 'Unexpected keyword argument "passthrough_malformd"' in checked["typos"]


def test_an_option_of_the_wrong_type_is_a_type_error(checked: dict[str, str]) -> None:
    assert 'Argument "seed" to "parse" has incompatible type "str"' in checked["typos"]


def test_a_misspelt_finish_reason_is_a_type_error(checked: dict[str, str]) -> None:
    assert "Literal['tool_call']\", variable has type \"Literal" in checked["typos"]


def test_the_typed_options_are_the_session_s_keyword_options() -> None:
    keywords = inspect.signature(Session.__init__).parameters.values()
    expected = {p.name for p in keywords if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert set(SessionOptions.__annotations__) == expected
