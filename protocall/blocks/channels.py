"""The turn as channels over special tokens (Kimi K3, Cohere, Gemma 4): a `Channel` and
the turn made of them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
    peek,
    recover,
    recurring,
    regex,
    seq,
    skip_many,
    success,
    tag,
    unfinished,
    until,
    whitespace,
)
from .calls import (
    Calls,
)

NODES = (ast.CONTENT, ast.REASONING)
"""The nodes a channel's text is tagged with."""


@dataclass(frozen=True)
class Channel:
    """A channel `open` … `close` named `name`: `reasoning`, whose body is reasoning text,
    or another, whose body is content. A `label` may follow the opener (Gemma 4's
    `<|channel>thought`): where it does, and no word character follows it, it belongs to
    the opener, not to the body. `written` is the opener as the model writes it (label
    included) where that differs: in the prompt that pre-opens it, the renderer and the
    marker summary (Gemma 4's `<|channel>thought\n`). `also` are other openers read as
    this one, never written (Muse's recipient-less `<|start|>assistant<|message|>` for its
    `<|start|>assistant to=self<|message|>`).

    In a turn with a `header`, an opener that begins with the header is a message header
    naming this channel (its recipient: Muse's `<|start|>assistant to=self<|message|>`):
    it is written without the header again before it, and where the generation prompt
    wrote the header the channel opens at the rest of it (`headed`)."""

    name: str
    open: str
    close: str
    label: str = ""
    written: str = ""
    also: tuple[str, ...] = ()

    @property
    def node(self) -> str:
        """The node its body is tagged with: `reasoning` or `content`."""
        return ast.REASONING if self.name == "reasoning" else ast.CONTENT

    @property
    def openers(self) -> tuple[str, ...]:
        """Every opener read: `open`, then `also`."""
        return (self.open, *self.also)

    def opener(self, openers: tuple[str, ...] | None = None) -> Parser[Any]:
        """The opener (one of `openers`, default: every one), a cut, then the label where
        it stands."""
        opened = markers(*(openers or self.openers)).then(cut)
        if not self.label:
            return opened
        return opened.then(optional(seq(literal(self.label), not_followed_by(regex(r"\w")))))

    def headed(self, header: str) -> tuple[str, ...]:
        """The rest of each opener that begins with `header` after it, without its leading
        whitespace (any, or none, is read there): where the channel opens once a generation
        prompt wrote the header."""
        rests = (o[len(header) :] for o in self.openers if header and o.startswith(header))
        return tuple(dict.fromkeys(rest.lstrip() for rest in rests))


def under_header(header: str, opener: str) -> str:
    """`opener` as written in a turn headed `header`: after the header, unless it begins
    with it (a message header naming its channel)."""
    return opener if opener.startswith(header) else header + opener


def channelled_turn(
    *,
    channels: Mapping[str, Channel],
    calls: Calls,
    stops: Iterable[str],
    tokens: Iterable[str],
    dropped: Iterable[str] = (),
    header: str = "",
    start: str | None = None,
) -> Parser[Any]:
    """A turn made of channels (Kimi K3): the channel named `start` pre-opened by the
    generation prompt, then channels, call regions and end-of-turn `stops` in any order;
    text outside every channel is content.

    Every marker begins with one of the special `tokens`: text runs up to a token and there
    the marker is parsed whole, so a marker of several tokens is held back until complete.
    A channel body ends at its close (consumed), at any channel's opener or close, at a
    genuine call head, at an end-of-turn marker, at a `dropped` marker or at end of input
    (the close is optional). A close with no open channel, and a `dropped` marker (markup
    that carries nothing when it stands alone, such as a repeated region close), is
    dropped (the reasoning channel's close, where the prompt opened no channel and no
    content channel closes with it too, as a `reasoning_close` node, as in
    `assistant_turn`); a token that begins no marker is
    text, scanned with the text around it (the value of a text node is its text). A run of
    end-of-turn markers is one `end_of_turn` node. At end of input a marker cut off after
    its token is a truncated error, never text.
    A call head that fails again as it failed elsewhere (a head the next repetition breaks
    off) is known to the head's glance (`recurring`, as in a prose turn), so the text scan
    reads its later repetitions as text. The calls' `leading` call is tried at the turn's
    start and right after each channel.
    A `header` (Inkling's `<|message_model|>`) may stand before any channel or call: it and
    its label, the text after it up to the next token (the name a call's header carries),
    are dropped (at end of input, a header and its label are dropped whole). Where no
    channel is open at the start, the generation prompt ended with the header: text there
    up to a channel opener or a call head is its label, dropped too (held back until the
    token after it tells), unless it is the rest of a channel's opener that begins with the
    header (`Channel.headed`: a message header naming its channel, Muse's ` to=self<|message|>`,
    any whitespace or none before it), which opens that channel. In such a turn a header
    whose label names no channel heads a call: where no call head follows the label, the
    header, label and what follows up to the next header or stop are a malformed region.
    """
    stops, tokens = tuple(stops), tuple(tokens)
    opens = tuple(opener for channel in channels.values() for opener in channel.openers)
    closes = (*(channel.close for channel in channels.values()), *dropped)
    headers = (header,) if header else ()
    head = recurring(calls.head)
    known = unfinished(alt(head, markers(*stops, *opens, *closes, *headers)))
    unknown = not_followed_by(known, "text")
    stray = unknown.then(as_text(markers(*tokens)))
    readable = tuple(t for t in tokens if t not in (*stops, *opens, *closes, *headers))
    run = until(*tokens, nonempty=True, commit=True, text_markers=(known, readable))
    piece = alt(run, stray)
    texts = {node: tag(node, many(piece, minimum=1).map("".join)) for node in NODES}

    leading = [optional(calls.leading)] if calls.leading is not None else []

    def body(channel: Channel) -> Parser[Any]:
        closed = optional(texts[channel.node]).skip(optional(literal(channel.close)))
        return seq(closed, *leading).map(lambda parts: parts[0]) if leading else closed

    opened = (c.opener().then(body(c)) for c in channels.values())
    end = tag(ast.END_OF_TURN, many(markers(*stops), minimum=1))
    shown = {c.close for c in channels.values() if c.node != ast.REASONING}  # content's too
    thinking = tuple(
        c.close for c in channels.values() if c.node == ast.REASONING and c.close not in shown
    )
    if thinking and start != "reasoning":  # see `assistant_turn`
        others = tuple(close for close in closes if close not in thinking)
        strays = [
            tag(ast.REASONING_CLOSE, markers(*thinking)),
            *([markers(*others)] if others else []),
        ]
    else:
        strays = [markers(*closes)]
    if header:
        labelled = literal(header).then(optional(until(*tokens, emit=False)))
        if any(c.headed(header) for c in channels.values()):  # the label names the message
            named_call = seq(labelled, cut, peek(calls.head))
            labelled = recover(named_call, until(header, *stops, emit=False))
        strays.append(labelled)
    structure = alt(calls.call, end, *opened, *strays)
    lead = body(channels[start]) if start is not None else seq(success(None), *leading)
    if header and start is None:  # the prompt wrote the first block's header: its label
        label = until(*tokens, emit=False, nonempty=True)
        lead = optional(seq(label, peek(alt(calls.head, markers(*opens))))).then(lead)
        named = [
            seq(whitespace, c.opener(c.headed(header))).then(body(c))
            for c in channels.values()
            if c.headed(header)
        ]
        lead = alt(*named, lead) if named else lead
    segment = alt(peek(markers(*tokens)).then(unfinished(structure)), texts[ast.CONTENT])
    turn = skip_many(segment)
    head.informs(known, unknown, stray, run, piece, *texts.values(), segment, turn)
    return seq(lead, turn, end_of_input)
