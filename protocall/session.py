"""The sans-I/O streaming session: feed text or bytes, get events, read the message.

A session runs a format's turn grammar over the stream and folds the items it emits into
the semantic AST, events and the `Message`. It never does I/O.
"""

from __future__ import annotations

import base64
import bisect
import codecs
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypedDict

import orjson

from . import ast, repeats
from .ast import Node, TreeBuilder
from .combinators import (
    FAILED,
    Close,
    Item,
    Open,
    Parser,
    Recovered,
    Run,
    Text,
    UsageError,
)
from .combinators.stream import Input
from .events import (
    ContentDelta,
    Event,
    ProtocolError,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .message import Message, ToolCall
from .special_tokens import SpecialTokens
from .tools import Tools, Validator

IdFactory = Callable[[int], str]
Sink = Callable[[str], "list[Event]"]
"""Where the session's final text goes; it returns the events the text makes (a new list,
empty while nothing may be emitted)."""


class StrippedField:
    """One text field (content or reasoning) streamed so that its deltas add up to the
    stripped whole: leading whitespace is never emitted, a trailing whitespace run is held
    until more text follows it (and dropped at the end). `push` gives the delta as a list of
    one event of type `event` (a one-field `text` dataclass), empty when nothing may be
    emitted yet. The deltas are kept for the whole; `compact` joins those so far into a
    block (so that a long output keeps no list as long as it for the collector to walk).
    With `keep=False` only the latest delta is kept (it says the field has started), so
    `value` is not the whole: memory is a delta and the held whitespace run, whatever the
    field's length."""

    __slots__ = ("_chunks", "_event", "_held", "_loose", "_pieces", "_set_text")

    def __init__(self, event: type[ContentDelta | ReasoningDelta], keep: bool = True) -> None:
        self._chunks: list[str] = []
        # The deltas after the blocks (once any, never empty); without `keep`, the latest.
        self._pieces: list[str] = [] if keep else _Latest()
        self._held: list[str] = []
        self._loose = 0  # whitespace pieces held since the last were joined
        self._event = event
        self._set_text = vars(event)["text"].__set__

    def push(self, text: str) -> list[Event]:
        """Add raw text (non-empty); return the delta event that may be emitted now, in a
        list (empty if none)."""
        body = text.rstrip()  # `text` itself when it ends in no whitespace
        if not body:
            if self._pieces:
                self._hold(text)
            return []
        delta = body if self._pieces else body.lstrip()
        held = self._held
        if held:
            delta = "".join(held) + delta
            held.clear()
            self._loose = 0
        if body is not text:
            held.append(text[len(body) :])
        pieces = self._pieces
        pieces.append(delta)
        if len(pieces) >= _JOINED:
            self.compact()
        event: Event = _new(self._event)
        self._set_text(event, delta)
        return [event]

    def _hold(self, text: str) -> None:
        """Hold a whitespace piece; every `_JOINED` pieces are joined into one (a long run
        in deltas keeps a string per few hundred characters, not one per delta)."""
        held = self._held
        held.append(text)
        self._loose += 1
        if self._loose == _JOINED:
            held[-_JOINED:] = ["".join(held[-_JOINED:])]
            self._loose = 0

    def compact(self) -> None:
        """Join the deltas so far into a block, but the latest."""
        pieces = self._pieces
        if len(pieces) > 1:
            self._chunks.append("".join(pieces[:-1]))
            del pieces[:-1]

    @property
    def started(self) -> bool:
        """Whether any text (beyond whitespace) has been emitted."""
        return bool(self._pieces)

    @property
    def value(self) -> str | None:
        return "".join(self._chunks) + "".join(self._pieces) or None


class _Latest(list[str]):
    """A list that keeps only the latest item appended (`StrippedField` without `keep`)."""

    __slots__ = ()

    def append(self, item: str) -> None:
        self[:] = (item,)


class _Unkept(list[Any]):
    """A list that keeps nothing appended (a session's calls and errors without `record`)."""

    __slots__ = ()

    def append(self, item: Any) -> None:
        pass


class _Transcript:
    """The raw text of the turn, read from the run's input: the blocks its buffer released
    (`Input.transcript`, kept for this) and the buffer itself. `text(start, end)` joins
    only the blocks concerned: time in proportion to the slice, not the turn. `forget`
    drops the blocks released so far: text from then on only can be read."""

    __slots__ = ("_blocks", "_inp", "_origin", "_starts")

    def __init__(self, inp: Input) -> None:
        self._inp = inp
        self._blocks: list[str] = []
        self._starts: list[int] = []  # of the blocks counted so far
        self._origin = 0  # where the first block starts
        inp.transcript = self._blocks

    def forget(self) -> None:
        """Drop the text released so far (everything before the buffer's start)."""
        self._blocks.clear()
        self._starts.clear()
        self._origin = self._inp.base

    def text(self, start: int, end: int | None = None) -> str:
        inp = self._inp
        if end is None:
            end = inp.end
        if start >= inp.base:
            return inp.text(start, end)
        assert start >= self._origin, f"raw text from offset {start} was forgotten"
        blocks, starts = self._blocks, self._starts
        while len(starts) < len(blocks):
            count = len(starts)
            starts.append(starts[-1] + len(blocks[count - 1]) if count else self._origin)
        first = bisect.bisect_right(starts, start) - 1
        text = "".join(blocks[first : bisect.bisect_left(starts, end)])
        if end > inp.base:
            text += inp.text(inp.base, end)
        return text[start - starts[first] : end - starts[first]]


class _ItemLog:
    """Every item of the turn, in order, as an exact tuple (`_logged` reads it back): the
    fields of a `Text` (`Run.log` puts the final text so; runs of text are joined, see
    `compact`), of an `Open` and None, of a `Close` and None. Entries go to `open`, the
    list the run appends to; `seal` moves them
    into a block, an exact tuple (the session seals every `_SEALED` entries or so, when it
    folds items: text the run gives its sink alone waits for that). The cyclic collector
    stops tracking a tuple of atoms, so its full passes walk one entry per block, not one
    per node and piece of a long output. A run of entries that repeats (a stop marker
    over and over) is sealed as its period (`repeats.Repeated`), read back the same."""

    __slots__ = ("_blocks", "_starts", "open", "settled")

    def __init__(self) -> None:
        self.open: list[tuple[Any, ...]] = []
        self._blocks: list[Sequence[tuple[Any, ...]]] = []
        self._starts: list[int] = [0]  # where each block starts, and where `open` starts
        # Open entries before it are not joined any more: a node's entry is last there
        # (the session sets it), or `compact` joined them.
        self.settled = 0

    def __len__(self) -> int:
        return self._starts[-1] + len(self.open)

    def seal(self, join: bool = False) -> None:
        """Move the open entries into blocks of at most `_SEALED` (the collector walks
        `open` entry by entry, and a block holding a tracked value, a list say, whole);
        with `join`, each run of contiguous text entries becomes one (the same tree, the
        same text: only the indices of later entries change, so no call may be reading
        its arguments' runs by index)."""
        entries = _joined(self.open) if join else self.open
        for block in repeats.blocks(entries, _SEALED):  # a repeated run kept as its period
            self._blocks.append(block)
            self._starts.append(self._starts[-1] + len(block))
        self.open.clear()
        self.settled = 0

    def forget(self) -> None:
        """Drop every entry: the log starts again, empty (indices from 0)."""
        self._blocks.clear()
        self._starts[:] = [0]
        self.open.clear()
        self.settled = 0

    def compact(self, synthesised: bool) -> None:
        """Join the text entries appended since the last node's entry or the last
        `compact`: into one where each continues the one before
        it (the text right after, in the stream) or `synthesised` says they are a call's
        arguments text (written by the grammar: its spans are read by nobody), else each
        contiguous run into one. So a long run of deltas keeps a tuple per batch, not one
        per delta (the tree joins contiguous text spans alike), and indices up to there,
        where a call's runs of arguments start, do not move."""
        entries = self.open
        first = self.settled
        if len(entries) - first > 1:
            texts, starts = zip(*entries[first:], strict=True)
            text = "".join(texts)
            if synthesised or starts[0] + len(text) == starts[-1] + len(texts[-1]):
                entries[first:] = [(text, starts[0])]
            else:  # a gap somewhere (spans are in order and never overlap)
                entries[first:] = _joined(entries[first:])
        self.settled = len(entries)

    def entries(self, start: int = 0, end: int | None = None) -> list[tuple[Any, ...]]:
        """The entries from index `start` up to `end` (the end of the log: None)."""
        starts = self._starts
        stop = len(self) if end is None else end
        block = bisect.bisect_right(starts, start) - 1
        found: list[tuple[Any, ...]] = []
        while start < stop:
            entries = self._blocks[block] if block < len(self._blocks) else self.open
            offset = starts[block]
            found += entries[start - offset : stop - offset]
            start, block = offset + len(entries), block + 1
        return found


_UNLIMITED = 2**63
"""A bound no text reaches."""
_JOINED = 256
"""Deltas (and whitespace pieces held) a field keeps before joining them (see
`StrippedField`)."""
_SEALED = 4096
"""Entries of the item log sealed into one block (see `_ItemLog`)."""
_COMPACTED = 64
"""Entries the run adds to the item log between two `Session._tidy`s."""
_LOOSE = 8
"""Text entries before a node that are joined when it arrives (fewer stay apart)."""
_FORGOTTEN = 64
"""Entries of the item log after which a session without `record` forgets them, where no
call is open (see `Session._seal`): outside calls it holds at most this many deltas."""


def _joined(entries: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`entries` with each run of contiguous text entries joined into one."""
    joined: list[tuple[Any, ...]] = []
    texts: list[str] = []
    end = -1  # where the run of texts being joined ends
    for entry in entries:
        if len(entry) == 2 and entry[1] == end:
            texts.append(entry[0])
            end += len(entry[0])
            continue
        if len(texts) > 1:
            joined[-1] = ("".join(texts), joined[-1][1])
        joined.append(entry)
        texts = [entry[0]] if len(entry) == 2 else []
        end = entry[1] + len(entry[0]) if texts else -1
    if len(texts) > 1:
        joined[-1] = ("".join(texts), joined[-1][1])
    return joined


class _Call:
    """A tool call in progress."""

    __slots__ = (
        "announced",
        "argument",
        "arguments",
        "id",
        "index",
        "limit",
        "model_id",
        "name",
        "runs",
        "size",
        "start",
    )

    def __init__(self, start: int, limit: int) -> None:
        self.start = start
        self.size = 0  # characters of arguments text so far
        self.limit = limit  # the most it may have (`max_argument_size`)
        self.id: str | None = None
        self.model_id: str | None = None  # the id the model wrote, if any
        self.name: str | None = None
        self.index: int | None = None
        self.arguments: Any = None
        self.argument: str | None = None
        # Where the runs of its arguments text start and end in the session's item log
        # (its text is read back from there: `Session._arguments_text`).
        self.runs: list[int] = []
        self.announced = False

    def push(self, text: str) -> list[Event]:
        """The delta event of arguments text of the announced call (the text itself is in
        the session's item log; before the call is announced, it is only there)."""
        self.size += len(text)
        if self.size > self.limit:
            raise self._reached(text)
        return [_delta(self.index, text)]

    def _reached(self, text: str) -> _LimitReached:
        """`max_argument_size` reached inside `text`: the error, after the delta of the
        text up to the limit (without an escape it would cut)."""
        kept = _whole_escapes(text[: len(text) - (self.size - self.limit)])
        message = f"tool call `{self.name}`: arguments longer than {self.limit} characters"
        reached = _LimitReached(message + " (max_argument_size)", self.start)
        if kept:
            reached.events.append(_delta(self.index, kept))
        return reached


def _delta(index: int | None, text: str) -> ToolCallArgumentsDelta:
    event: ToolCallArgumentsDelta = _new(ToolCallArgumentsDelta)
    _set_index(event, index)
    _set_arguments(event, text)
    return event


class _LimitReached(Exception):
    """A limit of the session was reached, at stream offset `offset` (see `Session`)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.events: list[Event] = []  # the last events before it


_UNICODE_CUT = re.compile(r"\\u[0-9a-fA-F]{0,3}\Z")
"""The start of a `\\uXXXX` escape cut off at the end of a text."""


def _whole_escapes(text: str) -> str:
    """`text` (JSON text cut at a limit) without an escape cut off at its end."""
    unicode = _UNICODE_CUT.search(text, max(len(text) - 5, 0))
    cut = text if unicode is None else text[: unicode.start() + 1]  # up to its backslash
    run = len(cut) - len(cut.rstrip("\\"))  # the backslashes that end it
    if run % 2:  # the last one begins an escape
        return cut[:-1]
    return text


_new = object.__new__  # events built without the frozen dataclasses' `__init__` (hot path)
_set_index = vars(ToolCallArgumentsDelta)["index"].__set__
_set_arguments = vars(ToolCallArgumentsDelta)["text"].__set__


class Session:
    """One assistant turn being parsed. Create it with `Format.parser(...)`.

    `feed(chunk)` and `finish()` return the events the new input made final. Options:
    `passthrough_malformed` (default True) also passes the raw text of a malformed but
    finished region through as content; `truncated_as_content` (default False) does the same
    for a call cut off by the end of the stream; `validate` (default True) checks complete
    arguments against the tool schema with the validators `Tools` compiled when it was
    created, and `reject_invalid` turns a violation (or a raw value that did not convert to
    its declared type, which is reported whether or not `validate` is on) into a
    `ProtocolError` instead of `validation_errors` on the call.

    `special_tokens` names the texts that are special tokens in the model's vocabulary
    (markers, or parts of them): they are then recognised only in text fed with
    `feed(text, special=True)`, and stay text, verbatim, in text fed as ordinary text (the
    defence against marker injection, see `protocall.special_tokens`). Without them, every
    marker is recognised wherever it appears.

    Limits (each None: none), for a server that bounds what one turn may cost:
    `max_output` characters of output, `max_calls` tool calls, `max_argument_size`
    characters of one call's arguments text. Where one is reached the turn ends there: a
    `ProtocolError` with code `limit_exceeded` says which, its `raw` the text from the
    offset where it was reached (the call it stopped, or the output past the limit), the
    call it stopped never completes, and what was emitted before stays as it was. More
    input is then not read (`feed` returns no events) and `finish()` returns none.
    `max_depth` (at least 1) lowers the formats' own bound on how deep a call's arguments
    nest, its arguments the first level: a call nested deeper is `malformed` at the
    bracket past it, as at the formats' own bound, and the turn goes on.

    `record` (default True) keeps the turn for `message` and `ast`: its text, the raw
    stream and every item. A consumer that only wants the events passes `record=False`:
    the session then keeps only what the events still need (the undecided region the
    grammar buffers, a held whitespace run, the raw text and items of an open tool call or
    error region, the ids given to calls), so memory is bounded by those, not by the turn;
    the events are the same, and `message` and `ast` are a `UsageError`.
    """

    def __init__(
        self,
        grammar: Parser[Any],
        tools: Tools | None = None,
        *,
        id_factory: IdFactory | None = None,
        seed: int | None = None,
        passthrough_malformed: bool = True,
        truncated_as_content: bool = False,
        validate: bool = True,
        reject_invalid: bool = False,
        special_tokens: Iterable[str] = (),
        max_output: int | None = None,
        max_calls: int | None = None,
        max_argument_size: int | None = None,
        max_depth: int | None = None,
        record: bool = True,
    ) -> None:
        limits = (max_output, max_calls, max_argument_size, max_depth)
        if limits != _NO_LIMITS:
            _check_limits(*limits)
        self._max_output = max_output
        self._max_calls = max_calls
        self._max_argument_size = _UNLIMITED if max_argument_size is None else max_argument_size
        self._fed = 0  # characters of output so far (counted with `max_output` only)
        self._limited: ProtocolError | None = None  # the limit that ended the turn
        self.tools = tools
        self._validator_for: Callable[[str], Validator] | None = (
            tools.validator if validate and tools is not None else None
        )
        self._reject_invalid = reject_invalid
        self._passthrough = passthrough_malformed
        self._truncated_as_content = truncated_as_content
        self._new_id = id_factory or _random_ids(seed)
        self._record = record
        # Open log entries that make the session seal (without `record`, forget) them.
        self._sealed_at = _SEALED if record else _FORGOTTEN
        self._tidy_at = _COMPACTED  # open log entries that make the session `_tidy` them
        self._synthesised = False  # the text the run gives now is a call's arguments text
        self._log = _ItemLog()
        self._entries = self._log.open  # the log's open entries, as the run appends them
        self._run = Run(grammar, log=self._log.open)
        self._run.input.max_depth = max_depth  # read where each value starts
        self._raw = _Transcript(self._run.input)
        self._open: list[Open] = []
        self._decoder: codecs.IncrementalDecoder | None = None
        self._replaced: list[tuple[int, int]] = []  # spans of U+FFFD put for invalid bytes
        self._content = StrippedField(ContentDelta, keep=record)
        self._reasoning = StrippedField(ReasoningDelta, keep=record)
        self._calls: list[ToolCall] = [] if record else _Unkept()
        self._errors: list[ProtocolError] = [] if record else _Unkept()
        self._truncated = False  # the stream ended inside a tool call
        self._call: _Call | None = None
        self._enveloped: list[tuple[int, ToolCall]] | None = None  # calls of an open envelope, held
        self._announced = 0
        self._ids: set[str] = set()  # the call ids given so far in this turn
        self._sink: Sink = self._content.push  # where text goes
        # The tags whose node decides where its text goes whatever is open around it.
        self._sinks: dict[str, Sink] = {
            ast.CONTENT: self._content.push,
            ast.REASONING: self._reasoning.push,
            **dict.fromkeys(_SILENT, _drop),
        }
        self._receiver: _Call | None = None  # the call whose arguments the text is
        self._reasoned = False  # a reasoning block was opened (or a stray close reported)
        self._finished = False
        self._fatal: ProtocolError | None = None
        self._special = SpecialTokens(special_tokens) if special_tokens else None
        self._masked: SpecialTokens | None = None  # `_special`, once it has masked text
        # Finished, failed, limited, decoding bytes or masking special tokens: `feed`
        # checks first.
        self._guarded = self._special is not None or max_output is not None

    # -- feeding ---------------------------------------------------------------------------

    def feed(self, chunk: str | bytes, special: bool = False) -> list[Event]:
        """Parse more output; bytes are decoded as UTF-8 incrementally (invalid → U+FFFD).
        With `special=True`, `chunk` (text) arrived as special tokens: the session's
        `special_tokens` in it are markers; elsewhere they are text (see `Session`)."""
        if self._guarded or type(chunk) is not str:
            if self._limited is not None and not self._finished:
                return []  # the turn ended at the limit: the rest is not read
            chunk = self._decode(chunk, special)
            if self._max_output is not None:
                return self._bounded(chunk)
        # Final text (the innermost parser took the delta without a resume, and nothing
        # waits) goes straight to the current sink, whose events come back.
        try:
            events = self._run.feed(chunk, self._sink)
        except _LimitReached as reached:  # in a call's arguments text
            return self._limit(reached)
        if events is None:
            return self._collect()
        if len(self._entries) >= self._tidy_at:  # text taken straight to the sink, entry by entry
            self._tidy()
        return events

    def _bounded(self, chunk: str) -> list[Event]:
        """`feed` of `chunk` under `max_output`: the part within the limit is parsed, and
        where the output goes past it the turn ends there, at end of input, with the error."""
        assert self._max_output is not None
        room = self._max_output - self._fed
        self._fed += len(chunk)
        try:
            if len(chunk) <= room:
                events = self._run.feed(chunk, self._sink)
                if events is None:
                    return self._collect()
                if len(self._entries) >= self._tidy_at:
                    self._tidy()
                return events
            events = self._run.feed(chunk[:room], self._sink) or []
        except _LimitReached as reached:  # in a call's arguments text
            return self._limit(reached)
        self._run.finish()
        events += self._collect()
        if self._limited is not None:  # another limit, reached first
            return events
        message = f"output longer than {self._max_output} characters (max_output)"
        events += self._limit(_LimitReached(message, self._max_output))
        return events

    def _limit(self, reached: _LimitReached) -> list[Event]:
        """End the turn at a limit: the events before it, the error, and no more input."""
        error = ProtocolError("limit_exceeded", reached.message, reached.offset, "")  # unread
        self._limited = error
        self._guarded = True
        self._errors.append(error)
        return [*reached.events, error]

    def _decode(self, chunk: str | bytes, special: bool = False) -> str:
        """The text of `chunk` to parse (bytes decoded, text after bytes flushing the decoder,
        special tokens masked in ordinary text), or a `UsageError` when this session takes
        no more input."""
        if special and not isinstance(chunk, str):
            raise UsageError("feed(special=True) takes the text of special tokens: a str")
        if self._finished:
            raise UsageError("feed() after finish(): this turn has ended")
        if self._fatal is not None:
            raise UsageError(f"feed() after a fatal protocol error: {self._fatal.message}")
        tail = ""
        if isinstance(chunk, bytes):
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
                self._guarded = True
            chunk = self._decoder.decode(chunk)
        elif self._decoder is not None:
            # Text after bytes: a character the bytes left incomplete is invalid now.
            tail = self._decoder.decode(b"", final=True)
            self._decoder.reset()
        if self._special is not None:
            if special:
                chunk = self._special.ordinary(tail) + self._special.special(chunk)
            else:
                chunk = self._special.ordinary(tail + chunk)
            if self._masked is None and self._special.masked:
                self._unmasking()
        else:
            chunk = tail + chunk
        return self._replacing(chunk) if self._decoder is not None else chunk

    def _replacing(self, text: str) -> str:
        """`text` (to be parsed next) with each run of invalid bytes, which the decoder
        kept as lone surrogates, replaced by U+FFFD as UTF-8's `replace` does; where the
        replacement characters stand in the stream is noted (`_replaced`)."""
        if not _INVALID.search(text):
            return text
        pieces: list[str] = []
        at = 0
        position = self._run.offset  # in the stream, of the text's next piece
        for invalid in _INVALID.finditer(text):
            pieces.append(text[at : invalid.start()])
            position += invalid.start() - at
            raw = bytes(ord(c) - 0xDC00 for c in invalid.group())
            replacement = raw.decode("utf-8", errors="replace")
            pieces.append(replacement)
            self._note_replaced(position, position + len(replacement))
            position += len(replacement)
            at = invalid.end()
        pieces.append(text[at:])
        return "".join(pieces)

    def _unmasking(self) -> None:
        """Once the special tokens' masks are in the text parsed, they are put back in all
        the output (before, there are none)."""
        if self._masked is None and self._special is not None and self._special.masked:
            self._masked = self._special
            self._sink = self._restoring(self._sink)

    def finish(self) -> list[Event]:
        """End of stream: open constructs decide (a call cut off becomes a `truncated` error)."""
        if self._finished:
            raise UsageError("finish() called twice")
        if self._fatal is not None:
            raise UsageError(f"finish() after a fatal protocol error: {self._fatal.message}")
        if self._limited is not None:  # the turn ended at the limit
            self._finished = True
            return []
        tail = self._decoder.decode(b"", final=True) if self._decoder is not None else ""
        if self._special is not None:
            tail = self._special.ordinary(tail) + self._special.flush()
            self._unmasking()
        if self._decoder is not None:
            tail = self._replacing(tail)
        self._finished = self._guarded = True
        if tail:
            self._run.feed(tail)
        self._run.finish()
        return self._collect()

    def _collect(self) -> list[Event]:
        """Fold the items the run emitted into events (and a fatal error if it failed)."""
        events: list[Event] = []
        run = self._run
        items = run.out
        if items:
            log = self._log.open
            try:
                for item in items:
                    if type(item) is Text:
                        log.append((item.text, item.start))  # see `_ItemLog`
                        sunk = self._sink(item.text) if item.text else None
                        if sunk:
                            events += sunk
                    else:
                        size = len(log)
                        if size - self._log.settled > _LOOSE:  # text before the node
                            self._log.compact(self._synthesised)
                            size = len(log)
                        log.append((*item, None))  # see `_ItemLog`: an Open, or a Close
                        self._log.settled = size + 1
                        self._on_node(item, events)
            except _LimitReached as reached:
                items.clear()
                events += self._limit(reached)
                return events
            items.clear()
            if len(log) >= self._tidy_at:
                self._tidy()
        if run.status is FAILED and run.error is not None:
            error = run.error
            self._fatal = ProtocolError(
                "invalid_output",
                self._restore(str(error)),
                error.position,
                self._restore(self._raw.text(error.position)),
            )
            self._guarded = True
            self._errors.append(self._fatal)
            events.append(self._fatal)
        return events

    def _tidy(self) -> None:
        """Every `_COMPACTED` entries the run adds to the item log: seal (or forget) them
        once there are `_sealed_at`, and join the latest run of text entries (see
        `_ItemLog.compact`), so memory holds a tuple per few hundred characters of a long
        run of deltas, not one per delta, and a delta pays one list append."""
        if len(self._entries) >= self._sealed_at:
            self._seal()
        self._log.compact(self._synthesised)
        self._tidy_at = len(self._entries) + _COMPACTED

    def _seal(self) -> None:
        """Seal the item log's open entries into a block and join the fields' deltas so
        far: the collector's full passes walk lists entry by entry (see `_ItemLog`). Text
        entries are joined too where no call is open (a long turn then keeps its text in
        a few long strings, not one per delta). Without `record`, where no call is open,
        the log, the raw text released and the spans of replaced bytes are forgotten
        instead (no later call reads them); inside a call they wait for its end."""
        if not self._record:
            if self._call is None and self._receiver is None:
                self._forget()
            return
        self._log.seal(join=self._call is None and self._receiver is None)
        self._content.compact()
        self._reasoning.compact()

    def _forget(self) -> None:
        """Drop the item log, the raw text released and the spans of replaced bytes before
        it (see `_seal`)."""
        self._log.forget()
        self._raw.forget()
        replaced = self._replaced
        if replaced:
            base = self._run.input.base
            kept = bisect.bisect_left(replaced, (base,))
            if kept and replaced[kept - 1][1] > base:
                kept -= 1
            del replaced[:kept]

    # -- folding items into events -----------------------------------------------------------

    def _on_node(self, item: Item, events: list[Event]) -> None:
        """Fold `item`, the item log's latest, into `events`; where text goes next follows
        from the nodes open."""
        if type(item) is Open:
            if item.tag in _OPENING:
                self._on_open(item, events)
            self._open.append(item)
            sink = self._sinks.get(item.tag)
        else:
            assert isinstance(item, Close)
            opened = self._open.pop()
            if self._call is not None or item.tag in _CLOSING:
                self._on_close(opened.start, item, events)
            sink = None if self._open else self._content.push
        if sink is None:
            sink, receiver = self._innermost_sink()
        else:
            receiver = None
        self._sink = sink
        if receiver is not self._receiver:  # a run of arguments text ends or starts
            after = len(self._log)  # past `item`
            if self._receiver is not None:
                self._receiver.runs.append(after)
            if receiver is not None:
                receiver.runs.append(after)
            self._receiver = receiver
            self._synthesised = receiver is not None
        if self._masked is not None:
            self._sink = self._restoring(self._sink)

    def _restoring(self, sink: Sink) -> Sink:
        """`sink` taking the grammar's text with the special tokens' masks put back."""
        assert self._masked is not None
        restore = self._masked.restore
        return lambda text: sink(restore(text))

    def _restore(self, text: str) -> str:
        return text if self._masked is None else self._masked.restore(text)

    def _innermost_sink(self) -> tuple[Sink, _Call | None]:
        """Where text goes, and the call whose arguments it is, if any: the innermost
        content, reasoning or arguments node decides; text elsewhere in a call envelope, in
        an error region (reported whole) or in an end-of-turn marker is dropped."""
        sinks = self._sinks
        for node in reversed(self._open):
            tag = node.tag
            if tag == ast.TOOL_ARGUMENTS:
                call = self._call
                if call is None:
                    return _drop, None
                return (_drop if call.index is None else call.push), call  # announced
            sink = sinks.get(tag)
            if sink is not None:
                return sink, None
        return self._content.push, None

    def _on_open(self, item: Open, events: list[Event]) -> None:
        """Fold an `Open` of `_OPENING` (before it is among the nodes open)."""
        if item.tag == ast.ERROR:
            while self._open and self._open[-1].start >= item.start:
                if self._open.pop().tag == ast.TOOL_CALLS:
                    self._enveloped = None  # the envelope failed: none of its calls
        elif item.tag == ast.TOOL_CALLS:
            self._enveloped = []
        elif item.tag == ast.TOOL_CALL:
            self._call = _Call(item.start, self._max_argument_size)
        elif item.tag == ast.TOOL_ARGUMENTS and self._call is not None:
            self._announce(self._call, events)
        elif item.tag == ast.REASONING:
            self._reasoned = True

    def _on_close(self, start: int, item: Close, events: list[Event]) -> None:
        """Fold a `Close` of `_CLOSING`, or any inside a call."""
        call = self._call
        tag = item.tag
        if tag == ast.ERROR:
            self._on_error(item.value, events)
            return
        if tag == ast.REASONING_CLOSE:
            self._on_reasoning_close(start, item.value, events)
            return
        if tag == ast.TOOL_CALLS:
            for index, done in self._enveloped or ():
                self._release(index, done, events)
            self._enveloped = None
            return
        assert call is not None  # `_on_node` folds no other node outside a call
        if tag == ast.TOOL_ID:
            call.model_id = self._restore(str(item.value))
        elif tag == ast.TOOL_NAME:
            call.name = self._restore(str(item.value))
        elif tag == ast.ARGUMENT_NAME:
            call.argument = self._restore(str(item.value))
        elif tag == ast.TOOL_ARGUMENTS:
            call.arguments = item.value
        elif tag == ast.TOOL_CALL:
            self._call = None
            self._complete(call, start, item.end, events)

    def _on_reasoning_close(self, start: int, closes: str | list[str], events: list[Event]) -> None:
        """A reasoning close where the prompt opened no block: if the turn opened none
        either, the content before it was probably reasoning in a block the prompt
        pre-opened. Reported once (`unopened_reasoning`), and only after content (a close
        before any closes an empty block: nothing was misread); the close stays out of the
        content, as any stray close does."""
        if self._reasoned:
            return
        self._reasoned = True
        if not self._content.started:
            return
        raw = self._restore(closes if isinstance(closes, str) else closes[0])  # the first
        self._error(
            "unopened_reasoning",
            f"reasoning close {raw!r} at offset {start} with no reasoning block open (the "
            "text before it is content): the prompt probably pre-opened reasoning: pass "
            "generation_prompt",
            start,
            raw,
            events,
            passthrough=False,
        )

    def _announce(self, call: _Call, events: list[Event]) -> None:
        if call.announced or call.name is None or not self._declared(call.name):
            return
        if self._announced == self._max_calls:
            raise _LimitReached(f"more than {self._max_calls} tool calls (max_calls)", call.start)
        call.announced = True
        call.index = self._announced
        self._announced += 1
        call.id = self._unique_id(call.model_id, call.index)
        events.append(ToolCallStart(call.index, call.id, call.name))

    def _unique_id(self, model_id: str | None, index: int) -> str:
        """The id of call `index`: the model's own id, else (none, or empty) a new one from
        the id factory; one an earlier call of the turn already has gets `_INDEX` appended
        (until unique), so it is the same for the same output whatever the chunking."""
        wanted = model_id or self._new_id(index)
        while wanted in self._ids:
            wanted = f"{wanted}_{index}"
        self._ids.add(wanted)
        return wanted

    def _declared(self, name: str) -> bool:
        return self.tools is None or name in self.tools

    def _complete(self, call: _Call, start: int, end: int, events: list[Event]) -> None:
        if call.name is None or not self._declared(call.name):
            names = ", ".join(f"`{n}`" for n in sorted(self.tools or ())[:8])
            self._error(
                "unknown_tool",
                f"call to undeclared tool `{call.name}` (declared: {names or 'none'})",
                start,
                self._restore(self._raw.text(start, end)),
                events,
                passthrough=self._passthrough,
            )
            return
        if not call.announced:
            self._announce(call, events)
        assert call.index is not None and call.id is not None
        arguments = dict(call.arguments) if isinstance(call.arguments, dict) else {}
        # Raw values that did not convert to their declared type (kept as strings).
        problems: tuple[str, ...] = tuple(getattr(call.arguments, "problems", ()))
        if self._masked is not None:
            arguments = self._masked.restore_value(arguments)
            problems = tuple(map(self._masked.restore, problems))
        arguments_json = self._arguments_text(call)
        if not arguments_json:
            arguments_json = "{}"
            events.append(ToolCallArgumentsDelta(call.index, "{}"))
        if self._validator_for is not None:
            problems += self._validator_for(call.name)(arguments)
        problems += self._invalid_bytes(start, end)
        if problems and self._reject_invalid:
            self._error(
                "invalid_arguments",
                f"tool call `{call.name}`: arguments violate the schema: " + "; ".join(problems),
                start,
                self._restore(self._raw.text(start, end)),
                events,
                passthrough=False,
            )
            return
        done = ToolCall(call.id, call.name, arguments, arguments_json, problems, call.model_id)
        if self._enveloped is not None:
            self._enveloped.append((call.index, done))  # complete when its envelope closes
        else:
            self._release(call.index, done, events)

    def _note_replaced(self, start: int, end: int) -> None:
        """Note replacement characters at `[start, end)`, one span with any just before
        (so the spans are the same however the bytes were split into chunks)."""
        replaced = self._replaced
        if replaced and replaced[-1][1] == start:
            replaced[-1] = (replaced[-1][0], end)
        else:
            replaced.append((start, end))

    def _invalid_bytes(self, start: int, end: int) -> tuple[str, ...]:
        """A problem when bytes that were not valid UTF-8 (replaced by U+FFFD) stand in the
        call at `[start, end)`: its arguments are then not what the model wrote."""
        replaced = self._replaced
        first = bisect.bisect_right(replaced, (start, -1))
        if first == len(replaced) or replaced[first][0] >= end:
            return ()
        more = sum(1 for span in replaced[first + 1 :] if span[0] < end)
        return (
            f"bytes that are not UTF-8 replaced by U+FFFD in the call at offset "
            f"{replaced[first][0]}" + (f" (and {more} more)" if more else ""),
        )

    def _arguments_text(self, call: _Call) -> str:
        """The arguments text of `call`: the text of its runs in the item log."""
        runs = call.runs
        ends = runs[1::2] if len(runs) % 2 == 0 else [*runs[1::2], len(self._log)]
        entries = self._log.entries(runs[0], ends[-1]) if runs else []
        first = runs[0] if runs else 0
        texts = [
            item[0]
            for start, end in zip(runs[::2], ends, strict=True)
            for item in entries[start - first : end - first]
            if len(item) == 2  # not a node's Open or Close
        ]
        return self._restore("".join(texts))

    def _release(self, index: int, done: ToolCall, events: list[Event]) -> None:
        """Call `index` is complete: into the message, and its `ToolCallEnd`."""
        self._calls.append(done)
        events.append(ToolCallEnd(index, done))

    def _on_error(self, recovered: Recovered, events: list[Event]) -> None:
        call = self._call
        where = []
        if call is not None and call.start >= recovered.start:
            self._call = None
            if call.name is not None:
                where.append(f"tool call `{call.name}`")
            if call.argument is not None:
                where.append(f"argument `{call.argument}`")
        self._truncated = self._truncated or recovered.truncated
        failure = recovered.failure
        tags = [tag.replace("_", " ") for tag in reversed(failure.context)]
        context = ", ".join(where) or " > ".join(tags) or "the turn"
        expected = " or ".join(failure.expected) or "nothing"
        if recovered.truncated:
            message = f"output ended inside {context}: expected {expected}"
        else:
            message = f"malformed {context} at offset {failure.position}: expected {expected}"
        self._error(
            "truncated" if recovered.truncated else "malformed",
            message,
            recovered.start,
            self._restore(recovered.raw),
            events,
            passthrough=self._truncated_as_content if recovered.truncated else self._passthrough,
        )

    def _error(
        self, code: str, message: str, offset: int, raw: str, events: list[Event], passthrough: bool
    ) -> None:
        error = ProtocolError(code, message, offset, raw)
        self._errors.append(error)
        events.append(error)
        if passthrough and raw:
            events += self._content.push(raw)

    # -- results -------------------------------------------------------------------------------

    @property
    def message(self) -> Message:
        """A snapshot of the turn so far (complete calls only); a `UsageError` without
        `record`."""
        self._recorded("message")
        return Message(
            content=self._content.value,
            reasoning_content=self._reasoning.value,
            tool_calls=tuple(self._calls),
            errors=tuple(self._errors),
        )

    @property
    def ast(self) -> Node:
        """The semantic tree of the turn (complete once `finish()` has run)."""
        self._recorded("ast")
        if not self._finished:
            raise UsageError("the AST is available once finish() has run")
        tree = TreeBuilder()
        for item in self._log.entries():
            tree.add(self._restore_item(_logged(item)))
        return tree.finish(self._run.offset)

    def _recorded(self, what: str) -> None:
        if not self._record:
            raise UsageError(
                f"no {what}: this session was created with record=False, it keeps only what "
                "its events need (read the turn from the events, or create it with record=True)"
            )

    def _restore_item(self, item: Item) -> Item:
        """`item` with the special tokens' masks put back in its text or value."""
        if self._masked is None or type(item) is Open:
            return item
        if type(item) is Text:
            return Text(self._masked.restore(item.text), item.start)
        assert isinstance(item, Close)
        value = item.value
        if isinstance(value, Recovered):
            raw = self._masked.restore(value.raw)
            value = Recovered(value.failure, raw, value.start, value.truncated)
        return Close(item.tag, item.end, self._masked.restore_value(value))

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def truncated(self) -> bool:
        """True when the stream ended inside a tool call."""
        return self._truncated


_INVALID = re.compile("[\udc80-\udcff]+")
"""A run of bytes the decoder found invalid (`surrogateescape` keeps each as a surrogate)."""


class SessionOptions(TypedDict, total=False):
    """The keyword options of a `Session` (see it), as `Format.parser` and
    `protocall.parse` take them: a misspelt option is a type error, not a silent default."""

    id_factory: IdFactory | None
    seed: int | None
    passthrough_malformed: bool
    truncated_as_content: bool
    validate: bool
    reject_invalid: bool
    special_tokens: Iterable[str]
    max_output: int | None
    max_calls: int | None
    max_argument_size: int | None
    max_depth: int | None
    record: bool


_SILENT = frozenset((ast.TOOL_CALL, ast.ERROR, ast.END_OF_TURN))
"""Tags whose own text is not content (see `Session._innermost_sink`)."""
_OPENING = frozenset((ast.ERROR, ast.TOOL_CALLS, ast.TOOL_CALL, ast.TOOL_ARGUMENTS, ast.REASONING))
"""The nodes whose `Open` the session folds (`_on_open`); the others only say where text goes."""
_CLOSING = frozenset((ast.ERROR, ast.TOOL_CALLS, ast.REASONING_CLOSE))
"""The nodes whose `Close` the session folds outside a call (`_on_close`)."""


def _logged(entry: tuple[Any, ...]) -> Item:
    """The item an entry of the item log is (see `_ItemLog`)."""
    if len(entry) == 2:
        return Text(entry[0], entry[1])
    if len(entry) == 3:
        return Open(entry[0], entry[1])
    return Close(entry[0], entry[1], entry[2])


def _drop(text: str) -> list[Event]:
    return []


_NO_LIMITS = (None, None, None, None)


def _check_limits(*limits: int | None) -> None:
    """`Session`'s limits, in its order: a `UsageError` for one that is no number of at
    least its least value (1 for `max_depth`, else 0)."""
    names = ("max_output", "max_calls", "max_argument_size", "max_depth")
    for name, limit, least in zip(names, limits, (0, 0, 0, 1), strict=True):
        if limit is not None and (type(limit) is not int or limit < least):
            raise UsageError(f"{name} is a number of at least {least} or None, not {limit!r}")


def _random_ids(seed: int | None) -> IdFactory:
    """`call_` + 24 alphanumerics (144 random bits in base 64, `x` and `y` standing for its
    two non-alphanumeric digits): deterministic for a given seed (from a generator of the
    session's own, seeded when the first id is drawn: a turn without calls seeds nothing),
    else drawn from the process's generator (`random`'s, seeded by the OS at start and again
    in a child process after a fork: ids must be unique, not secret; seeding one per session
    cost more than the rest of the call's events)."""
    if seed is None:
        return _new_id
    generators: list[random.Random] = []

    def new_id(index: int) -> str:
        if not generators:
            generators.append(random.Random(seed))
        return _id_of(generators[0].randbytes(18))

    return new_id


def _new_id(index: int) -> str:
    return _id_of(random.randbytes(18))


def _id_of(bits: bytes) -> str:
    return "call_" + base64.b64encode(bits, b"xy").decode()


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


__all__ = ["IdFactory", "Mapping", "Session", "SessionOptions", "StrippedField", "dumps"]
