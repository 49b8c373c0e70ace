"""llama.cpp's own GBNF parser and matcher as an oracle (requirements/llamacpp: the
node-llama-cpp package, whose prebuilt CPU binary embeds llama.cpp; no model is loaded).
`LlamaCpp.judge(grammar, texts)` says whether llama.cpp parses the grammar and, per text,
whether the text is a whole sentence of it. Absent the package, the tests that need it skip,
except under PROTOCALL_REQUIRE_LLAMACPP=1 (CI installs it), where they fail."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "requirements" / "llamacpp"
BRIDGE = Path(__file__).with_name("llamacpp_bridge.mjs")


class LlamaCpp:
    """One node process holding llama.cpp, answering one grammar and its texts at a time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["node", str(BRIDGE), str(PACKAGE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def judge(self, grammar: str, texts: list[str]) -> tuple[bool, list[bool]]:
        """Whether llama.cpp parses `grammar`, and whether it accepts each of `texts`."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"grammar": grammar, "texts": texts}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "the llama.cpp bridge stopped (its message is on stderr)"
        answer = json.loads(line)
        return answer["parsed"], answer["accepted"]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def available() -> bool:
    """Whether node and the installed package are here; under PROTOCALL_REQUIRE_LLAMACPP=1
    their absence is a failure, not a skip."""
    here = shutil.which("node") is not None and (PACKAGE / "node_modules").is_dir()
    if not here and os.environ.get("PROTOCALL_REQUIRE_LLAMACPP") == "1":
        pytest.fail("llama.cpp's oracle is required: npm ci --prefix requirements/llamacpp")
    return here
