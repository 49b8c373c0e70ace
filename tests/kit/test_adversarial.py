"""Degenerate outputs cost linear work: the work of parsing 4× the text is at most about 4×.

Work is counted, not timed: Python-level calls (cProfile's count) and the peak memory
traced while parsing, for `protocall.testing.degenerate_inputs` of every format, one-shot
and in 4-character deltas. (Time per character, C-level scans included, is measured by
`benchmarks/bench_adversarial.py`.)
"""

from __future__ import annotations

import contextlib
import cProfile
import gc
import pstats
import re
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocall
from protocall import formats
from protocall.combinators import (
    Parser,
    Recover,
    many,
    optional,
    peek,
    regex,
    seq,
)
from protocall.combinators.result import Backtrack, ParseFailure
from protocall.combinators.stream import Input
from protocall.compile.compiled import clear_cache
from protocall.events import ProtocolError
from protocall.formats.gpt_oss import CHANNEL, END, START
from protocall.shortcuts import disabled, recovery
from protocall.testing.chunks import chunkings
from protocall.testing.degenerate import TOOLS, call_opener, degenerate_inputs, parse
from protocall.testing.run import merge_deltas
from protocall.values import (
    json_object,
)
from protocall.values.json import NestedObjects

SMALL, LARGE = 400, 1600
RATIO = 6.0
"""The largest work ratio accepted for 4× the input (linear: about 4, less while a fixed
cost dominates; quadratic: about 16). The smaller input is long enough for a run that
learns a recurring head to have paid what learning costs it once (its own caches, see
`combinators.stream.Learned`), as the grammar's caches are paid by the warm-up."""
BYTES_PER_CHARACTER = 1000
"""Peak memory beyond a fixed cost, per character of input (the text, the output items and
the bounded undecided region fit well within it; failures kept with their tracebacks, the
old leak, took 15 K per character)."""

pytestmark = pytest.mark.slow  # every format's degenerate inputs, several times over: CI runs it

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


@contextlib.contextmanager
def recompiled() -> Iterator[None]:
    """Formats compiled anew inside (for a test that patches what a grammar is built
    from) and after (the patch undone)."""
    clear_cache()
    try:
        yield
    finally:
        clear_cache()


def calls(name: str, text: str, delta: int) -> int:
    """The calls parsing `text` makes, the cycle collector paused (a collection inside the
    count would close the suspended generators of earlier tests' garbage, and their
    cleanup would be counted as this parse's work)."""
    gc.disable()
    try:
        profile = cProfile.Profile()
        profile.enable()
        parse(name, text, delta)
        profile.disable()
    finally:
        gc.enable()
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
    for text in (small, large):  # grammar caches and first-use analyses warm: not counted
        parse(name, text, delta)
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


@pytest.mark.parametrize(
    ("name", "label"),
    [(name, label) for name, label in CASES if label.endswith(", ' ' run")],
)
def test_every_delta_grows_the_buffer_in_place(
    name: str, label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delta reaches the buffer through `Input.append`, which grows it in place: a parser
    that wrote `inp.buf += text` copied the buffer at each delta, quadratic while the region
    is undecided (Kimi K2, spaces after the section opener with tools declared: 5.3 s at 1 M
    characters in 4-character deltas). Counted: the characters appended so, one a delta."""
    appended = []
    grow = Input.append
    monkeypatch.setattr(Input, "append", lambda inp, text: (appended.append(text), grow(inp, text)))
    text = degenerate_inputs(formats.get(name))[label](2000)
    parse(name, text, 4)
    assert "".join(appended) == text


FAST = [
    ("mistral", "'</s>' repeated", 15, 20),
    ("gemma-4", "'<|' repeated", 30, 40),
    ("deepseek-v3.2", "'<｜DSML｜p' repeated", 24, 30),
    ("hermes", "'<tool_call>' repeated", 8, 14),
    ("llama-3", "'{\"a\":' nested", 80, 90),
]
"""Inputs made cheap by `Parser.glance` (a choice skipping the branches its first characters
rule out, waiting rather than running one they leave undecided), with the Python-level calls
per character each may cost one-shot and in 4-character deltas (measured: 11 and 15, 24 and
30, 18 and 24, 6 and 11, 62 and 69; with every branch run: 28 and 32, 58 and 84, 65 and 75,
12 and 15, 116 and 123)."""


def assert_calls_per_character(name: str, label: str, one_shot: float, streamed: float) -> None:
    """The Python calls per character the input `label` of format `name` costs, from 1 K to
    3 K characters, one-shot and in 4-character deltas, are at most `one_shot`, `streamed`."""
    generate = degenerate_inputs(formats.get(name))[label]
    small, large = generate(1000), generate(3000)
    for delta, limit in ((0, one_shot), (4, streamed)):
        parse(name, large, delta)  # the grammar's caches warm for what is counted: not counted
        extra = calls(name, large, delta) - calls(name, small, delta)
        per_character = extra / (len(large) - len(small))
        assert per_character <= limit, (
            f"{name}, {label}, delta {delta}: {per_character:.1f} calls per character"
        )


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), FAST)
def test_choices_skip_the_branches_the_first_characters_rule_out(
    name: str, label: str, one_shot: int, streamed: int
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


def outcome(name: str, text: str, delta: int) -> str:
    """Everything a session gives for `text`: every event, in order, and the message. Its
    consecutive deltas of a kind are merged: how text splits into deltas is not part of
    the outcome (a scan emits a plain marker with the text around it, where a choice that
    tries a call there first emits it as a node of its own)."""
    session = formats.get(name).parser(TOOLS)
    events = []
    step = delta or len(text) or 1
    for start in range(0, len(text), step):
        events += session.feed(text[start : start + step])
    events += session.finish()
    merged = merge_deltas(events)
    return re.sub(r"call_\w{24}", "call_…", repr((merged, session.message)))  # ids are random


def samples(name: str) -> list[str]:
    """Degenerate inputs, a call, a call cut off, the markers: what takes shortcuts."""
    fmt = formats.get(name)
    opener, head = call_opener(fmt)
    texts = [generate(60) for generate in degenerate_inputs(fmt).values()]
    whole = opener + 'Paris"}' + "".join(fmt.reserved)
    texts += [opener, head, whole, whole[: len(whole) // 2], "".join(fmt.reserved) * 2]
    return texts


@pytest.mark.parametrize("name", formats.names())
def test_the_shortcut_changes_no_outcome(name: str) -> None:
    """Events and message (errors and their messages included) with every choice running
    every branch equal those with the shortcut: one-shot, in 4-character deltas and per
    character."""
    cases = [(text, delta) for text in samples(name) for delta in (0, 4, 1)]
    with disabled():
        expected = [outcome(name, text, delta) for text, delta in cases]
    assert [outcome(name, text, delta) for text, delta in cases] == expected


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(formats.names()), st.data())
def test_the_shortcut_changes_no_outcome_on_marker_soup(name: str, data: st.DataObject) -> None:
    """The same on random text made of the format's markers, their prefixes and a few
    characters, in random deltas."""
    fmt = formats.get(name)
    opener, _ = call_opener(fmt)
    pieces = [*fmt.reserved, opener, *(m[: len(m) // 2] for m in fmt.reserved), "{", '"', " ",
              "\n", "a", "[", "<", ":", ","]  # fmt: skip
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=12)))
    delta = data.draw(st.sampled_from([0, 1, 3]))
    with disabled():
        expected = outcome(name, text, delta)
    assert outcome(name, text, delta) == expected


# -- the choice machinery's work per repetition of a marker -----------------------------------

MACHINERY = [
    ("hermes", "'</think>' repeated", 4.0, 7.5),
    ("glm-4.5", "'</think>' repeated", 4.0, 7.5),
    ("kimi-k2", "'</think>' repeated", 4.5, 8.0),
    ("granite", "'</think>' repeated", 4.0, 7.5),
    ("gpt-oss", "'<|start|>' repeated", 15.0, 20.0),
    ("deepseek-v4.1", "'<｜DSML｜' repeated", 9.0, 13.5),
    ("qwen3-coder", "'<tool_call>' repeated", 5.5, 11.5),
]
"""Marker loops where a choice rules most branches out at each repetition, with the
Python-level calls per character each may cost one-shot and in 4-character deltas (measured:
3.5 and 6.5, 3.5 and 6.5, 3.9 and 7.1, 3.4 and 6.4, 13.8 and 18.6, 8.3 and 12.2, 4.8 and
10.3; with a failure built per branch ruled out, a glance per branch at each repetition and
a wait per branch for its characters: 6.3 and 10.3, 8.6 and 12.6, 8.8 and 13.0, 8.4 and
12.4, 18.0 and 22.9, 13.0 and 18.5, 6.6 and 13.2)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), MACHINERY)
def test_a_repeated_marker_costs_the_choice_machinery_little_work(
    name: str, label: str, one_shot: float, streamed: float
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


# -- a run of repeated failing headers is one error region (issue #20) --------------------

CALL_RUNS = ["seed-oss", "qwen3-coder", "glm-4.5", "deepseek-v3.2", "deepseek-v3.1",
             "hermes", "mistral", "granite", "gemma-4"]  # fmt: skip
"""Formats whose call, written up to its argument value, then broken off by the next such
call, fails after its cut (each region recovered, to the next opener)."""


def broken_call(name: str) -> str:
    """The format's call written up to its argument value: it fails where the next begins."""
    return call_opener(formats.get(name))[0].strip()


RUNS = [
    ("gpt-oss", "<|start|>"),
    ("gpt-oss", "<|start|>x"),
    ("gpt-oss", "<|start|>assistant "),
    *((name, broken_call(name)) for name in CALL_RUNS),
]
"""Headers that each open a message or a call which fails the same way after its cut,
repeated by a model in a loop."""


def errors(name: str, text: str, delta: int) -> list[ProtocolError]:
    session = formats.get(name).parser(TOOLS)
    events = []
    for start in range(0, len(text), delta or len(text)):
        events += session.feed(text[start : start + (delta or len(text))])
    events += session.finish()
    return [event for event in events if isinstance(event, ProtocolError)]


def recoveries(name: str, text: str, delta: int) -> int:
    """How many times a recovered region is entered (parsed from its start) for `text`."""
    entered = []
    step = Recover.step

    def counted(self: Recover, inp: Any, pos: int) -> Any:
        entered.append(pos)
        return step(self, inp, pos)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Recover, "step", counted)
        parse(name, text, delta)
    return len(entered)


@pytest.mark.parametrize(("name", "header"), RUNS)
@pytest.mark.parametrize("delta", [0, 1, 4])
def test_a_run_of_failing_headers_is_one_error_whatever_its_length(
    name: str, header: str, delta: int
) -> None:
    """The run is one error whose raw text is the whole run and whose message is a single
    header's, except that the last header, where the end of input cuts it off, may be its
    own truncated error, and that the first region may end inside the second header (a
    string value reading on into it: DeepSeek V3.1, Gemma 4), the run starting where its
    resync stopped. Nothing is lost, and neither the errors nor the work grow with the
    repetitions."""
    reported = errors(name, header * 51, delta)
    assert "".join(error.raw for error in reported) == header * 51
    assert len(reported) <= 3 and max(len(error.raw) for error in reported) >= 47 * len(header)
    messages = [error.message for error in errors(name, header * 21, delta)]
    assert [error.message for error in reported] == messages
    assert recoveries(name, header * 200, delta) == recoveries(name, header * 20, delta)


def fed(name: str, chunks: list[str]) -> tuple[list[ProtocolError], Any]:
    session = formats.get(name).parser(TOOLS)
    events = [event for chunk in chunks for event in session.feed(chunk)] + session.finish()
    return [event for event in events if isinstance(event, ProtocolError)], session.message


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_runs_of_failing_headers_are_the_same_whatever_the_chunking(data: st.DataObject) -> None:
    """Runs of headers mixed with messages, text and headers cut off: the same errors
    (raw text and message) and the same message one-shot, per character and chunked."""
    pieces = [START, START + "x", START + "assistant", CHANNEL, END, "<|start", "a", "<",
              START + "assistant" + CHANNEL + "final<|message|>ok", "<|return|>"]  # fmt: skip
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=16)))
    chunks = data.draw(chunkings(text, (START, CHANNEL, END)))
    assert fed("gpt-oss", chunks) == fed("gpt-oss", [text]) == fed("gpt-oss", list(text))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CALL_RUNS), st.data())
def test_runs_of_broken_calls_are_the_same_whatever_the_chunking(
    name: str, data: st.DataObject
) -> None:
    """Broken calls repeated, mixed with whole calls, text and a call cut off: the same
    errors (raw text and message) and the same message one-shot, per character and
    chunked."""
    fmt = formats.get(name)
    broken = broken_call(name)
    whole = call_opener(fmt)[0] + 'Paris"}' + fmt.reserved[-1]
    pieces = [broken, broken, whole, "Hi ", broken[: len(broken) // 2], "\n"]
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=12)))
    chunks = data.draw(chunkings(text, (broken,)))

    def seen(chunks: list[str]) -> str:
        return re.sub(r"call_\w{24}", "call_…", repr(fed(name, chunks)))  # ids are random

    assert seen(chunks) == seen([text]) == seen(list(text))


CALL_RUN_WORK = [
    ("seed-oss", 1.5, 5.0),
    ("qwen3-coder", 1.5, 6.0),
    ("deepseek-v3.1", 1.5, 5.0),
    ("gemma-4", 2.0, 5.5),
]
"""Broken calls repeated, with the calls per character each may cost one-shot and in
4-character deltas: a run is one region, each repetition after the first a string
comparison and the resync (measured: 0.0 and 3.9, 0.6 and 5.4, 0.2 and 2.7, 0.4 and 3.0,
a delta costing a call more since each grows the buffer through `Input.append`, which
keeps it linear, and a log entry joins the text before it, which keeps memory bounded;
with a region parsed per repetition: 8.6 and 13.2, 5.5 and 9.8, 4.3 and 8.3, 11.7 and
17.6)."""


@pytest.mark.parametrize(("name", "one_shot", "streamed"), CALL_RUN_WORK)
def test_a_run_of_broken_calls_costs_a_comparison_per_repetition(
    name: str, one_shot: float, streamed: float
) -> None:
    label = f"{broken_call(name)!r} repeated"
    assert_calls_per_character(name, label, one_shot, streamed)


def walked_per_character(name: str, label: str, delta: int) -> float:
    """What a full pass of the cyclic collector walks (the objects it tracks and their
    references) in what a session streaming the input `label` of format `name` keeps, per
    character (from 20 K to 80 K characters), in deltas of `delta` characters (0: at once)."""
    generate = degenerate_inputs(formats.get(name))[label]
    counts = []
    for size in (20_000, 80_000):
        session = formats.get(name).parser(TOOLS)
        before = walked()
        text = generate(size)
        for start in range(0, len(text), delta or len(text)):
            session.feed(text[start : start + (delta or len(text))])
        counts.append((walked() - before, len(text)))
        del session
    (small, small_size), (large, large_size) = counts
    return (large - small) / (large_size - small_size)


def walked() -> int:
    gc.collect()
    tracked = gc.get_objects()
    return len(tracked) + sum(len(gc.get_referents(thing)) for thing in tracked)


@pytest.mark.parametrize(
    ("name", "label", "delta"),
    [
        ("gemma-4", "'<|' repeated", 0),
        ("llama-3", "'{\"a\":' nested", 0),
        ("minimax-m2", "'[e~' repeated", 0),
        ("minimax-m2", "'[e~' repeated", 4),
    ],
)
def test_what_a_session_keeps_is_not_walked_by_the_collector(
    name: str, label: str, delta: int
) -> None:
    """The session keeps every item for the tree, as exact tuples the collector stops
    tracking, sealed in blocks when it folds items; the content's deltas are joined in
    blocks then, and the turn's loop keeps no values: a full pass walks next to nothing of
    what a long output left (measured: within 0.05 of 0 per character; with every item a
    `Text`, `Open` or `Close`, 3.0, 2.4 and 5.0 in 4-character deltas; with the items as
    exact tuples in one list, the deltas in another and the turn's values in a third, 1.0,
    0.8 and 1.3). Text that deltas' absorbers take whole, with no item to fold, waits in
    the log's open list until the next fold (Gemma 4's `<|` in 4-character deltas: 0.5 per
    character): a check at every delta would cost 7 % of the ordinary delta's
    instructions, and measured no faster at a million characters."""
    assert abs(walked_per_character(name, label, delta)) < 0.2


def test_a_long_output_parsed_at_once_keeps_its_items_a_slice_at_a_time() -> None:
    """`parse` feeds its text in slices, so the items the run emits are folded as they
    come: the collector never tracks a long output's items all at once (they were all
    alive until the end of one feed, and its full passes walked them again and again)."""
    text = degenerate_inputs(formats.get("minimax-m2"))["'[e~' repeated"](200_000)
    protocall.parse(text[:1000], "minimax-m2", TOOLS)
    gc.collect()
    base, peak = len(gc.get_objects()), [0]

    def sample(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] >= 1:
            peak[0] = max(peak[0], len(gc.get_objects()) - base)

    gc.callbacks.append(sample)
    try:
        protocall.parse(text, "minimax-m2", TOOLS)
    finally:
        gc.callbacks.remove(sample)
    assert peak[0] < 30_000, peak[0]  # 165,000 items in one feed


# -- a text scan waits where its window may still be a marker -------------------------------

WAITING_SCANS = [
    ("kimi-k2", "'<|tool_calls_section_begin|>' repeated", 1.5, 7.0),
    ("kimi-k2", "'<|tool_call_section_begin|>' repeated", 1.5, 7.0),
]
"""A section opener repeated, with the calls per character each may cost one-shot and in
4-character deltas. Noise may stand between a section's begin and its first call, so only
the next begin, whole, rules the section out: a text scan (the noise's) whose window is a
proper prefix of one of its markers waits at a glance, and so the content scan holds the
opener with the deltas until the window decides, instead of ending there for the turn to
try the section at every repetition (measured: 0.8 and 4.5 for both; with the scan's
glance undecided there: 0.8 and 18.7)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), WAITING_SCANS)
def test_a_scan_whose_window_may_still_be_a_marker_waits(
    name: str, label: str, one_shot: float, streamed: float
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


# -- content text made of marker prefixes ---------------------------------------------------

PLAIN = [
    ("deepseek-v3.2", "'<｜DSML｜p' repeated", 5, 9),
    ("deepseek-v4", "'<｜DSML｜p' repeated", 5, 9),
    ("deepseek-v4.1", "'<｜DSML｜ ' repeated", 5, 11),
    ("deepseek-v3.2", "'<｜DSML｜func' repeated", 4, 9),
    ("gemma-4", "'<|' repeated", 8, 11),
]
"""An opener repeated that heads no call, with the Python-level calls per character each
may cost one-shot and in 4-character deltas: the content's text scan reads it as text
(`until`'s `plain`), with the text around it, instead of ending there for the turn's
choice to try every branch (measured: 3.4 and 6.5, 3.4 and 6.5, 3.4 and 8.4, 2.5 and 6.6;
with each such opener a `Text` item of its own: 10.6 and 15.3, 10.6 and 15.3, 11.2 and
17.6, 7.7 and 13.4; with the choice at every repetition: 18.0 and 23.4, 18.0 and 23.4, 18.4
and 25.1, 12.9 and 18.2). Gemma 4's `<|`, a token that begins every other (6.5 and 9.3;
8.5 and 11.3 with the guard's glance asked at each window rather than its verdict kept per
window; 12.0 and 14.8 with a `Text` item per token; 18.3 in deltas when the absorber asked
the guard twice at each token, as the one after a plain marker and as the check after it)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), PLAIN)
def test_an_opener_that_heads_no_call_is_scanned_as_text(
    name: str, label: str, one_shot: int, streamed: int
) -> None:
    # the same count as for the choice shortcut, with these inputs' bounds
    assert_calls_per_character(name, label, one_shot, streamed)


STRAYS = [
    ("hermes", "'</think>' repeated", 3, 8),
    ("glm-4.5", "'</think>' repeated", 3, 8),
    ("deepseek-v4.1", "'</think>' repeated", 3, 8),
]
"""A stray repeated (a reasoning close after the block closed, dropped where it stands),
with the calls per character each may cost: a run of strays is one segment of the turn
(measured: 1.5 and 5.9 for each; as a choice at every repetition: 6.2 and 10.3, 8.6 and
12.6, 8.6 and 12.6)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), STRAYS)
def test_a_stray_repeated_is_one_segment(
    name: str, label: str, one_shot: int, streamed: int
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


def test_text_between_end_of_turn_markers_is_read_without_the_turn_loop() -> None:
    """MiniMax-M2's `[e~[` stop between runs of text (`[e~` repeated), with the calls per
    character it may cost one-shot and in 4-character deltas: a run of text, the stop and
    the next run are one repetition of the turn (`runs`; measured 9.0 and 14.9; as a
    repetition for each, with the turn's choice at every one: 15.5 and 22.0)."""
    assert_calls_per_character("minimax-m2", "'[e~' repeated", 10.5, 17.5)


# -- bare call proofs: nested candidates decided in one scan ----------------------------------


@pytest.mark.parametrize("delta", [0, 4])
def test_nested_bare_objects_cost_the_same_work_whatever_the_depth_bound(delta: int) -> None:
    """Every `{"` of llama-3 content starts a candidate call object read up to
    `LOOKAHEAD_DEPTH` levels; the candidates nested in one are decided by one scan, so the
    work per character does not grow with the bound (read again from each start: about
    16× more at 64 levels than at 4)."""
    from protocall.blocks import bare_calls

    generate = degenerate_inputs(formats.get("llama-3"))["'{\"a\":' nested"]
    small, large = generate(1000), generate(3000)
    per_character = {}
    for depth in (4, 64):
        with pytest.MonkeyPatch.context() as patch, recompiled():
            patch.setattr(bare_calls, "LOOKAHEAD_DEPTH", depth)
            patch.setattr(recovery, "LEARNED", 0)  # the scan's work, not a learned head
            parse("llama-3", small, delta)  # grammar caches warm: not counted
            extra = calls("llama-3", large, delta) - calls("llama-3", small, delta)
        per_character[depth] = extra / (len(large) - len(small))
    assert per_character[64] <= 1.1 * per_character[4], per_character


class Attempts(Parser[Any]):
    """`parser`, each attempt's outcome logged: (start, value, end) or (start, failure)."""

    def __init__(self, parser: Parser[Any], log: list[tuple[Any, ...]]) -> None:
        self.parser, self.log = parser, log

    def step(self, inp: Any, pos: int) -> Any:
        try:
            value, end = yield from self.parser.step(inp, pos)
        except Backtrack as failure:
            self.log.append((pos, failure.position, failure.expected))
            raise
        self.log.append((pos, value, end))
        return value, end


def attempts(parser: Parser[Any], text: str, delta: int) -> list[tuple[Any, ...]]:
    """`parser` tried at every position of `text` fed in `delta`-character pieces."""
    log: list[tuple[Any, ...]] = []
    anywhere = many(seq(optional(peek(Attempts(parser, log))), regex(r"[\s\S]")))
    run = anywhere.run()
    step = delta or len(text) or 1
    for start in range(0, len(text), step):
        run.feed(text[start : start + step])
    run.finish()
    return log


JSON_PIECES = ['{', '}', '"a"', '"b"', ':', ',', '1', '[', ']', ' ', '"', '\\', 'tr', 'ue',
               '{"a":', '"\\u', 'd83d', '\\"', '12', '.', 'e']  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(JSON_PIECES), max_size=40).map("".join),
    st.integers(1, 4),
    st.integers(1, 40),
    st.sampled_from([0, 1, 3]),
)
def test_nested_objects_decide_every_start_as_json_object(
    text: str, depth: int, size: int, delta: int
) -> None:
    """`NestedObjects` gives, at every start, the value, end or failure (position and
    expectation) `json_object` with the same bounds gives, one-shot and streamed."""
    expected = attempts(json_object(max_depth=depth, max_size=size), text, delta)
    assert attempts(NestedObjects(max_depth=depth, max_size=size), text, delta) == expected


# -- a sequence waiting past its window: a choice waits for the deciding characters ----------

WAITING_PAST = [
    ("kimi-k2", "'(no content)' repeated", 7, 14),
    ("mistral", "'[TOOL_CALLS]' repeated", 6, 11),
]
"""A marker whose branch is decided by what follows it (the placeholder only before a call,
a call opener only before a name), repeated, with the calls per character each may cost:
where a delta ends right after the marker, the choice waits for the next characters
instead of running the branch, which would wait there and fail on the next delta, every
branch then tried again from the marker (measured: 5.0 and 9.1, 4.2 and 7.2; running the
branch: 5.0 and 32.3, 4.2 and 19.5)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), WAITING_PAST)
def test_a_choice_waits_for_the_characters_after_a_marker(
    name: str, label: str, one_shot: int, streamed: int
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


# -- channels: a token that heads no marker is scanned as text, a run of stops is one node --

CHANNELS = [
    ("gemma-4", "'<eos>' repeated", 7, 20),
    ("gemma-4", "'<|' repeated", 19, 26),
    ("gemma-4", "'<|\"|' repeated", 14, 20),
    ("gemma-4", "'<|cha' repeated", 11, 19),
]
"""Degenerate Gemma 4 turns, with the calls per character each may cost (measured: 4.6 and
16.1, 15.5 and 21.5, 10.3 and 16.5, 8.2 and 15.5; with a choice at every `<|` or `<eos>`:
19.8 and 30.9, 22.0 and 30.0, 21.5 and 28.0, 17.2 and 25.0)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), CHANNELS)
def test_a_channels_turn_scans_a_stray_token_as_text(
    name: str, label: str, one_shot: int, streamed: int
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


# -- DSML marker prefixes: a run of them is one text scan, one content node -----------------

DSML_PREFIXES = [
    ("deepseek-v3.2", "'<｜DSML｜p' repeated", 7, 12),
    ("deepseek-v4", "'<｜DSML｜to' repeated", 6.5, 12),
    ("deepseek-v4.1", "'<｜DSML｜' repeated", 6, 10),
    ("deepseek-v4.1", "'<｜DSML｜ ' repeated", 7.5, 14),
    ("deepseek-v3.2", "'<｜DSML｜func' repeated", 5.5, 11.5),
]
"""The `<｜DSML｜` opener (a prefix of every DSML tag) repeated with what heads no call, with
the Python-level calls per character each may cost one-shot and in 4-character deltas: the
content is one text scan and one node, its absorber goes over the plain openers in a delta
(measured: 5.1 and 9.0, 4.6 and 9.8, 4.4 and 8.2, 5.8 and 11.9, 3.7 and 9.3; with a content
node per opener and the parser resumed at each: 9.9 and 15.5, 8.8 and 15.1, 8.3 and 12.2,
10.5 and 17.6, 7.2 and 13.4)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), DSML_PREFIXES)
def test_a_run_of_dsml_prefixes_is_one_text_scan(
    name: str, label: str, one_shot: float, streamed: float
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


def top_nodes(name: str, text: str) -> list[tuple[str, int, int, Any]]:
    """The top-level AST nodes of `text` (a `Recovered` value as its raw text), the same
    one-shot, per character and in 4-character deltas."""
    found = []
    for chunks in ([text], list(text), [text[i : i + 4] for i in range(0, len(text), 4)]):
        session = formats.get(name).parser(TOOLS)
        for chunk in chunks:
            session.feed(chunk)
        session.finish()
        found.append(
            [
                (node.tag, node.start, node.end, getattr(node.value, "raw", node.value))
                for node in session.ast.children
                if node.start < node.end  # not the call a region opened before failing
            ]
        )
    assert all(nodes == found[0] for nodes in found)
    return found[0]


def test_openers_that_head_no_call_stand_in_one_content_node() -> None:
    text = "a <tool_call>x<tool_call> b"
    assert top_nodes("hermes", text) == [("content", 0, len(text), text)]


@pytest.mark.parametrize(
    ("name", "text", "start"),
    [
        ("deepseek-v3.2", "hi <｜DSML｜p<｜DSML｜invoke x", 3),
        ("deepseek-v4.1", "<｜DSML｜<｜DSML｜ <｜DSML｜ end", 0),
    ],
)
def test_damaged_dsml_openers_are_one_error_region(name: str, text: str, start: int) -> None:
    """A DSML section is sealed (`Section.sealed`): its opener is written only to call, so
    one that heads no call is a damaged call, from it to the end of the turn one error
    region (a run of them too), never a content node per opener."""
    before = [("content", 0, start, text[:start])] if start else []
    assert top_nodes(name, text) == [*before, ("error", start, len(text), text[start:])]


# -- in deltas: a waiting choice buffers what keeps it waiting, a marker window is decided once --

DELTAS = [
    ("kimi-k2", "'(no content)' repeated", 5.5, 8.3),
    ("gemma-4", "'<eos>' repeated", 5.0, 13.0),
    ("gemma-4", "'<|' repeated", 13.5, 19.5),
]
"""Degenerate inputs whose 4-character deltas cost more than one-shot, with the calls per
character each may cost (measured: 5.0 and 7.7, 4.6 and 11.6, 12.5 and 18.5; with every
delta resuming the choice that waits for the characters deciding its plan, a marker window at
the end of the buffer worked out again at every delta, and a plain marker right after another
checked twice: 5.1 and 9.2, 4.6 and 16.1, 15.5 and 21.5)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), DELTAS)
def test_a_delta_that_decides_nothing_costs_no_resume(
    name: str, label: str, one_shot: float, streamed: float
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


# -- pythonic lists: a first name that is no declared tool rules the list out at a glance -----

UNDECLARED = [
    ("pythonic", "'[get_weathe' repeated", 10, 17),
    ("llama-4", "'[get_weathe' repeated", 10, 17),
]
"""A bare list whose first name is a prefix of a declared tool's, repeated, with the calls
per character each may cost one-shot and in 4-character deltas: the list's glance rules it
out once the name's end has arrived, so the content scan reads the `[` and name as text
(measured: 7.4 and 12.4 for each; with the list run at every repetition: 17.3 and 21.9,
18.5 and 25.4)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), UNDECLARED)
def test_a_list_naming_no_declared_tool_is_ruled_out_at_a_glance(
    name: str, label: str, one_shot: int, streamed: int
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


# -- a proof's scan tells the content scan where no call starts (llama-3 nested) -----------

SETTLED = [
    ("llama-3", "'{\"a\":' nested", 12, 25),
    ("llama-3", '\'{"name": "get_weather", "p\' repeated', 4, 11),
]
"""Bare objects whose proof fails, nested or repeated, with the calls per character they
may cost: every `{"` whose head the glance rules out and whose object the proof's JSON
scan decides a non-call is text to the content scan, in a stream without a resume of the
parser: the scan's absorber asks the proof once the delta is in the buffer (measured:
10.0 and 22.7, 3.0 and 8.9; with each `{"` a `Text` item of its own: 12.9 and 25.3, 3.5
and 9.4; with the parser resumed at each delta too: 12.5 and 29.9, 3.4 and 10.4; with the
scan stopping there for the turn to try a call and fail: 39.3 and 52.7, 12.8 and 19.7)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), SETTLED)
def test_a_start_the_proof_has_decided_is_text_to_the_content_scan(
    name: str, label: str, one_shot: int, streamed: int
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


CANDIDATE_PIECES = [*JSON_PIECES, '{"name": "get_weather", "parameters": ', '{"name": "x", ',
                    '{"name": "get_weather", "p', '"name"', '"get_weather"', "x", "; ",
                    "<|eot_id|>", "<|python_tag|>"]  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(CANDIDATE_PIECES), max_size=30).map("".join),
    st.integers(1, 3),
    st.integers(8, 60),
    st.sampled_from([0, 1, 3, 4]),
)
def test_the_content_scan_reads_a_start_as_the_turn_would(
    text: str, depth: int, size: int, delta: int
) -> None:
    """Events and message with the content scan taking the starts the proof rules out
    (its head by a glance, its object by the scan) as text equal those with the turn
    trying a call at each and every choice running every branch (llama-3, with bounds
    small enough for the scan to decide inside the text)."""
    from protocall.blocks import bare_calls

    with pytest.MonkeyPatch.context() as patch, recompiled():
        patch.setattr(bare_calls, "LOOKAHEAD_DEPTH", depth)
        patch.setattr(bare_calls, "LOOKAHEAD", size)
        with disabled():
            expected = outcome("llama-3", text, delta)
        assert outcome("llama-3", text, delta) == expected


# -- a call head repeated, each repetition broken off by the next, is text read once --------

HEADS = [
    ("qwen3-coder", "'<tool_call>\\n<function=get_w' repeated", 8, 14),
    ("seed-oss", "'<seed:tool_call>\\n<function=get' repeated", 4, 10),
    ("glm-4.5", "'<tool_call>get_weather\\n<arg_key' repeated", 4, 10),
    ("glm-4.7", "'</think><tool_call>get_weather<arg' repeated", 6.5, 11),
    ("hermes", '\'<tool_call>\\n{"name": "get_weath\' repeated', 4, 10.5),
    ("olmo-3", "'<function_calls>get' repeated", 6, 11),
    ("mistral", "'[TOOL_CALLS]get_weath' repeated", 5.5, 11.5),
    ("gemma-4", "'<|tool_call>call:get_' repeated", 3, 9.5),
    ("kimi-k2", "'<|tool_calls_section_begin|><|tool_call_begin|>functions' repeated", 2.5, 8.5),
]
"""A call head that the next repetition breaks off before its cut (content, each time),
with the calls per character each may cost: once the same failure has recurred, the
call's glance knows it (`recurring`), so the content scan reads each later repetition as
text (measured: 3.2 and 8.5, 1.4 and 6.6, 1.3 and 7.2, 4.6 and 8.3, 1.3 and 8.1, 2.2 and
6.0, 2.0 and 7.3, 1.9 and 7.3; with the call parsed and abandoned at every repetition:
15.4 and 21.8, 7.7 and 13.8, 7.0 and 12.1, 7.4 and 12.2, 6.7 and 14.4, 9.9 and 15.0, 10.2
and 16.2, 9.7 and 16.8). Gemma 4's channels turn learns the call's head as the prose turn
learns its call. Kimi K2's failing header runs 68 characters, to the `s` of the next
section's begin read where `<|tool_call_argument_begin|>` was due: learned only since a
glance sees 96 characters (1.2 and 5.7; 8.7 and 13.8 when it saw 64)."""


@pytest.mark.parametrize(("name", "label", "one_shot", "streamed"), HEADS)
def test_a_call_head_repeated_is_read_as_text_once_its_failure_recurs(
    name: str, label: str, one_shot: float, streamed: float
) -> None:
    assert_calls_per_character(name, label, one_shot, streamed)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([name for name, *_ in HEADS]), st.data())
def test_a_learned_head_changes_no_outcome(name: str, data: st.DataObject) -> None:
    """Call heads broken off, repeated and mixed with whole calls and text: the events and
    message with the heads learned equal those with every choice running every branch,
    one-shot, per character and in 3-character deltas."""
    fmt = formats.get(name)
    opener, head = call_opener(fmt)
    whole = opener + 'Paris"}' + fmt.reserved[-1]
    pieces = [head, head[:-3], opener, whole, "a", " ", "\n", *fmt.reserved[:2]]
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), min_size=4, max_size=12)))
    delta = data.draw(st.sampled_from([0, 1, 3]))
    with disabled():
        expected = outcome(name, text, delta)
    assert outcome(name, text, delta) == expected
