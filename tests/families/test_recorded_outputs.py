"""Real outputs read as their recorders expect. Every fixture of canitoolcall (see
`recorded_outputs`) is read by its family's format and judged by canitoolcall's own
conformance checks (expected content, reasoning and calls, or an accepted outcome for a
malformed output; no marker leaked into any field; arguments valid JSON and valid against
the tool's schema; parallel calls in order; the stream equal to the whole) on what a client
of protocall receives: `Session.message` as an OpenAI message, and `DeltaStream`'s deltas
accumulated as the OpenAI SDK accumulates them, the output fed whole, split at the family's
markers (where a real tokenizer's special tokens split it: the fixtures' token ids need a
tokenizer this suite does not download), per character and in random chunks.

Soft passes (a difference in surrounding whitespace only) count as passes, as canitoolcall
counts them. The outputs protocall reads otherwise are listed in `KNOWN` with the reason.
The quick suite reads every eighth fixture; CI reads them all."""

from __future__ import annotations

import re

import pytest
import recorded_outputs
from canitoolcall.chunking import ChunkStrategy, split_text
from canitoolcall.fixtures import Fixture
from canitoolcall.results import Observation, ParsedToolCall, ParseResult, StreamAccumulator

from protocall import formats
from protocall.openai import DeltaStream

STRATEGIES = ("char:0", "char:1", "char:2", "char:3")
"""Per character, and three seeded chunkings of 1 to 8 characters."""

CASES = recorded_outputs.cases()


def _result(message: dict[str, object]) -> ParseResult:
    calls = message.get("tool_calls") or []
    assert isinstance(calls, list)
    return ParseResult(
        content=message.get("content") or None,  # type: ignore[arg-type]
        reasoning_content=message.get("reasoning_content") or None,  # type: ignore[arg-type]
        tool_calls=tuple(
            ParsedToolCall(call["function"]["name"], call["function"]["arguments"])
            for call in calls
        ),
    )


def _whole(fixture: Fixture, name: str) -> ParseResult:
    session = formats.get(name).parser(
        recorded_outputs.tools(fixture), recorded_outputs.generation_prompt(fixture)
    )
    session.feed(fixture.raw_output)
    session.finish()
    return _result(session.message.to_openai())


def _streamed(fixture: Fixture, name: str, deltas: list[str]) -> ParseResult:
    session = formats.get(name).parser(
        recorded_outputs.tools(fixture), recorded_outputs.generation_prompt(fixture)
    )
    stream, client = DeltaStream(), StreamAccumulator()
    for delta in deltas:
        for chunk in stream.deltas(session.feed(delta)):
            client.add_openai_delta(chunk)
    for chunk in stream.deltas(session.finish()):
        client.add_openai_delta(chunk)
    return client.result()


def _at_markers(fixture: Fixture) -> list[str]:
    """The output split before and after each of its family's markers."""
    markers = recorded_outputs.FAMILIES[fixture.family].markers
    pattern = "|".join(map(re.escape, sorted(markers, key=len, reverse=True)))
    return [piece for piece in re.split(f"({pattern})", fixture.raw_output) if piece]


@pytest.mark.parametrize(
    ("fixture", "name"),
    [
        pytest.param(*case, id=case[0].id, marks=() if number % 8 == 0 else pytest.mark.slow)
        for number, case in enumerate(CASES)
    ],
)
def test_a_recorded_output_reads_as_its_recorder_expects(fixture: Fixture, name: str) -> None:
    streams = {"special": _streamed(fixture, name, _at_markers(fixture))}
    for strategy in STRATEGIES:
        deltas = split_text(fixture.raw_output, ChunkStrategy.parse(strategy))
        streams[strategy] = _streamed(fixture, name, deltas)
    observation = Observation(nonstream=_whole(fixture, name), streams=streams)
    recorded_outputs.judge(fixture, observation)


def test_most_recorded_outputs_are_judged() -> None:
    assert len(CASES) > 450  # of the package's 469 fixtures
