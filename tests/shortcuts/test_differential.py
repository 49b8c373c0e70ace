"""Shortcuts on and off give the same parse: for every registered format, turns the
testing kit renders and their truncations, fed in one piece, per character and in random
chunks, give the same events (consecutive deltas of a kind merged: how text splits into
deltas is not part of the outcome), message, errors and semantic tree with the shortcuts
as with `disabled()`; so do random core grammars (`tests/core/test_properties.py`'s)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from core.test_properties import chunkings as random_chunks
from core.test_properties import grammars, inputs, observe, per_character, same_result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sampled import every_format

from protocall import formats
from protocall.formats import Format
from protocall.shortcuts import disabled, enabled
from protocall.testing.chunks import chunkings
from protocall.testing.degenerate import TOOLS, degenerate_inputs
from protocall.testing.run import merge_deltas
from protocall.testing.strategies import cases

pytestmark = pytest.mark.skipif(
    not enabled(), reason="PROTOCALL_SHORTCUTS=0: there is nothing to compare with"
)


EVERY_FORMAT = every_format(quick=("hermes", "qwen3-coder", "kimi-k2", "gemma-4"))
"""Shortcuts off are slow: the quick suite compares a smaller sample."""


def outcome(fmt: Format, tools: Any, prompt: str | None, chunks: list[str]) -> str:
    """Every event a session gives for `chunks` (deltas merged), its message and its tree."""
    session = fmt.parser(tools, prompt, seed=0)
    events = []
    for chunk in chunks:
        events += session.feed(chunk)
    events += session.finish()
    seen = (merge_deltas(events), session.message, session.ast)
    return re.sub(r"call_\w{24}", "call_…", repr(seen))


def same_with_shortcuts_off(
    fmt: Format, tools: Any, prompt: str | None, runs: list[list[str]]
) -> None:
    """Each of `runs` (a chunking each) gives the same outcome with the shortcuts off,
    switched off once for them all: a switch empties every cache of the process, so
    switching per run would make each run warm every grammar it touches again."""
    expected = [outcome(fmt, tools, prompt, chunks) for chunks in runs]
    with disabled():
        plain = [outcome(fmt, tools, prompt, chunks) for chunks in runs]
    for chunks, fast, slow in zip(runs, expected, plain, strict=True):
        assert slow == fast, chunks


@pytest.mark.parametrize("name", EVERY_FORMAT)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_rendered_turns_and_their_truncations_parse_the_same_with_shortcuts_off(
    name: str, data: st.DataObject
) -> None:
    fmt = formats.get(name)
    case = data.draw(cases(fmt))
    cut = data.draw(st.integers(0, len(case.text)))
    runs = [
        chunks
        for text in (case.text, case.text[:cut])
        for chunks in ([text], list(text), data.draw(chunkings(text, fmt.reserved)))
    ]
    same_with_shortcuts_off(fmt, case.tools, case.generation_prompt, runs)


@pytest.mark.parametrize("name", EVERY_FORMAT)
def test_degenerate_outputs_parse_the_same_with_shortcuts_off(name: str) -> None:
    """The outputs the shortcuts are for (a marker prefix or a failing head repeated)."""
    fmt = formats.get(name)
    texts = [generate(80) for generate in degenerate_inputs(fmt).values()]
    runs = [
        chunks
        for text in texts
        for chunks in ([text], list(text), [text[i : i + 3] for i in range(0, len(text), 3)])
    ]
    same_with_shortcuts_off(fmt, TOOLS, None, runs)


@pytest.mark.slow  # the core properties run in the quick suite (tests/core)
@settings(max_examples=200, deadline=None)
@given(st.data())
def test_core_grammars_parse_the_same_with_shortcuts_off(data: st.DataObject) -> None:
    """Random grammars of the core's combinators on their sentences, mutated or not: the
    same status, value, error and items (adjacent text joined), whatever the chunking."""
    grammar = data.draw(grammars())
    text = data.draw(inputs(grammar))
    runs = [[text], per_character(text), data.draw(random_chunks(text))]
    expected = [observe(grammar, chunks) for chunks in runs]
    with disabled():  # once: see `same_with_shortcuts_off`
        for chunks, fast in zip(runs, expected, strict=True):
            same_result(observe(grammar, chunks), fast)
