"""Grammar and parser over recorded and rendered real outputs: canitoolcall's fixtures (a
pip package of outputs rendered by the families' chat templates, taken from engines'
test suites and bug reports, with their tools and generation prompts). Whatever a
format's GBNF (`stop=False`: the fixtures end before their stop token) accepts, protocall
reads with no error and no validation error; the fixtures the grammar refuses are
spellings outside the written form (docs/grammar.md), counted, not asserted."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from gbnf_recognizer import Recognizer

from protocall import formats
from protocall.combinators import UsageError

fixtures = pytest.importorskip("canitoolcall.fixtures")


FAMILIES = {
    "llama": (("Llama-4", "llama-4"), ("", "llama-3")),
    "gemma4": (("", "gemma-4"),),
    "qwen3-hermes": (("", "hermes"),),
    "qwen3-xml": (("", "qwen3-coder"),),
    "mistral": (("", "mistral"),),
    "glm": (("GLM-4.5", "glm-4.5"), ("GLM-4.6", "glm-4.5"), ("", "glm-4.7")),
    "kimi": (("K3", "kimi-k3"), ("", "kimi-k2")),
    "gpt-oss": (("", "gpt-oss"),),
    "deepseek": (("V4.1", "deepseek-v4.1"), ("V4", "deepseek-v4"), ("V3.2", "deepseek-v3.2"),
                 ("V3.1", "deepseek-v3.1"), ("", "deepseek-v3")),
}  # fmt: skip
"""canitoolcall's families as protocall's formats: the first whose text the fixture's first
model name holds (written for these tests)."""


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    """(fixture id, format name, fixture) for each fixture of a family in `FAMILIES`."""
    found = []
    for path in fixtures.iter_fixture_files([fixtures.default_fixtures_dir()]):
        for _, fixture in fixtures.read_jsonl(path):
            model = (fixture.get("models") or [""])[0]
            choices = FAMILIES.get(fixture["family"], ())
            name = next((name for text, name in choices if text in model), None)
            if name is not None:
                found.append((fixture["id"], name, fixture))
    return found


CASES = _cases()


def _tools(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool.get("function", tool) for tool in fixture.get("tools") or ()]


def read_clean(name: str, fixture: dict[str, Any], prompt: str) -> bool:
    session = formats.get(name).parser(_tools(fixture), prompt)
    session.feed(fixture["raw_output"])
    session.finish()
    message = session.message
    return not message.errors and not any(c.validation_errors for c in message.tool_calls)


@pytest.mark.slow
def test_whatever_the_grammar_accepts_of_real_outputs_protocall_reads_clean() -> None:
    assert len(CASES) > 300  # of the package's 469 fixtures
    counts: Counter[str] = Counter()
    for ident, name, fixture in CASES:
        fmt = formats.get(name)
        prompt = fixture.get("generation_prompt") or fmt.prompt_for(None)
        try:
            gbnf = fmt.decoding_grammar(_tools(fixture), "gbnf", generation_prompt=prompt,
                                        stop=False)  # fmt: skip
        except UsageError:
            counts["no grammar for its tools"] += 1
            continue
        accepted = Recognizer(gbnf).accepts(fixture["raw_output"])
        clean = read_clean(name, fixture, prompt)
        counts[f"{'accepted' if accepted else 'refused'}, {'clean' if clean else 'not'}"] += 1
        assert clean or not accepted, f"{ident} ({name}): the grammar accepts a bad read"
    print(json.dumps(counts, indent=1))
    assert counts["accepted, clean"] > 0
