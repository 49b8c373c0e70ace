"""Record a raw model stream and replay it through a parser later.

A transcript is JSON Lines: a header (format, generation prompt, tools, session options),
then one line per chunk with its time in seconds since recording began. A chunk given as
`str` is stored as `{"t": …, "text": …}`; one given as `bytes` as `{"t": …, "bytes": …}`
with the bytes decoded by `surrogateescape`, so text stays readable and invalid UTF-8
survives exactly. Replaying feeds the same chunks, of the same kind, to a fresh session and
compares the streamed result with a one-shot parse of the whole stream: they must be equal
(DESIGN.md §4, chunking invariance), so a difference is a parser bug worth reporting.
"""

from __future__ import annotations

import difflib
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from . import formats
from .combinators import UsageError
from .events import Event, ToolCallEnd
from .formats import Format
from .message import Message, ToolCall
from .session import Session
from .tools import Tool

MAGIC = "protocall-transcript"
VERSION = 1
OPTIONS = ("passthrough_malformed", "truncated_as_content", "validate", "reject_invalid", "seed")
"""Session options a transcript can carry (the JSON-serialisable ones)."""

Data = TypeVar("Data", bound=str | bytes)


class TranscriptError(UsageError):
    """A transcript that cannot be read: names the line and what is wrong with it."""


@dataclass(frozen=True)
class Chunk:
    """One delta of the stream, `t` seconds after recording began."""

    t: float
    data: str | bytes


@dataclass
class Transcript:
    """A recorded stream and what its parser needs: format, generation prompt, tools."""

    format: str
    chunks: list[Chunk] = field(default_factory=list)
    generation_prompt: str | None = None
    tools: list[dict[str, Any]] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def data(self) -> str | bytes:
        """The whole stream: `bytes` if any chunk was bytes (text chunks UTF-8 encoded)."""
        if any(isinstance(chunk.data, bytes) for chunk in self.chunks):
            return b"".join(_as_bytes(chunk.data) for chunk in self.chunks)
        return "".join(str(chunk.data) for chunk in self.chunks)

    def session(self, fmt: Format | None = None, **overrides: Any) -> Session:
        """A fresh parser session for this stream (ids seeded with 0 unless recorded), by
        the registered format the transcript names or by `fmt` (e.g. one being written)."""
        options = {"seed": 0, **self.options, **overrides}
        fmt = fmt or formats.get(self.format)
        return fmt.parser(self.tools, self.generation_prompt, **options)

    # -- JSON Lines ---------------------------------------------------------------------------

    def header_line(self) -> str:
        header = {
            MAGIC: VERSION,
            "format": self.format,
            "generation_prompt": self.generation_prompt,
            "tools": self.tools,
            "options": self.options,
        }
        return _line(header)

    def dumps(self) -> str:
        return self.header_line() + "".join(map(chunk_line, self.chunks))

    def dump(self, fp: IO[str]) -> None:
        fp.write(self.dumps())

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def loads(cls, text: str) -> Transcript:
        """Parse a transcript; a malformed one raises `TranscriptError` naming the line."""
        records = [
            (number, _record(number, line))
            for number, line in enumerate(text.split("\n"), 1)
            if line.strip()
        ]
        if not records or records[0][1].get(MAGIC) != VERSION:
            raise TranscriptError(
                f"not a protocall transcript: line 1 must be a header with {MAGIC!r}: {VERSION}"
            )
        header = records[0][1]
        if not isinstance(header.get("format"), str):
            raise TranscriptError("transcript header: `format` must be a format name")
        transcript = cls(
            header["format"],
            [_chunk(number, record) for number, record in records[1:]],
            header.get("generation_prompt"),
            header.get("tools"),
            dict(header.get("options") or {}),
        )
        unknown = sorted(set(transcript.options) - set(OPTIONS))
        if unknown:
            raise TranscriptError(f"transcript header: unknown session options {unknown}")
        return transcript

    @classmethod
    def load(cls, fp: IO[str]) -> Transcript:
        return cls.loads(fp.read())

    @classmethod
    def read(cls, path: str | Path) -> Transcript:
        return cls.loads(Path(path).read_text(encoding="utf-8"))


class Recorder:
    """Records chunks as they pass: `session.feed(recorder.add(chunk))`, or
    `for chunk in recorder.wrap(stream)`. `transcript` is the recording so far; with a
    `sink`, the header and each chunk are also written (and flushed) as they happen, so a
    stream that is cut off or a process that dies still leaves a usable transcript."""

    def __init__(
        self,
        format: str,
        tools: Iterable[Mapping[str, Any] | Tool] | None = None,
        generation_prompt: str | None = None,
        *,
        sink: IO[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        **options: Any,
    ) -> None:
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise UsageError(f"a transcript cannot record the options {unknown}")
        formats.get(format)  # an unknown name fails now, not at replay
        self._clock = clock
        self._start = clock()
        self._sink = sink
        self.transcript = Transcript(
            format,
            generation_prompt=generation_prompt,
            tools=None if tools is None else [_tool_json(tool) for tool in tools],
            options=dict(options),
        )
        self._write(self.transcript.header_line())

    def add(self, chunk: Data) -> Data:
        """Record `chunk` (str or bytes) now and return it unchanged."""
        if not isinstance(chunk, str | bytes):
            raise UsageError(f"a chunk is str or bytes, not {type(chunk).__name__}")
        recorded = Chunk(self._clock() - self._start, chunk)
        self.transcript.chunks.append(recorded)
        self._write(chunk_line(recorded))
        return chunk

    def wrap(self, chunks: Iterable[Data]) -> Iterator[Data]:
        """Yield each chunk of `chunks` after recording it."""
        for chunk in chunks:
            yield self.add(chunk)

    def _write(self, line: str) -> None:
        if self._sink is not None:
            self._sink.write(line)
            self._sink.flush()


@dataclass
class Replay:
    """A transcript run twice: streamed chunk by chunk, and one-shot."""

    transcript: Transcript
    per_chunk: list[list[Event]]
    """The events of each chunk, then those of `finish()` (see `drive`)."""
    streamed: Message
    one_shot: Message
    one_shot_events: list[Event]

    @property
    def events(self) -> list[Event]:
        return [event for batch in self.per_chunk for event in batch]

    def diff(self) -> list[str]:
        """A unified diff of the one-shot against the streamed result — the message and the
        events with consecutive deltas merged; empty when they agree."""
        one_shot = _result_lines(self.one_shot, self.one_shot_events)
        streamed = _result_lines(self.streamed, self.events)
        return list(difflib.unified_diff(one_shot, streamed, "one-shot", "streamed", lineterm=""))

    @property
    def identical(self) -> bool:
        return not self.diff()


def replay(
    transcript: Transcript,
    *,
    fmt: Format | None = None,
    pace: Callable[[float], None] | None = None,
    on_step: Callable[[int, list[Event]], None] | None = None,
) -> Replay:
    """Feed the transcript's chunks to a fresh session, then parse the whole stream
    one-shot (by `fmt` instead of the format the transcript names, if given).

    `pace(t)` is called before each chunk with its recorded time (to replay in real time);
    `on_step(i, events)` after each step (chunk `i`, or `finish()` when `i` equals the
    number of chunks), so a display can follow along."""

    def chunks() -> Iterator[str | bytes]:
        for chunk in transcript.chunks:
            if pace is not None:
                pace(chunk.t)
            yield chunk.data

    session = transcript.session(fmt)
    per_chunk = []
    for number, events in enumerate(drive(session, chunks())):
        per_chunk.append(events)
        if on_step is not None:
            on_step(number, events)
    whole = transcript.session(fmt)
    one_shot_events = [event for batch in drive(whole, [transcript.data]) for event in batch]
    return Replay(transcript, per_chunk, session.message, whole.message, one_shot_events)


def drive(session: Session, chunks: Iterable[str | bytes]) -> Iterator[list[Event]]:
    """Feed `chunks` to `session`, then finish it, yielding the events of each step. After
    a fatal `invalid_output` error the session takes nothing more, so driving stops there."""
    for chunk in chunks:
        events = session.feed(chunk)
        yield events
        if any(getattr(event, "code", None) == "invalid_output" for event in events):
            return
    yield session.finish()


# -- JSON shapes of events and messages (shared with the CLI) ---------------------------------


def event_json(event: Event) -> dict[str, Any]:
    """An event as a JSON object: `{"type": "ContentDelta", "text": …}` and so on."""
    shape = {"type": type(event).__name__, **_fields(event)}
    if isinstance(event, ToolCallEnd):
        shape["call"] = _call_json(event.call)
    return shape


def message_json(message: Message, reasoning_field: str = "reasoning_content") -> dict[str, Any]:
    """`message.to_openai(reasoning_field)` plus `errors`, and `validation_errors` on calls
    that have any."""
    shape = message.to_openai(reasoning_field)
    for call, entry in zip(message.tool_calls, shape.get("tool_calls", ()), strict=True):
        if call.validation_errors:
            entry["validation_errors"] = list(call.validation_errors)
    shape["errors"] = [_fields(error) for error in message.errors]
    return shape


def _fields(event: Event) -> dict[str, Any]:
    return {name: getattr(event, name) for name in event.__slots__}


def _call_json(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        "arguments_json": call.arguments_json,
        "validation_errors": list(call.validation_errors),
    }


def merged(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Events as JSON objects with consecutive deltas of one field (or one call's
    arguments) joined: the view of a stream that does not depend on its chunking."""
    out: list[dict[str, Any]] = []
    for event in map(event_json, events):
        last = out[-1] if out else None
        if (
            last is not None
            and "text" in event
            and last["type"] == event["type"]
            and last.get("index") == event.get("index")
        ):
            last["text"] += event["text"]
        else:
            out.append(event)
    return out


def _result_lines(message: Message, events: Iterable[Event]) -> list[str]:
    document = {"message": message_json(message), "events": merged(events)}
    return json.dumps(document, indent=2, ensure_ascii=False).splitlines()


def _line(record: Mapping[str, Any]) -> str:
    """One JSON line, readable (non-ASCII kept) except lone surrogates (escaped bytes of
    invalid UTF-8), which are written as `\\udcXX` escapes so the file stays UTF-8."""
    text = json.dumps(record, ensure_ascii=False)
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text) + "\n"


_SURROGATE = re.compile("[\ud800-\udfff]")


def chunk_line(chunk: Chunk) -> str:
    """The transcript line of one chunk."""
    if isinstance(chunk.data, bytes):
        body = {"bytes": chunk.data.decode("utf-8", "surrogateescape")}
    else:
        body = {"text": chunk.data}
    return _line({"t": round(chunk.t, 6), **body})


def _record(number: int, line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise TranscriptError(f"transcript line {number}: invalid JSON ({error})") from None
    if not isinstance(record, dict):
        raise TranscriptError(f"transcript line {number}: expected a JSON object")
    return record


def _chunk(number: int, record: Mapping[str, Any]) -> Chunk:
    t = record.get("t")
    if not isinstance(t, int | float):
        raise TranscriptError(f"transcript line {number}: a chunk needs a time `t`")
    if isinstance(record.get("text"), str):
        return Chunk(float(t), record["text"])
    if isinstance(record.get("bytes"), str):
        return Chunk(float(t), record["bytes"].encode("utf-8", "surrogateescape"))
    raise TranscriptError(f"transcript line {number}: a chunk needs `text` or `bytes`")


def _as_bytes(data: str | bytes) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8")


def _tool_json(tool: Mapping[str, Any] | Tool) -> dict[str, Any]:
    if isinstance(tool, Tool):
        function = {"name": tool.name, "description": tool.description}
        return {"type": "function", "function": {**function, "parameters": dict(tool.parameters)}}
    return dict(tool)


__all__ = [
    "Chunk",
    "Recorder",
    "Replay",
    "Transcript",
    "TranscriptError",
    "chunk_line",
    "drive",
    "event_json",
    "merged",
    "message_json",
    "replay",
]
