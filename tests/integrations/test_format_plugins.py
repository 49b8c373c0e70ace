"""Formats written outside the package: a package declaring the `protocall.formats` entry
point (a real distribution's metadata on `sys.path`, read by `importlib.metadata`), a module
named with `--format-module`, and a `.py` file given where a format name goes. Each is run
through the command line's `main` as a user runs it, and once in a fresh interpreter."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocall import cli, formats
from protocall.combinators import UsageError
from protocall.formats import registry

ROOT = Path(__file__).resolve().parents[2]
ACME_MODULE = """
from protocall.compile.factory import build
from protocall.spec import Call, Spec, Think
from protocall.spec.codecs import Attribute, JsonObject

SPEC = Spec(
    name="{name}",
    summary="Acme: JSON arguments in <call name=...> tags",
    turn=Think("<reflect>", "</reflect>"),
    call=Call('<call name="{{name}}">{{arguments}}</call>', JsonObject(), name=Attribute()),
    stops=("<|end|>",),
    prompt="<|assistant|>",
)
FORMAT = build(SPEC)
"""
ACME_TEMPLATE = """
{%- for message in messages %}
{%- if message.role == 'user' %}<|user|>{{ message.content }}<|end|>
{%- elif message.role == 'assistant' %}<|assistant|>
{%- if message.reasoning_content %}<reflect>{{ message.reasoning_content }}</reflect>{% endif %}
{{- message.content }}
{%- for call in message.tool_calls or [] -%}
<call name="{{ call.function.name }}">{{ call.function.arguments | tojson }}</call>
{%- endfor %}<|end|>
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|assistant|>{% endif %}
"""
OUTPUT = '<reflect>Rain?</reflect>Checking.<call name="get_weather">{"location": "Paris"}</call>'
TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "properties": {}}}]


def distribution(root: Path, package: str, entry_points: str, source: str) -> None:
    """An installed distribution as pip leaves one: the package and its dist-info."""
    (root / package).mkdir()
    (root / package / "__init__.py").write_text(source, encoding="utf-8")
    info = root / f"{package}-1.0.dist-info"
    info.mkdir()
    name = package.replace("_", "-")
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[protocall.formats]\n{entry_points}\n", encoding="utf-8"
    )


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry as a new process has it (the built-ins load again: their modules are
    imported already, so it is quick); restored after the test."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_IMPORTED", {})
    monkeypatch.setattr(registry, "_MODEL_FORMATS", {})
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_broken", None)
    yield


@pytest.fixture
def installed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh_registry: None,
    request: pytest.FixtureRequest,
) -> Path:
    """A package `acme_formats_<n>` whose entry point names its `FORMAT`, format `acme`."""
    package = f"acme_formats_{abs(hash(request.node.name)):x}"
    distribution(tmp_path, package, f"acme = {package}:FORMAT", ACME_MODULE.format(name="acme"))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_an_installed_entry_point_is_found_by_every_command(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "acme" in formats.names() and formats.get("acme").name == "acme"
    status, out, _ = run(capsys, "formats")
    assert status == 0 and out.startswith("acme\n    Acme: JSON arguments")
    status, out, _ = run(capsys, "check", "acme", "--examples", "3", "--seed", "0")
    assert status == 0 and out.startswith("format `acme`: all")
    (installed / "out.txt").write_text(OUTPUT, encoding="utf-8")
    status, out, _ = run(capsys, "parse", "-f", "acme", str(installed / "out.txt"))
    message = json.loads(out)
    assert status == 0 and message["content"] == "Checking."
    assert message["reasoning_content"] == "Rain?"
    assert message["tool_calls"][0]["function"]["name"] == "get_weather"
    (installed / "tools.json").write_text(json.dumps(TOOLS), encoding="utf-8")
    status, out, _ = run(capsys, "grammar", "acme", "--tools", str(installed / "tools.json"))
    assert status == 0 and 'call: "get_weather\\">" %json' in out


def test_detect_finds_an_installed_family_by_its_template(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (installed / "acme.jinja").write_text(ACME_TEMPLATE, encoding="utf-8")
    status, out, _ = run(capsys, "detect", str(installed / "acme.jinja"))
    assert status == 0 and out.startswith("family: acme (built-in: Acme")


def test_a_broken_entry_point_is_an_error_naming_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh_registry: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    distribution(tmp_path, "broken_formats", "broken = broken_formats:NOTHING", "")
    monkeypatch.syspath_prepend(str(tmp_path))
    status, _, err = run(capsys, "formats")
    assert status == 2
    assert "entry point broken = 'broken_formats:NOTHING'" in err
    assert "(package broken-formats) failed to load: AttributeError" in err
    with pytest.raises(UsageError, match="broken_formats:NOTHING"):  # again, at every use
        formats.get("hermes")


def test_an_entry_point_taking_a_built_in_name_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    source = ACME_MODULE.format(name="hermes")
    distribution(tmp_path, "clash_formats", "clash = clash_formats:FORMAT", source)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageError, match=r"clash_formats:FORMAT.*'hermes' is already registered"):
        formats.get("hermes")


def test_format_module_imports_a_module_or_a_file_on_every_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh_registry: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "orca_format.py").write_text(ACME_MODULE.format(name="orca"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "out.txt").write_text(OUTPUT, encoding="utf-8")
    for module in ("orca_format", "orca_format:SPEC", str(tmp_path / "orca_format.py")):
        status, out, _ = run(capsys, "formats", "--format-module", module, "--spec", "orca")
        assert status == 0 and json.loads(out)["name"] == "orca"
        status, out, _ = run(
            capsys, "parse", "-f", "orca", "--format-module", module, str(tmp_path / "out.txt")
        )
        assert status == 0 and json.loads(out)["content"] == "Checking."


def test_check_takes_a_python_file(
    tmp_path: Path, fresh_registry: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "my_format.py"
    path.write_text(ACME_MODULE.format(name="mine"), encoding="utf-8")
    status, out, _ = run(capsys, "check", str(path), "--examples", "3", "--seed", "0")
    assert status == 0 and out.startswith("format `mine`: all")
    status, out, _ = run(capsys, "check", str(path), "--examples", "3", "--seed", "0")
    assert status == 0, "a file given twice is imported once"


def test_a_module_registering_its_formats_itself_needs_no_names(
    tmp_path: Path, fresh_registry: None
) -> None:
    path = tmp_path / "registers.py"
    source = ACME_MODULE.format(name="self-registered").replace(
        "FORMAT = build(SPEC)", "from protocall import formats\nformats.register(build(SPEC))"
    )
    path.write_text(source.replace("SPEC", "THE_SPEC"), encoding="utf-8")
    assert [fmt.name for fmt in formats.import_formats(str(path))] == ["self-registered"]


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("no_such_module_here", "cannot import format module 'no_such_module_here'"),
        ("json:nothing", "format module 'json' has no attribute 'nothing'"),
        ("json", "module 'json' defines no FORMATS, FORMAT or SPEC"),
        ("json:dumps", "json:dumps is a function, not a Format"),
        ("missing/file.py", "no format file 'missing/file.py'"),
    ],
)
def test_a_reference_naming_no_format_is_a_usage_error(
    reference: str, message: str, fresh_registry: None
) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        formats.import_formats(reference)


def test_a_file_failing_to_import_is_a_usage_error(tmp_path: Path, fresh_registry: None) -> None:
    path = tmp_path / "bad.py"
    path.write_text("raise RuntimeError('no')\n", encoding="utf-8")
    with pytest.raises(UsageError, match="failed to import: RuntimeError: no"):
        formats.import_formats(str(path))


def test_a_fresh_interpreter_finds_the_entry_point(tmp_path: Path) -> None:
    distribution(
        tmp_path, "acme_fresh", "acme = acme_fresh:FORMAT", ACME_MODULE.format(name="acme")
    )
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "protocall", "formats", "--model", "acme", "--json"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"] == "Acme: JSON arguments in <call name=...> tags"
