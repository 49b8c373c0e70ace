"""The turn as prose: a reasoning block, then content and tool calls in any order, with
end-of-turn tokens consumed wherever they appear.

Text that merely looks like a call opener (`<tool_call>` in prose) stays text: an opener
counts only where the format's *head* — the opener through the tool name — matches, and,
in a `fenced` turn, only outside Markdown code (see `code_span`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    alt,
    as_text,
    cut,
    end_of_input,
    literal,
    many,
    markers,
    not_followed_by,
    optional,
    recurring,
    regex,
    separated_runs,
    seq,
    skip_many,
    success,
    tag,
    until,
    whitespace,
)
from ..shortcuts.parser import glance_of
from .calls import (
    Calls,
)


@dataclass(frozen=True)
class Reasoning:
    """A reasoning block `open` … `close`, also written as any (open, close) pair of `also`.

    With `ends_at_call`, a genuine call inside a block the generation prompt pre-opened ends
    it implicitly (the call is then parsed as a call): the model may not know it is
    reasoning. So does one inside a block the model opened, unless `explicit` (the model
    writes the opener itself and quotes calls in it): that block ends at its close, an
    end-of-turn marker or the end of input, and a call inside it is reasoning text, unless
    the block is never closed: a genuine call with no close after it up to the end of the
    turn ends the block there (`explicit_body`).

    `phrases` (openings, closings) is reasoning written as text (Granite 3.2): a turn that
    starts, after whitespace, with an opening phrase is reasoning up to a closing one (or
    a stop, or a genuine call); the phrase counts only there, held back until decided.

    `ends_at` markers (a section opener that is a special token) end a block that is not
    `explicit` even where no genuine call follows them, unless the block closes after them
    before the turn ends (they are then quoted reasoning text): they are not consumed, the
    content reads them next (see `prose`).
    """

    open: str
    close: str
    ends_at_call: bool = True
    explicit: bool = False
    also: tuple[tuple[str, str], ...] = ()
    phrases: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    ends_at: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[tuple[str, str], ...]:
        return ((self.open, self.close), *self.also)


BACKTICK = "`"
TILDES = "~~~"
FENCES = (BACKTICK, TILDES)
"""Where Markdown code may start: a backtick (inline code or a fence), or a fence of
tildes (three or more)."""

LONGEST_FENCE = 16


"""Backticks a closing run needs at most: a longer opening run closes at a run of this many
(its closing marker, a literal, costs its length at every backtick: a degenerate run of a
million backticks must not make a marker of a million)."""


def code_span(stops: tuple[str, ...]) -> Parser[str]:
    """Markdown code quoted in prose, all of it text: a run of N backticks (or of N >= 3
    tildes, a `~~~` fence), then text up to the next run of at least N of the same
    character (of `LONGEST_FENCE` when N is more; consumed whole), one of `stops`, a newline
    when N < 3 backticks (an inline span stays on its line), or the end of input. So a call
    opener inside a fence or inline code is an example, never a call; an unclosed fence
    lasts to the end of the turn. One or two tildes are text (strikethrough, not code).
    Needs more while the opening or closing run reaches the end of input."""
    # two runs, not one alternation: a run of one character costs its length once however
    # many deltas bring it (see `shortcuts.absorbers.TokenWait`)
    run = as_text(alt(regex("`+").desc("a backtick"), regex("~+").desc("a tilde")))

    @functools.cache
    def body(fence: str) -> Parser[Any]:
        if len(fence) < len(TILDES) and fence[0] == TILDES[0]:
            return success("")
        ends = (fence, *stops, *(("\n",) if len(fence) < 3 else ()))
        return seq(cut, until(*ends), optional(run))

    return run.bind(lambda opening: body(opening[: min(len(opening), LONGEST_FENCE)]))


def text_openers(openers: tuple[str, ...], ends: tuple[str, ...]) -> tuple[str, ...]:
    """The `openers` a text scan ending at `ends` may read as text where no call heads
    them (`until`'s `text_markers`): those that begin no other of `ends` and that no other begins
    (where one does, the turn decides between them)."""
    return tuple(
        opener
        for opener in openers
        if ends.count(opener) == 1
        and not any(
            end != opener and (opener.startswith(end) or end.startswith(opener)) for end in ends
        )
    )


def stray_run(strays: tuple[str, ...], calls: Calls | None, stops: tuple[str, ...]) -> Parser[Any]:
    """One of `strays`, or a run of them where the turn could read nothing else at any of
    them: no call starts with a stray (the call's glance at each rules it out) and no stop
    shares a prefix with one. (So a stray repeated is one segment of the turn, not a choice
    between all of them at every repetition.)"""
    stray = markers(*strays)
    clash = any(s.startswith(t) or t.startswith(s) for s in strays for t in (*stops, *FENCES))
    if calls is not None:
        clash = clash or any(not _ruled_out(calls.call, s) for s in strays)
    return stray if clash else many(stray, minimum=1)


def _ruled_out(parser: Parser[Any], text: str) -> bool:
    glance = glance_of(parser, text)
    return glance is not None and glance.fails and glance.at < len(text)


def prose(
    node: str,
    stops: tuple[str, ...],
    calls: Calls | None,
    *,
    fenced: bool = False,
    ends_at: tuple[str, ...] = (),
) -> Parser[Any]:
    """A `node`-tagged text region, streamed, up to a stop marker or a genuine call.

    An opener that does not head a call (nor begins a stop) is kept as text, and so is,
    when `fenced`, Markdown code (`code_span`). An `ends_at` marker that heads no call is
    text only where the first stop after it is `stops[0]` (the block's close: the marker is
    quoted in a block that closes), read with the text up to that stop in one scan;
    elsewhere it ends the region. Ends (consuming nothing more) at a stop marker, at a call
    head, at an `ends_at` marker the block never closes after, or at end of input.
    """
    openers = calls.openers if calls else ()
    ends = (*stops, *openers, *ends_at, *FENCES * fenced)
    text = until(*ends, nonempty=True, commit=True)
    segments: list[Parser[Any]] = [*(code_span(stops),) * fenced, text]
    not_a_call = [not_followed_by(calls.head, "text")] if calls is not None else []
    textual = tuple(opener for opener in openers if opener not in ends_at)
    if textual:  # where no stop or `ends_at` marker starts (an opener may begin one)
        ending = [not_followed_by(markers(*stops, *ends_at))]
        segments.append(seq(*ending, *not_a_call, as_text(markers(*textual))))
    if ends_at:
        marker = markers(*ends_at)
        unclosed = seq(marker, until(*stops, emit=False), not_followed_by(literal(stops[0])))
        closed = not_followed_by(unclosed, "a block closed after it")
        segments.append(seq(*not_a_call, closed, as_text(marker), until(*stops)))
    return tag(node, many(alt(*segments)))


def explicit_body(
    close: str, calls: Calls, stops: tuple[str, ...], *, fenced: bool = False
) -> Parser[Any]:
    """The text of an `explicit` reasoning block the model opened, up to its `close`, a
    stop or a genuine call the block never closes: a call head after which no `close`
    comes before a stop or the end of input ends it (the call is parsed as a call).
    Where `close` does come, the text from the head to it is reasoning, scanned once; an
    opener that heads no call is reasoning text. Text after a genuine head is held until
    the close, a stop or the end of input decides it."""
    ends = (close, *stops)
    unclosed = seq(calls.head, until(*ends, emit=False), not_followed_by(literal(close)))
    opener = as_text(markers(*calls.openers))
    text = until(*ends, *calls.openers, *FENCES * fenced, nonempty=True, commit=True)
    segments: list[Parser[Any]] = [*(code_span(stops),) * fenced, text]
    segments.append(seq(not_followed_by(calls.head, "text"), opener))
    segments.append(seq(not_followed_by(unclosed, "a closed block"), opener, until(*ends)))
    return tag(ast.REASONING, many(alt(*segments)))


def reasoning_block(
    reasoning: Reasoning,
    calls: Calls | None,
    stops: tuple[str, ...],
    pre_opened: bool,
    *,
    fenced: bool = False,
) -> Parser[Any]:
    """The reasoning block: pre-opened by the generation prompt, or opened by the model
    at the very start (after optional whitespace), in any of its spellings. It ends at its
    close marker (consumed), at a genuine call (if `ends_at_call`, and unless the model
    opened an `explicit` block), at an `ends_at` marker the block never closes after or an
    end-of-turn marker (neither consumed) or at end of input. A redundant
    opener right after a pre-opened prompt (optional whitespace, then `<think>` again) is
    dropped, not reasoning text; the block then ends at that spelling's close."""

    def block(close: str, ends_at_call: bool) -> Parser[Any]:
        if reasoning.explicit and not pre_opened and calls is not None:
            body = explicit_body(close, calls, stops, fenced=fenced)
        else:
            ending = calls if ends_at_call else None
            ends_at = reasoning.ends_at
            body = prose(ast.REASONING, (close, *stops), ending, fenced=fenced, ends_at=ends_at)
        return body.skip(optional(literal(close)))

    def opened(ends_at_call: bool) -> list[Parser[Any]]:
        spellings = reasoning.spellings
        return [seq(whitespace, literal(o), cut, block(c, ends_at_call)) for o, c in spellings]

    at_call = reasoning.ends_at_call
    if pre_opened:
        return alt(*opened(at_call), block(reasoning.close, at_call))
    return optional(alt(*opened(at_call)))


def assistant_turn(
    *,
    calls: Calls | None,
    stops: Iterable[str],
    reasoning: Reasoning | None = None,
    start: str | None = None,
    fenced: bool = False,
    dropped: Iterable[str] = (),
    content_lead: Iterable[str] = (),
) -> Parser[Any]:
    """A whole assistant turn (see the module docstring); `start == "reasoning"` when the
    generation prompt pre-opened the reasoning block. With `fenced`, Markdown code in the
    content and the reasoning is text, calls quoted in it included (see `code_span`).
    Strays are dropped where they stand in the content, never content: the `dropped`
    markers and a reasoning close marker (the block ended at a call, or was closed
    already); in the reasoning they are its text. Where the prompt opened no block, a run
    of reasoning closes is a `reasoning_close` node: the session reports the first one
    that follows no reasoning block (the prompt probably pre-opened one). A `content_lead`
    text where the content begins (after the reasoning block, if any; whitespace before it
    too) is dropped; elsewhere it is text.

    A `content` node is one text scan, its value the text: the openers in it that head no
    call where the characters after them rule the call out (`until`'s `text_markers`) are part of
    it, so a marker prefix repeated is one node. An opener the turn had to try as a call
    (its head failed further on) is a content node of its own, and so is Markdown code.
    A call head that fails again as it failed before elsewhere (a model repeating a head
    the next repetition breaks off) is known to the call's glance (`recurring`), so the
    content scan reads its later repetitions as text. Text between end-of-turn markers is
    read with them in one repetition of the turn (`separated_runs`). The calls' `leading`
    call is tried where the content starts, after the reasoning block if any."""
    stops = tuple(stops)
    lead = (
        reasoning_block(reasoning, calls, stops, pre_opened=start == "reasoning", fenced=fenced)
        if reasoning is not None
        else success(None)
    )
    if reasoning is not None and reasoning.phrases[0] and start != "reasoning":
        opening, closing = reasoning.phrases
        thought = prose(ast.REASONING, (*closing, *stops), calls)
        lead = alt(
            seq(whitespace, markers(*opening), cut, thought, optional(markers(*closing))), lead
        )
    content_lead = tuple(content_lead)
    if content_lead:
        lead = seq(lead, optional(seq(whitespace, markers(*content_lead))))
    closes = tuple(close for _, close in reasoning.spellings) if reasoning is not None else ()
    dropped = tuple(dropped)
    strays = (*closes, *dropped)
    segments: list[Parser[Any]] = [tag(ast.CONTENT, code_span(stops))] if fenced else []
    # Strays before calls: a dropped marker that a call opener begins (Functionary's
    # `>>>all\n` content header, opener `>>>`) is dropped, never a call. (`build` refuses
    # the other way round, a dropped marker beginning a call opener.)
    if dropped and not (closes and start != "reasoning"):
        segments.append(stray_run(strays, calls, stops))
    elif dropped:
        segments.append(stray_run(dropped, calls, stops))
    call = recurring(calls.call) if calls is not None else None
    if call is not None:
        segments.append(call)
    end = tag(ast.END_OF_TURN, markers(*stops)) if stops else None
    if end is not None:
        segments.append(end)
    if closes and start != "reasoning":
        segments.append(tag(ast.REASONING_CLOSE, stray_run(closes, calls, stops)))
    elif strays and not dropped:
        segments.append(stray_run(strays, calls, stops))
    openers = calls.openers if calls else ()
    ends = (*stops, *strays, *openers, *FENCES * fenced)
    readable = (call, text_openers(openers, ends)) if call is not None else None
    text = until(*ends, nonempty=True, commit=True, text_markers=readable)
    scan = (
        tag(ast.CONTENT, text)
        if end is None
        else separated_runs(ast.CONTENT, text, (*segments,), end)
    )
    segments.append(scan)
    if calls is not None:
        segments.append(tag(ast.CONTENT, as_text(markers(*calls.openers))))
    turn = skip_many(alt(*segments))
    if call is not None:
        call.informs(scan, turn)  # their glances follow the call's
    if calls is not None and calls.leading is not None:
        lead = seq(lead, optional(calls.leading))
    return seq(lead, turn, end_of_input)


THINK = Reasoning("<think>", "</think>")


"""The `<think>` … `</think>` block most families use."""
