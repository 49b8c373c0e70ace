"""A session created with `record=False` emits the same events as one that records the
turn, for every format, while keeping only what its events still need.

The inputs are the testing kit's rendered turns, valid, cut short and mutated, with a run of
prose inserted somewhere (long enough for the parser's buffer to release text, so that the
session forgets it), fed one-shot, per character or byte and in drawn chunkings; and the
degenerate outputs of `protocall.testing.degenerate_inputs`. Memory is counted, not timed:
the peak traced while a long turn streams must not grow with its length.
"""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import ast, formats
from protocall import session as session_module
from protocall.combinators import (
    UsageError,
    alt,
    as_text,
    end_of_input,
    literal,
    many,
    regex,
    seq,
    tag,
)
from protocall.events import Event, ProtocolError, ToolCallEnd
from protocall.formats import Format
from protocall.session import Session
from protocall.testing.chunks import byte_chunkings, chunkings
from protocall.testing.degenerate import TOOLS, degenerate_inputs
from protocall.testing.mutations import mutations, truncations
from protocall.testing.strategies import Case, cases
from protocall.tools import normalize_tools

NAMES = formats.names()
FILLER = "Some prose that names no marker, long enough to be released. " * 8
"""About 500 characters of plain text: the buffer releases decided text past 256."""

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "passthrough_malformed": st.booleans(),
        "truncated_as_content": st.booleans(),
        "reject_invalid": st.booleans(),
    },
)


def streamed(
    fmt: Format,
    case: Case,
    chunks: list[str] | list[bytes],
    record: bool,
    forgotten: int = session_module._FORGOTTEN,
    **options: Any,
) -> list[list[Event]]:
    """The events of each `feed` of `chunks`, then of `finish` (up to a fatal error);
    without `record`, the session forgets every `forgotten` entries of its log (the default,
    or 1: as often as it may, so that short inputs forget inside and around calls too)."""
    with mock.patch.object(session_module, "_FORGOTTEN", forgotten):
        session = fmt.parser(case.tools, case.generation_prompt, seed=0, record=record, **options)
    steps = []
    for chunk in [*chunks, None]:
        step = session.finish() if chunk is None else session.feed(chunk)
        steps.append(step)
        if any(isinstance(e, ProtocolError) and e.code == "invalid_output" for e in step):
            break  # a fatal error ends the turn: more input is a usage error
    return steps


@st.composite
def inputs(draw: st.DrawFn, fmt: Format) -> tuple[Case, list[str] | list[bytes]]:
    """A turn of `fmt` (valid, cut short or mutated) with prose inserted, and a chunking."""
    valid = draw(cases(fmt))
    case = draw(st.one_of(st.just(valid), truncations(valid), mutations(fmt, valid)))
    padding = FILLER * draw(st.integers(0, 3))
    if case.data is not None:
        at = draw(st.integers(0, len(case.data)))
        data = case.data[:at] + padding.encode() + case.data[at:]
        return case, draw(byte_chunkings(data))
    at = draw(st.integers(0, len(case.text)))
    text = case.text[:at] + padding + case.text[at:]
    way = draw(st.sampled_from(["one", "characters", "chunks", "bytes"]))
    if way == "one":
        return case, [text]
    if way == "characters":
        return case, list(text)
    if way == "bytes":
        return case, draw(byte_chunkings(text))
    return case, draw(chunkings(text, fmt.reserved))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25)
@given(data=st.data())
def test_events_are_the_same_without_recording(name: str, data: st.DataObject) -> None:
    fmt = formats.get(name)
    case, chunks = data.draw(inputs(fmt))
    options = data.draw(OPTIONS)
    forgotten = data.draw(st.sampled_from([1, session_module._FORGOTTEN]))
    recorded = streamed(fmt, case, chunks, True, **options)
    assert streamed(fmt, case, chunks, False, forgotten, **options) == recorded


DEGENERATE = [(name, label) for name in NAMES for label in degenerate_inputs(formats.get(name))]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "label"), DEGENERATE)
def test_degenerate_events_are_the_same_without_recording(name: str, label: str) -> None:
    fmt = formats.get(name)
    text = degenerate_inputs(fmt)[label](1500)
    case = Case(text, normalize_tools(TOOLS), None, None)
    for chunks in ([text], [text[i : i + 7] for i in range(0, len(text), 7)]):
        recorded = streamed(fmt, case, chunks, True)
        assert streamed(fmt, case, chunks, False) == recorded
        assert streamed(fmt, case, chunks, False, 1) == recorded


def test_message_and_ast_are_usage_errors_without_recording() -> None:
    session = formats.get("hermes").parser(record=False)
    session.feed("Hello.")
    session.finish()
    with pytest.raises(UsageError, match="record=False"):
        session.message  # noqa: B018
    with pytest.raises(UsageError, match="record=False"):
        session.ast  # noqa: B018


def test_truncated_without_recording() -> None:
    session = formats.get("hermes").parser(record=False)
    session.feed('<tool_call>\n{"name": "f", "argu')
    session.finish()
    assert session.truncated


CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n'
BLOCK = "The weather in Paris is mild; numbers like 42 and <b>tags</b> are text.\n" * 40 + CALL


def streaming_peak(blocks: int, record: bool) -> int:
    """Peak memory traced while a Hermes turn of `blocks` blocks of prose and a call streams
    in 512-character chunks (the session's growth: the input is not held whole)."""
    session = formats.get("hermes").parser(TOOLS, seed=0, record=record)
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(blocks):
            for start in range(0, len(BLOCK), 512):
                session.feed(BLOCK[start : start + 512])
        session.finish()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_bounded_without_recording() -> None:
    small, large = streaming_peak(20, False), streaming_peak(80, False)
    assert large < small + 64_000  # flat: the session forgets what the events no longer need
    assert streaming_peak(80, True) > large + 500_000  # recording keeps the turn (~250 K chars)


def test_replaced_bytes_in_an_undecided_call_are_not_forgotten() -> None:
    """A grammar that decides a call only once it is whole (an alternative without a cut;
    the built-in formats open a call before its arguments arrive): invalid bytes fed while
    the call is undecided, in a feed after which the session forgets, still flag it."""
    call = tag(
        ast.TOOL_CALL,
        seq(
            literal("<c>"),
            tag(ast.TOOL_NAME, regex("[a-z_]+")),
            literal(" "),
            tag(ast.TOOL_ARGUMENTS, seq(literal("{"), as_text(regex("[^}]+")), literal("}"))),
            literal("</c>"),
        ),
    )
    grammar = seq(many(alt(call, as_text(regex("[^<]+")), as_text(literal("<")))), end_of_input)
    chunks = [b"Prose. ", b'More prose <c>get_weather {"location": "P\xc3(', b'ris"}</c> after.']
    steps = []
    for record in (True, False):
        with mock.patch.object(session_module, "_FORGOTTEN", 1):
            session = Session(grammar, normalize_tools(TOOLS), seed=0, record=record)
        steps.append([session.feed(chunk) for chunk in chunks] + [session.finish()])
    ends = [event for step in steps[1] for event in step if isinstance(event, ToolCallEnd)]
    assert "U+FFFD" in ends[0].call.validation_errors[0]
    assert steps[1] == steps[0]
