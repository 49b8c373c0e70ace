"""The code in docs/writing-a-format.md runs as written, so the page cannot rot.

The page's ```python blocks run in order in one namespace, and each `$ protocall …` line of
its ```console blocks runs the command line in the same process (so a format the page
registered is known) and must print the lines shown after it, in order; a line `…` stands
for any lines left out. The page runs in a subprocess: the formats it registers stay there.

    python tests/integrations/test_docs_examples.py docs/writing-a-format.md   # the same, by hand
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["writing-a-format.md"]
BLOCK = re.compile(r"^```(python|console)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
SKIP = "…"


def commands(block: str) -> list[tuple[str, list[str]]]:
    """The `$ protocall …` commands of a console block, each with the lines shown after it."""
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found:
            found[-1][1].append(line)
    return found


def shows(output: str, shown: list[str]) -> bool:
    """Whether `output` has the `shown` lines in order, each `…` standing for any lines (the
    output must start as shown and, unless the last line is `…`, end so)."""
    pattern = "".join(r"(?:.*\n)*?" if line == SKIP else re.escape(line) + r"\n" for line in shown)
    return (
        re.fullmatch(pattern + (r"(?:.*\n)*" if shown[-1:] == [SKIP] else ""), output) is not None
    )


def run_command(command: str) -> str:
    from protocall import cli

    program, *argv = shlex.split(command)
    if program != "protocall":
        raise AssertionError(f"a console block runs `protocall` only, not {command!r}")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(argv)
    if status != 0:
        raise AssertionError(f"`{command}` exited with {status}:\n{out.getvalue()}")
    return out.getvalue()


def run_page(path: Path) -> None:
    """Run every block of `path` in order; raise at the first that fails."""
    namespace: dict[str, object] = {"__name__": "__doc__"}
    for number, (kind, block) in enumerate(BLOCK.findall(path.read_text(encoding="utf-8")), 1):
        if kind == "python":
            exec(compile(block, f"{path.name}, block {number}", "exec"), namespace)
            continue
        for command, shown in commands(block):
            output = run_command(command)
            if not shows(output, shown):
                raise AssertionError(
                    f"{path.name}, block {number}: `{command}` printed\n{output}\n"
                    f"which does not show\n" + "\n".join(shown)
                )


def test_the_matching_of_shown_output() -> None:
    assert shows("a\nb\nc\n", ["a", SKIP, "c"]) and shows("a\nb\nc\n", ["a", SKIP])
    assert shows("a\n", ["a"]) and shows("a\nc\n", ["a", SKIP, "c"])
    assert not shows("a\nb\n", ["a"]) and not shows("a\nb\n", ["b"])
    assert not shows("a\nb\nc\n", ["a", SKIP, "b"])


def test_writing_a_format_runs_as_written() -> None:
    for page in PAGES:
        done = subprocess.run(
            [sys.executable, __file__, str(ROOT / "docs" / page)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this worktree's protocall, as `python -m pytest` has it
    run_page(Path(sys.argv[1]))
