"""Transcripts: recording a raw stream, reading it back exactly, replaying it."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocall
from protocall import ast, formats
from protocall.combinators import Backtrack, Input, Parser, Step, Text, UsageError, tag
from protocall.events import ContentDelta
from protocall.formats import Format
from protocall.message import Message
from protocall.testing import chunkings
from protocall.transcript import (
    Chunk,
    Recorder,
    Replay,
    Transcript,
    TranscriptError,
    drive,
    merged,
    message_json,
    replay,
)

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "required": ["location"],
        "properties": {"location": {"type": "string"}, "days": {"type": "integer"}}}}},
]  # fmt: skip
LING = "<role>ASSISTANT</role>\n<think>"
CALL_IN_REASONING = (
    "I should call the weather tool.\n<tool_call>get_weather\n<arg_key>location</arg_key>\n"
    "<arg_value>Paris</arg_value>\n</tool_call><|role_end|>"
)
HERMES_TURN = (
    "<think>Need weather.</think>Checking.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"location": "Paris", "days": 2}}\n</tool_call><|im_end|>'
)


def ticking() -> Iterator[float]:
    """A fake clock: 0, 0.5, 1.0, … seconds."""
    tick = 0.0
    while True:
        yield tick
        tick += 0.5


chunk_data = st.one_of(st.text(max_size=12), st.binary(max_size=12))


@settings(max_examples=150, deadline=None)
@given(st.lists(chunk_data, max_size=8), st.sampled_from([None, LING, "<|im_start|>"]))
def test_a_transcript_reads_back_exactly(data: list[str | bytes], prompt: str | None) -> None:
    clock = ticking()
    recorder = Recorder("ling-3", TOOLS, prompt, clock=lambda: next(clock), seed=3)
    for piece in data:
        recorder.add(piece)
    text = recorder.transcript.dumps()
    text.encode("utf-8")  # a transcript file is valid UTF-8 even for invalid UTF-8 input
    back = Transcript.loads(text)
    assert back == recorder.transcript
    assert [chunk.data for chunk in back.chunks] == data
    assert all(type(a.data) is type(b) for a, b in zip(back.chunks, data, strict=True))


def test_chunks_are_timed_from_the_start_of_recording() -> None:
    clock = ticking()
    recorder = Recorder("hermes", clock=lambda: next(clock))
    pieces: list[str | bytes] = ["a", b"b", "c"]
    assert list(recorder.wrap(pieces)) == pieces
    assert [chunk.t for chunk in recorder.transcript.chunks] == [0.5, 1.0, 1.5]


def test_a_sink_gets_each_line_as_it_is_recorded() -> None:
    sink = io.StringIO()
    recorder = Recorder("hermes", sink=sink)
    assert sink.getvalue() == recorder.transcript.header_line()
    recorder.add("Hi")
    assert Transcript.loads(sink.getvalue()).chunks[0].data == "Hi"
    recorder.add(b" there")
    assert sink.getvalue() == recorder.transcript.dumps()


def test_the_whole_stream_is_bytes_when_any_chunk_was() -> None:
    text_only = Transcript("hermes", [Chunk(0, "Caf"), Chunk(1, "é")])
    assert text_only.data == "Café"
    mixed = Transcript("hermes", [Chunk(0, "Caf"), Chunk(1, "é".encode())])
    assert mixed.data == "Café".encode()


def test_tool_objects_are_recorded_as_json() -> None:
    tools = protocall.Tools([protocall.Tool("get_time", {"type": "object"}, "the time")])
    recorder = Recorder("hermes", tools.values())
    function = recorder.transcript.tools[0]["function"]  # type: ignore[index]
    assert function == {
        "name": "get_time",
        "description": "the time",
        "parameters": {"type": "object"},
    }
    assert Transcript.loads(recorder.transcript.dumps()).session().tools is not None


def test_recording_needs_a_registered_format_and_plain_options() -> None:
    with pytest.raises(UsageError, match="unknown format"):
        Recorder("no-such-format")
    with pytest.raises(UsageError, match="id_factory"):
        Recorder("hermes", id_factory=str)
    with pytest.raises(UsageError, match="str or bytes"):
        Recorder("hermes").add(42)  # type: ignore[type-var]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "not a protocall transcript"),
        ('{"format": "hermes"}\n', "not a protocall transcript"),
        ('{"protocall-transcript": 1}\n', "`format`"),
        (
            '{"protocall-transcript": 1, "format": "hermes"}\n[1]\n',
            "line 2: expected a JSON object",
        ),
        ('{"protocall-transcript": 1, "format": "hermes"}\n{"text": "a"}\n', "line 2: .* time"),
        ('{"protocall-transcript": 1, "format": "hermes"}\n{"t": 0}\n', "line 2: .*`text`"),
        ('{"protocall-transcript": 1, "format": "hermes"}\n\n{oops\n', "line 3: invalid JSON"),
        ('{"protocall-transcript": 1, "format": "hermes", "options": {"x": 1}}', "options"),
    ],
)
def test_a_bad_transcript_names_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(TranscriptError, match=problem):
        Transcript.loads(text)


def test_replay_of_the_ling_story_is_identical_one_shot_and_streamed() -> None:
    recorder = Recorder("ling-3", TOOLS, LING)
    for piece in [CALL_IN_REASONING[i : i + 7] for i in range(0, len(CALL_IN_REASONING), 7)]:
        recorder.add(piece)
    result = replay(recorder.transcript)
    assert result.identical and result.diff() == []
    assert len(result.per_chunk) == len(recorder.transcript.chunks) + 1
    assert result.streamed == result.one_shot
    assert result.streamed.reasoning_content == "I should call the weather tool."
    assert [call.name for call in result.streamed.tool_calls] == ["get_weather"]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_replay_agrees_with_one_shot_for_any_chunking(data: st.DataObject) -> None:
    turns: list[str | bytes] = [HERMES_TURN, HERMES_TURN[:70], HERMES_TURN.encode()[:40]]
    text = data.draw(st.sampled_from(turns))
    pieces = data.draw(chunkings(text)) if isinstance(text, str) else [text[:3], text[3:]]
    recorder = Recorder("hermes", TOOLS)
    for piece in pieces:
        recorder.add(piece)
    result = replay(Transcript.loads(recorder.transcript.dumps()))
    assert result.diff() == []
    assert result.streamed == protocall.parse(text, "hermes", TOOLS, seed=0)


def test_replay_paces_each_chunk_and_reports_each_step() -> None:
    transcript = Transcript("hermes", [Chunk(0.0, "Hi"), Chunk(0.25, " there")])
    seen: list[object] = []
    result = replay(
        transcript,
        pace=lambda t: seen.append(t),
        on_step=lambda number, events: seen.append((number, events)),
    )
    assert seen == [0.0, (0, result.per_chunk[0]), 0.25, *enumerate(result.per_chunk[1:], 1)]
    assert result.streamed.content == "Hi there"


def test_the_diff_shows_where_streamed_and_one_shot_disagree() -> None:
    transcript = Transcript("hermes", [Chunk(0, "a")])
    result = Replay(
        transcript,
        per_chunk=[[ContentDelta("a")], []],
        streamed=Message(content="a"),
        one_shot=Message(content="b"),
        one_shot_events=[ContentDelta("b")],
    )
    diff = result.diff()
    assert not result.identical
    assert diff[:2] == ["--- one-shot", "+++ streamed"]
    assert '-    "content": "b",' in diff and '+    "content": "a",' in diff


class ResumptionCounter(Parser[None]):
    """Deliberately chunking-dependent: its text says how often it had to wait for input."""

    def step(self, inp: Input, pos: int) -> Step[None]:
        waits = 0
        while not inp.eof:
            waits += 1
            yield pos
        inp.out.append(Text(f"waited {waits} times", pos))
        return None, inp.end


BROKEN = Format(
    "chunking-dependent",
    lambda tools, start: tag(ast.CONTENT, ResumptionCounter()),
    lambda turn, start: "",
)


def test_replay_catches_a_parser_whose_result_depends_on_the_chunking() -> None:
    transcript = Transcript("hermes", [Chunk(0, "a"), Chunk(1, "b")])
    result = replay(transcript, fmt=BROKEN)
    assert result.one_shot.content == "waited 2 times"
    assert result.streamed.content == "waited 3 times"
    assert any("waited 3 times" in line for line in result.diff())


def test_driving_stops_after_a_fatal_error() -> None:
    class Fatal(Parser[None]):
        def step(self, inp: Input, pos: int) -> Step[None]:
            while inp.end == pos and not inp.eof:
                yield pos
            raise Backtrack(pos, ("nothing",))

    fmt = Format("test-fatal", lambda tools, start: Fatal(), lambda turn, start: "")
    steps = list(drive(fmt.parser(), ["a", "b", "c"]))
    assert len(steps) == 1
    assert [error.code for error in steps[0]] == ["invalid_output"]  # type: ignore[union-attr]


def test_json_shapes_carry_validation_errors_and_errors() -> None:
    message = protocall.parse(
        '<tool_call>\n{"name": "get_weather", "arguments": {"days": 2}}\n</tool_call>'
        '<tool_call>\n{"name": "get_weather", "arg',
        "hermes",
        TOOLS,
        seed=0,
    )
    shape: dict[str, Any] = message_json(message)
    assert shape["tool_calls"][0]["validation_errors"] == [
        "(arguments): 'location' is a required property"
    ]
    assert [error["code"] for error in shape["errors"]] == ["truncated"]
    assert set(shape["errors"][0]) == {"code", "message", "offset", "raw"}


def test_merged_events_join_deltas_of_one_field_or_call() -> None:
    outcome = [
        event
        for batch in drive(formats.get("hermes").parser(TOOLS, seed=0), HERMES_TURN)
        for event in batch
    ]
    kinds = [event["type"] for event in merged(outcome)]
    assert kinds == [
        "ReasoningDelta",
        "ContentDelta",
        "ToolCallStart",
        "ToolCallArgumentsDelta",
        "ToolCallEnd",
    ]
