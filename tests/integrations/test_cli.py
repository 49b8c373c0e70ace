"""The command line as a user runs it (`python -m protocall …` in a subprocess), the bundled
demo examples, and the examples/ scripts, executed so that they cannot rot."""

from __future__ import annotations

import importlib.metadata
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clients import expected, sdk_accumulated, seen

import protocall
from protocall import cli, demo, formats
from protocall.message import Message
from protocall.openai import chunk
from protocall.transcript import Chunk, Replay, Transcript

ROOT = Path(__file__).resolve().parents[2]
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"location": {"type": "string"}},
        "required": ["location"]}}},
]  # fmt: skip
LING_PROMPT = "<role>ASSISTANT</role>\n<think>"
LING = (
    "I should call the weather tool.\n<tool_call>get_weather\n<arg_key>location</arg_key>\n"
    "<arg_value>Paris</arg_value>\n</tool_call><|role_end|>"
)
TRUNCATED = LING[:70]


def protocall_cli(*args: str, stdin: str | bytes = b"") -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        [sys.executable, "-m", "protocall", *args],
        input=data,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


Runner = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Runner:
    """`cli.main` run in this process: for details of output, where the subprocess tests
    have already shown that the real command runs the same code (this is only quicker)."""

    def run(*args: str, stdin: str | bytes = b"") -> subprocess.CompletedProcess[str]:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        try:
            status = cli.main(list(args))
        except SystemExit as exit:  # argparse's own exits
            status = int(exit.code or 0)
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), status, out, err)

    return run


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"ling": tmp_path / "ling.txt", "tools": tmp_path / "tools.json"}
    paths["ling"].write_text(LING, encoding="utf-8")
    paths["tools"].write_text(json.dumps(TOOLS), encoding="utf-8")
    return paths


def lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines()]


# -- parse ----------------------------------------------------------------------------------


def test_parse_prints_the_message_in_openai_shape(files: dict[str, Path]) -> None:
    args = ("--tools", str(files["tools"]), "--generation-prompt", LING_PROMPT, "--seed", "0")
    done = protocall_cli("parse", "--format", "ling-3", *args, str(files["ling"]))
    assert done.returncode == 0, done.stderr
    expected = protocall.parse(LING, "ling-3", TOOLS, LING_PROMPT, seed=0).to_openai()
    assert json.loads(done.stdout) == {**expected, "errors": []}
    assert expected["reasoning_content"] == "I should call the weather tool."


def test_parse_reads_stdin_as_dash() -> None:
    done = protocall_cli("parse", "-f", "hermes", "-", stdin="Hello!<|im_end|>")
    assert done.returncode == 0
    assert json.loads(done.stdout)["content"] == "Hello!"


def test_parse_events_streams_json_lines_that_add_up_to_the_message() -> None:
    done = protocall_cli("parse", "-f", "ling-3", "--events", "--chunk-size", "3", stdin=LING)
    assert done.returncode == 0
    *events, final = lines(done.stdout)
    assert final == {"type": "End", "finish_reason": "tool_calls"}  # no second copy of the text
    reasoning = "".join(e["text"] for e in events if e["type"] == "ReasoningDelta")
    assert reasoning == protocall.parse(LING, "ling-3").reasoning_content
    arguments = "".join(e["text"] for e in events if e["type"] == "ToolCallArgumentsDelta")
    [end] = [e for e in events if e["type"] == "ToolCallEnd"]
    assert arguments == end["call"]["arguments_json"] == '{"location": "Paris"}'
    assert events.index(end) == len(events) - 1


def test_parse_events_reads_bytes_so_characters_split_across_chunks_survive(
    in_process: Runner,
) -> None:
    text = "Café ☕ über alles<|im_end|>"
    done = in_process("parse", "-f", "hermes", "--events", "--chunk-size", "1", stdin=text)
    *events, final = lines(done.stdout)
    assert "".join(e["text"] for e in events) == text[:-10]
    assert final == {"type": "End", "finish_reason": "stop"}


def sdk_message(choices: list[dict[str, Any]], field: str = "reasoning_content") -> dict[str, Any]:
    """What the OpenAI SDK accumulates from `--openai` output lines."""
    sent = [chunk(c["delta"], id="x", model="m", created=0, finish_reason=c["finish_reason"])
            for c in choices]  # fmt: skip
    return seen(sdk_accumulated(sent), field)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_parse_openai_deltas_reassemble_to_the_message(in_process: Runner, field: str) -> None:
    done = in_process("parse", "-f", "ling-3", "--openai", "--seed", "0",
                      "--reasoning-field", field, stdin=LING)  # fmt: skip
    choices = lines(done.stdout)
    assert choices[0] == {"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}
    assert choices[-1] == {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
    message = protocall.parse(LING, "ling-3", seed=0)
    assert sdk_message(choices, field) == expected(message, field)


def test_parse_openai_sends_a_call_only_once_complete(in_process: Runner) -> None:
    done = in_process("parse", "-f", "ling-3", "--openai", "--allow-errors", stdin=TRUNCATED)
    choices = lines(done.stdout)
    assert all("tool_calls" not in choice["delta"] for choice in choices)
    assert choices[-1]["finish_reason"] == "length"
    tentative = in_process("parse", "-f", "ling-3", "--openai", "--tentative-calls",
                           "--allow-errors", stdin=TRUNCATED)  # fmt: skip
    calls = sdk_message(lines(tentative.stdout))["message"]["tool_calls"]
    assert [call["function"]["name"] for call in calls] == ["get_weather"]
    assert lines(tentative.stdout)[-1]["finish_reason"] == "length"


def test_parse_names_the_reasoning_field(in_process: Runner) -> None:
    done = in_process("parse", "-f", "ling-3", "--reasoning-field", "reasoning", stdin=LING)
    shown = json.loads(done.stdout)
    assert shown["reasoning"] == "I should call the weather tool."
    assert "reasoning_content" not in shown


def test_protocol_errors_exit_1_unless_allowed() -> None:
    done = protocall_cli("parse", "-f", "ling-3", stdin=TRUNCATED)
    assert done.returncode == 1
    assert done.stderr.strip() == "protocall: the output has protocol errors (truncated)"
    assert [e["code"] for e in json.loads(done.stdout)["errors"]] == ["truncated"]
    allowed = protocall_cli("parse", "-f", "ling-3", "--allow-errors", stdin=TRUNCATED)
    assert allowed.returncode == 0 and allowed.stdout == done.stdout


def test_bad_usage_exits_2_with_one_line_on_stderr() -> None:
    done = protocall_cli("parse", "--format", "no-such-format", stdin="x")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("protocall: unknown format 'no-such-format' (nor a model name);")
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("parse", "-f", "hermes", "missing.txt"), "cannot read missing.txt:"),
        (("parse", "-f", "hermes", "--tools", "missing.json"), "cannot read missing.json:"),
        (("parse", "-f", "hermes", "--tools", "{bad}"), "invalid JSON"),
        (("parse", "-f", "hermes", "--tools", "{obj}"), "expected a JSON list of tools"),
        (("parse", "-f", "hermes", "--tools", "{nameless}"), "a tool needs a function name"),
        (("parse",), "the following arguments are required: -f/--format"),
        (("parse", "-f", "hermes", "--chunk-size", "0"), "must be at least 1"),
        (("parse", "-f", "hermes", "--events", "--openai"), "not allowed with argument"),
        (("parse", "-f", "hermes", "--tentative-calls"), "--tentative-calls applies to --openai"),
        (("parse", "-f", "hermes", "--reasoning-field", "thinking"), "invalid choice: 'thinking'"),
        (("record", "-f", "nope"), "unknown format 'nope'"),
        (("replay", "{bad}"), "transcript line 1: invalid JSON"),
        (("replay", "{obj}"), "not a protocall transcript"),
        (("demo", "no-such-example"), "no demo example or format named 'no-such-example'"),
        (("check", "nope"), "unknown format 'nope'"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
        ((), "the following arguments are required: COMMAND"),
    ],
)
def test_each_kind_of_bad_usage_exits_2_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    in_process: Runner,
    args: tuple[str, ...],
    message: str,
) -> None:
    contents = {"{bad}": "[{", "{obj}": '{"a": 1}', "{nameless}": '[{"type": "function"}]'}
    for placeholder, text in contents.items():
        (tmp_path / placeholder).write_text(text)
    monkeypatch.chdir(tmp_path)
    done = in_process(*args, stdin="x")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and message in done.stderr


# -- formats, demo, check -------------------------------------------------------------------


def test_formats_lists_every_registered_format_with_markers(in_process: Runner) -> None:
    listing = protocall_cli("formats", "--json")
    entries = json.loads(listing.stdout)
    assert [entry["name"] for entry in entries] == formats.names()
    hermes = next(entry for entry in entries if entry["name"] == "hermes")
    assert hermes["channels"] == {"reasoning": ["<think>", "</think>"]}
    text = in_process("formats").stdout
    assert all(name in text for name in formats.names()) and "default start" in text


def test_demo_shows_every_available_example_without_colour_when_piped() -> None:
    done = protocall_cli("demo")
    assert done.returncode == 0
    assert "\x1b[" not in done.stdout
    for example in demo.available():
        assert example.title in done.stdout
    runs = done.stdout.count("executor ▶ runs")
    assert runs == sum(len(e.calls) - len(e.invalid) for e in demo.available())
    assert done.stdout.count("executor ✗ withheld") == sum(len(e.invalid) for e in demo.available())


def test_demo_selects_examples_by_name_or_format_and_lists_them(in_process: Runner) -> None:
    done = in_process("demo", "--no-delay", "ling-3-call-in-reasoning")
    assert done.returncode == 0
    assert "Ling 3.0" in done.stdout and "Qwen3" not in done.stdout
    assert 'get_weather({"location": "Paris"})' in done.stdout
    listing = in_process("demo", "--list").stdout
    assert all(example.name in listing for example in demo.EXAMPLES)


def test_check_runs_the_testing_kit_on_a_format() -> None:
    done = protocall_cli("check", "hermes", "--examples", "1", "--seed", "0")
    headline = done.stdout.splitlines()[0]
    assert headline.startswith("format `hermes`:") and "properties" in headline
    assert done.returncode == (0 if "hold" in headline else 1)


# -- record and replay -------------------------------------------------------------------------


def test_record_then_replay_round_trips(tmp_path: Path, in_process: Runner) -> None:
    transcript = tmp_path / "ling.jsonl"
    args = ("--generation-prompt", LING_PROMPT, "--chunk-size", "5", "-o", str(transcript))
    recorded = protocall_cli("record", "-f", "ling-3", *args, stdin=LING)
    assert recorded.returncode == 0
    assert f"recorded {len(LING.encode()) // 5 + 1} chunks" in recorded.stderr
    replayed = protocall_cli("replay", str(transcript))
    assert replayed.returncode == 0
    assert "one-shot and streamed results are identical" in replayed.stdout
    assert 'call 0 end    get_weather {"location": "Paris"}' in replayed.stdout
    as_json = lines(in_process("replay", "--json", str(transcript)).stdout)
    assert as_json[-1]["type"] == "Result" and as_json[-1]["diff"] == []
    assert as_json[-1]["message"]["reasoning_content"] == "I should call the weather tool."
    assert {line["chunk"] for line in as_json[:-1]} <= {*range(len(LING) // 5 + 1), "finish"}


def test_record_to_stdout_and_replay_from_stdin(in_process: Runner) -> None:
    recorded = protocall_cli("record", "-f", "ling-3", "--chunk-size", "8", stdin=TRUNCATED)
    replayed = protocall_cli("replay", "-", stdin=recorded.stdout)
    assert replayed.returncode == 1
    assert "error truncated" in replayed.stdout
    assert "protocol errors (truncated)" in replayed.stderr
    allowed = in_process("replay", "--allow-errors", "-", stdin=recorded.stdout)
    assert allowed.returncode == 0


def test_replay_exits_3_when_streamed_and_one_shot_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = Transcript("hermes", [Chunk(0, "a")])
    path = tmp_path / "t.jsonl"
    transcript.save(path)
    disagreeing = Replay(transcript, [[], []], Message(content="a"), Message(content="b"), [])
    monkeypatch.setattr(cli, "replay", lambda transcript, **hooks: disagreeing)
    assert cli.main(["replay", str(path)]) == 3
    out, err = capsys.readouterr()
    assert '-    "content": "b",' in out and '+    "content": "a",' in out
    assert "a parser bug" in err


def test_version_is_the_installed_distribution_s(in_process: Runner) -> None:
    done = in_process("--version")
    assert done.stdout.strip() == f"protocall {protocall.__version__}"
    assert protocall.__version__ == importlib.metadata.version("protocall")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nversion = "{protocall.__version__}"\n' in pyproject


TEMPLATE = str(ROOT / "tests" / "inference" / "chat_templates" / "xml-invoke.jinja")


@pytest.mark.parametrize("command", [["check", "hermes"], ["detect", "--check", TEMPLATE]])
def test_checking_without_hypothesis_names_the_extra_in_one_line(
    command: list[str], in_process: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in sys.modules if name.startswith("protocall.testing")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # what a base install lacks
    done = in_process(*command)
    assert done.returncode == 2
    assert done.stderr == (
        "protocall: checking a format needs Hypothesis: pip install 'protocall[testing]'\n"
    )


# -- the bundled demo examples mean what they say ----------------------------------------------


@pytest.mark.parametrize("example", demo.EXAMPLES, ids=lambda example: example.name)
def test_demo_example_has_its_stated_outcome(example: demo.Example) -> None:
    if example.format not in formats.names():
        pytest.skip(f"format {example.format} is not registered")
    _, message = demo.run(example)
    assert [call.name for call in message.tool_calls] == list(example.calls)
    assert [call.name for call in message.tool_calls if call.validation_errors] == list(
        example.invalid
    )
    assert [error.code for error in message.errors] == list(example.errors)
    whole = protocall.parse(
        example.text, example.format, example.tool_list(), example.generation_prompt, seed=0
    )
    assert whole == message


def test_demo_chunks_cover_the_text_in_small_pieces() -> None:
    text = demo.EXAMPLES[0].text
    pieces = demo.chunks(text)
    assert "".join(pieces) == text
    assert all(1 <= len(piece) <= 6 for piece in pieces)


# -- examples/ -----------------------------------------------------------------------------------


def run_example(name: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_embedding_example_streams_reasoning_and_runs_the_call() -> None:
    output = run_example("embed.py")
    assert output == "I should call the weather tool.\nrun get_weather({'location': 'Paris'})\n"


def test_the_release_agent_acts_only_on_complete_valid_approved_calls() -> None:
    approved = run_example("release_agent.py", "--approve", "yes")
    assert "protocol error (truncated), nothing ran" in approved
    assert "rejected, nothing ran: version: 'v0.2' does not match" in approved
    assert "approval for publish_release: granted" in approved
    assert approved.splitlines()[-1].startswith("published: [{'version': '0.2.0', 'notes': ")
    denied = run_example("release_agent.py", "--approve", "no")
    assert "denied by the operator, nothing ran" in denied
    assert denied.splitlines()[-1] == "published: []"


# -- docs/: the code shown runs as written ---------------------------------------------------

DOCS = ["semantics.md", "errors.md", "embedding.md"]  # writing-a-format.md: test_docs_examples


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.parametrize("page", DOCS)
def test_the_python_in_each_docs_page_runs_as_written(page: str) -> None:
    blocks = python_blocks(ROOT / "docs" / page)
    assert blocks
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(blocks)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr


def test_the_readme_shows_the_embedding_example_verbatim() -> None:
    code = (ROOT / "examples" / "embed.py").read_text(encoding="utf-8").split('"""', 2)[2]
    pages = [ROOT / "README.md"]
    shown = [
        block
        for page in pages
        for block in python_blocks(page)
        if "handle(session.finish())" in block
    ]
    assert shown
    assert all(block == code.lstrip("\n") for block in shown)


def test_parse_events_prints_the_text_once(tmp_path: Path, in_process: Runner) -> None:
    text = "A long answer. " * 20_000  # 300 KB
    path = tmp_path / "long.txt"
    path.write_text(text + "<|im_end|>", encoding="utf-8")
    done = in_process("parse", "-f", "hermes", "--events", str(path))
    assert len(done.stdout) < 1.1 * len(text)
    *events, end = lines(done.stdout)
    assert "".join(e["text"] for e in events) == text.strip() and end["type"] == "End"
