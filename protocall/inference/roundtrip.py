"""The round trip: a format reads a template's own renders of the probes back to the same
turns, one-shot and streamed.

A probe's turn is fed up to and including its end-of-turn marker (`Trailer`), with the
generation prompt the history writes before it, and must give back the probe's calls (name
and arguments, in order), its content and its reasoning where the template wrote them, and
no protocol error — in one chunk, one character per chunk and three seeded random chunkings.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from ..combinators import UsageError
from ..compile.format import Format
from ..message import Message
from .probes import CONTENT, TOOLS, Rendered, Renders

_MARKER = re.compile(r"<[^<>\s]{1,80}>|\[[^\[\]\s]{1,40}\]|[^\s<\[]{1,80}")
"""A marker: a tag, a bracketed token (`[/INST]`) or a run without either."""


@dataclass(frozen=True)
class Trailer:
    """What a turn ends with: `stop`, the end-of-turn marker, then `rest` (whitespace the
    template writes before the next turn); with `last`, a turn runs through its last
    `stop`, not its first (a family may read it within a turn, as GigaChat 3 drops it); a
    `stop` followed by `resumed` (the generation prompt again: Solar Open writes its
    reasoning and its answer as two messages of one turn) ends no turn."""

    stop: str
    rest: str
    last: bool = False
    resumed: str = ""

    @classmethod
    def of(cls, renders: Renders, eos_token: str = "") -> Trailer:
        """The trailer after the content probe's content: its first marker, or its first
        tag that every probe turn writes first in the tail they all end with (Kimi K3
        closes its response channel with `<|close|>` before the tools channel: its end of
        turn is `<|end_of_msg|>`). Where it has no marker, `eos_token` or else the first
        marker of the next turn is the end of turn. It is `resumed` by the generation
        prompt where every turn that writes an answer after the reasoning past its end of
        turn writes that prompt right after it (a turn of several messages, each after
        the prompt again: Solar Open's reasoning and answer)."""
        trailer = cls._ending(renders, eos_token)
        prompt = renders.prompts["default"]
        past = [
            rendered.turn
            for rendered in renders.turns
            if rendered.probe.reasoning and rendered.probe.content not in trailer.cut(rendered.turn)
        ]
        resumed = all(trailer.stop + prompt in turn for turn in past)
        if trailer.stop and prompt.strip() and past and resumed:
            return replace(trailer, resumed=prompt)
        return trailer

    @classmethod
    def _ending(cls, renders: Renders, eos_token: str) -> Trailer:
        """The trailer, never `resumed` (see `of`)."""
        content = renders.turn(renders.content_only)
        after = "" if content is None else content.turn.rpartition(CONTENT)[2]
        markers = list(_MARKER.finditer(after))
        if not markers and eos_token:
            return cls(eos_token, "")
        if not markers:  # the next turn's header ends it (GLM's `<|user|>`)
            header = _MARKER.findall(renders.next_turn)
            return cls(header[0] if header else "", after)
        turns = [rendered.turn for rendered in renders.turns]
        first = len(after) - len(after.lstrip())  # `[e~[`: what precedes the first run too
        spans = [(first, markers[0].end())]
        spans += [m.span() for m in markers[1:] if m[0][0] in "<["]

        def ends_turns(start: int, end: int) -> bool:
            tail = after[start:]
            return all(
                turn.endswith(tail) and turn.find(after[start:end]) >= len(turn) - len(tail)
                for turn in turns
            )

        start, end = next((span for span in spans if ends_turns(*span)), spans[0])
        return cls(after[start:end], after[end:])

    def cut(self, turn: str) -> str:
        """`turn` through its first end-of-turn marker (where the model stops), or its
        last with `last`."""
        at = self._end(turn)
        if at >= 0:
            return turn[: at + len(self.stop)]
        return turn.removesuffix(self.rest) if self.rest else turn

    def _end(self, turn: str) -> int:
        """Where the end-of-turn marker that ends `turn` stands, or -1."""
        if not self.stop:
            return -1
        if self.last:
            return turn.rfind(self.stop)
        at = turn.find(self.stop)
        while at >= 0 and self.resumed and turn.startswith(self.resumed, at + len(self.stop)):
            at = turn.find(self.stop, at + len(self.stop))
        return at


def chunkings(text: str) -> Iterator[list[str]]:
    """The text whole, per character, and cut at three seeded random sets of points."""
    yield [text]
    yield list(text)
    for seed in range(3):
        rng = random.Random(seed)
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, 8))) if text else []
        yield [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def parsed(fmt: Format, rendered: Rendered, chunks: list[str]) -> Message:
    """The message `fmt` reads from `chunks`, after `rendered`'s generation prompt."""
    session = fmt.parser(TOOLS, rendered.prompt, seed=0)
    for chunk in chunks:
        session.feed(chunk)
    session.finish()
    return session.message


def problem(fmt: Format, rendered: Rendered, trailer: Trailer) -> str | None:
    """Why `fmt` does not read `rendered` back, or None when it does for every chunking."""
    probe, turn = rendered.probe, rendered.turn
    text = trailer.cut(turn)
    content = probe.content if probe.content and probe.content in text else None
    reasoning = probe.reasoning if probe.reasoning and probe.reasoning in text else None
    calls = [list(probe.calls)]
    if rendered.alike is not None:  # values the template writes as it writes their text
        calls.append(list(rendered.alike))
    texts = [(content, reasoning)]
    if content and probe.calls and not probe.reasoning:  # content before calls as reasoning
        texts.append((None, content))  # (gpt-oss's analysis channel)
    expected = [(*text, written) for text in texts for written in calls]
    for chunks in chunkings(text):
        try:
            message = parsed(fmt, rendered, chunks)
        except UsageError as error:
            return f"{probe.name}: {error}"
        if message.errors:
            return f"{probe.name}: {message.errors[0].message} in {text!r}"
        got = (
            message.content,
            message.reasoning_content,
            [(call.name, call.arguments) for call in message.tool_calls],
        )
        if got not in expected:
            how = "whole" if len(chunks) == 1 else f"in {len(chunks)} chunks"
            return f"{probe.name}: read {got!r} ({how}), not {expected[0]!r}, from {text!r}"
    return None


def problems(fmt: Format, renders: Renders, trailer: Trailer) -> Iterator[str]:
    """Why `fmt` does not read each probe back, lazily (none: the round trip holds). A
    turn reads back after the prompt its history writes, or after a generation prompt that
    adds to that one what the history leaves out (Apriel 1.6's history drops the
    `Here are my reasoning steps:` that its prompt opens reasoning with)."""
    for rendered in renders.turns:
        found = problem(fmt, rendered, trailer)
        longer = [
            prompt
            for prompt in dict.fromkeys(renders.prompts.values())
            if prompt.startswith(rendered.prompt) and prompt != rendered.prompt
        ]
        if found is not None and all(
            problem(fmt, replace(rendered, prompt=prompt), trailer) is not None for prompt in longer
        ):
            yield found
