"""Degenerate outputs cost linear work: the work of parsing 4× the text is at most about 4×.

Work is counted, not timed: Python-level calls (cProfile's count) and the peak memory
traced while parsing, for `protocall.testing.degenerate_inputs` of every format, one-shot
and in 4-character deltas. (Time per character, C-level scans included, is measured by
`benchmarks/bench_adversarial.py`.)
"""

from __future__ import annotations

import cProfile
import gc
import pstats
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocall
from protocall import formats
from protocall.combinators.result import ParseFailure
from protocall.testing.degenerate import TOOLS, degenerate_inputs

SMALL, LARGE = 100, 400
RATIO = 6.0
"""The largest work ratio accepted for 4× the input (linear: about 4, less while a fixed
cost dominates; quadratic: about 16)."""
BYTES_PER_CHARACTER = 1000
"""Peak memory beyond a fixed cost, per character of input (the text, the output items and
the bounded undecided region fit well within it; failures kept with their tracebacks, the
old leak, took 15 K per character)."""

CASES = [
    (name, label) for name in formats.names() for label in degenerate_inputs(formats.get(name))
]
KNOWN = [
    ("llama-3", "'{' repeated"),
    ("llama-3", "'{\"a\":' nested"),
    ("pythonic", "'[' repeated"),
    ("llama-4", "'[{' nested"),
    ("pythonic", "call head, endless name"),
    ("hermes", "'<tool_call>' repeated"),
    ("gpt-oss", "'<|start|>' repeated"),
]
"""Inputs that were super-linear once; always checked."""


def parse(name: str, text: str, delta: int) -> None:
    if delta == 0:
        protocall.parse(text, name, TOOLS)
        return
    session = formats.get(name).parser(TOOLS)
    for start in range(0, len(text), delta):
        session.feed(text[start : start + delta])
    session.finish()


def calls(name: str, text: str, delta: int) -> int:
    profile = cProfile.Profile()
    profile.enable()
    parse(name, text, delta)
    profile.disable()
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


def peak_memory(name: str, text: str, delta: int) -> int:
    tracemalloc.start()
    try:
        parse(name, text, delta)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def assert_linear(name: str, label: str, delta: int) -> None:
    generate = degenerate_inputs(formats.get(name))[label]
    small, large = generate(SMALL), generate(LARGE)
    parse(name, small, delta)  # grammar caches warm: not counted
    ratio = calls(name, large, delta) / calls(name, small, delta)
    assert ratio <= RATIO, f"{name}, {label}, delta {delta}: {ratio:.1f}× the calls for 4× the text"
    extra = peak_memory(name, large, delta) - peak_memory(name, small, delta)
    per_character = extra / (len(large) - len(small))
    assert per_character <= BYTES_PER_CHARACTER, (
        f"{name}, {label}, delta {delta}: {per_character:.0f} bytes per character"
    )


@pytest.mark.parametrize(("name", "label"), KNOWN)
@pytest.mark.parametrize("delta", [0, 4])
def test_known_degenerate_inputs_cost_linear_work(name: str, label: str, delta: int) -> None:
    assert_linear(name, label, delta)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CASES), st.sampled_from([0, 1, 4]))
def test_every_degenerate_input_costs_linear_work(case: tuple[str, str], delta: int) -> None:
    assert_linear(*case, delta)


def attached_failures(name: str, text: str) -> int:
    """Failures still holding the frames or the failure they were raised through while a
    session that has read `text` is alive (each keeps the failures before it alive)."""
    session = formats.get(name).parser(TOOLS)
    for start in range(0, len(text), 4):
        session.feed(text[start : start + 4])
    gc.collect()
    live = [o for o in gc.get_objects() if isinstance(o, ParseFailure)]
    attached = sum(f.__traceback__ is not None or f.__context__ is not None for f in live)
    del session
    return attached


@pytest.mark.parametrize(("name", "label"), KNOWN)
def test_failures_kept_for_errors_hold_no_frames(name: str, label: str) -> None:
    text = degenerate_inputs(formats.get(name))[label](LARGE)
    assert attached_failures(name, text) == 0


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(CASES))
def test_no_degenerate_input_keeps_failures_attached(case: tuple[str, str]) -> None:
    name, label = case
    assert attached_failures(name, degenerate_inputs(formats.get(name))[label](LARGE)) == 0


@pytest.mark.parametrize("name", ["deepseek-v3.2", "deepseek-v4", "deepseek-v4.1"])
@pytest.mark.parametrize("delta", [0, 4])
def test_a_backtick_run_longer_than_the_recursion_limit_is_text(name: str, delta: int) -> None:
    """A code span's closing marker was as long as its opening run: 5 K backticks built a
    5 K-character marker, whose prefix regex overflowed the recursion limit."""
    text = "`" * 5000
    if delta == 0:
        message = protocall.parse(text, name, TOOLS)
    else:
        session = formats.get(name).parser(TOOLS)
        for start in range(0, len(text), delta):
            session.feed(text[start : start + delta])
        session.finish()
        message = session.message
    assert message.content == text
    assert not message.tool_calls
