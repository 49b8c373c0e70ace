"""Grammar and parser over recorded and rendered real outputs: canitoolcall's fixtures (a
pip package of outputs rendered by the families' chat templates, taken from engines'
test suites and bug reports, with their tools and generation prompts). Whatever a
format's GBNF (`stop=False`: the fixtures end before their stop token) accepts, protocall
reads with no error and no validation error; the fixtures the grammar refuses are
spellings outside the written form (docs/grammar.md), counted, not asserted."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import recorded_outputs
from canitoolcall.fixtures import Fixture
from gbnf_recognizer import Recognizer

from protocall import formats
from protocall.combinators import UsageError

CASES = recorded_outputs.cases()


def read_clean(name: str, fixture: Fixture, prompt: str | None) -> bool:
    session = formats.get(name).parser(recorded_outputs.tools(fixture), prompt)
    session.feed(fixture.raw_output)
    session.finish()
    message = session.message
    return not message.errors and not any(c.validation_errors for c in message.tool_calls)


@pytest.mark.slow
def test_whatever_the_grammar_accepts_of_real_outputs_protocall_reads_clean() -> None:
    assert len(CASES) > 300  # of the package's 469 fixtures
    counts: Counter[str] = Counter()
    for fixture, name in CASES:
        fmt = formats.get(name)
        prompt = recorded_outputs.generation_prompt(fixture)
        try:
            gbnf = fmt.decoding_grammar(recorded_outputs.tools(fixture), "gbnf",
                                        generation_prompt=prompt, stop=False)  # fmt: skip
        except UsageError:
            counts["no grammar for its tools"] += 1
            continue
        accepted = Recognizer(gbnf).accepts(fixture.raw_output)
        clean = read_clean(name, fixture, prompt)
        counts[f"{'accepted' if accepted else 'refused'}, {'clean' if clean else 'not'}"] += 1
        assert clean or not accepted, f"{fixture.id} ({name}): the grammar accepts a bad read"
    print(json.dumps(counts, indent=1))
    assert counts["accepted, clean"] > 0
