"""`build`: the `Format` a spec describes, from its turn shape and its calls' `Envelope`."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .. import ast
from ..blocks.channels import under_header
from ..blocks.json_turn import json_turn, render_json_turn
from ..blocks.prose import Reasoning
from ..blocks.render import call_header, render_turn
from ..blocks.turns import Turn
from ..combinators import Parser, UsageError
from ..spec.codecs import NameAndArguments
from ..spec.parts import (
    Channels,
    JsonTurn,
    Messages,
    Spec,
    Think,
)
from ..spec.tags import respelled, spelled
from ..tools import Tools
from .envelope import Envelope
from .families import channel_format, turn_format
from .format import Format
from .messages import Headed


def build(stated: Spec) -> Format:
    """The `Format` that `stated` describes (its tags and its section's other spellings
    spelled out first, `tags.spelled` and `tags.respelled`); its `spec` is `stated`."""
    spec = respelled(spelled(stated))
    _check_markers(spec)
    envelope = Envelope(spec)
    _check_dropped(spec, envelope)
    reserved = (*envelope.section_markers, *envelope.markers, *envelope.dropped)
    reserved += (spec.placeholder,) if spec.placeholder else ()
    section = envelope.written_section
    turn = spec.turn
    if spec.content_lead and isinstance(turn, Messages | Channels | JsonTurn):
        raise UsageError(
            f"spec {spec.name!r}: `content_lead` is read in a `Think` turn or one without "
            "reasoning (`turn=None`), not in channels, messages or a JSON turn"
        )
    if isinstance(turn, Messages):
        fmt = _messages(spec, turn, envelope)
    elif isinstance(turn, JsonTurn):
        fmt = _json_turn(spec, turn, envelope)
    elif isinstance(turn, Channels):
        _check_channels(spec.name, turn)
        channels = {c.name: c for c in turn.channels}
        fmt = channel_format(
            spec.name,
            envelope.calls,
            channels=channels,
            stops=spec.stops,
            tokens=turn.tokens,
            prompt=spec.prompt,
            summary=spec.summary,
            call_marker=envelope.shown,
            render_call=envelope.render,
            section=section or ("", ""),
            dropped=envelope.dropped,
            header=turn.header,
            label=turn.label,
            reserved=reserved,
            default_start=spec.default_start,
            starts=turn.starts,
            render=_interleaved(spec, turn, envelope) if turn.interleaved else None,
        )
    else:
        reasoning = None
        if turn is not None:
            reasoning = Reasoning(
                turn.open,
                turn.close,
                turn.ends_at_call,
                turn.explicit,
                turn.also,
                turn.phrases,
                turn.ends_at,
            )
        prompts: dict[str | None, str] = {None: spec.prompt}
        written = None
        if turn is not None:
            prompts = {None: spec.prompt + turn.off}
            if turn.opened_by != "":
                prompt = spec.prompt if turn.prompt is None else turn.prompt
                prompts["reasoning"] = prompt + (turn.opened_by or turn.open)
            written = Reasoning(*turn.written) if turn.written else None
        fmt = turn_format(
            spec.name,
            envelope.calls,
            stops=spec.stops,
            render_call=envelope.render,
            prompts=prompts,
            summary=spec.summary,
            call_marker=envelope.shown,
            reserved=(*(sum(turn.phrases, ()) if turn else ()), *reserved),
            reasoning=reasoning,
            default_start=spec.default_start,
            between_calls=spec.call.between,
            section=section,
            fenced=spec.fenced,
            written=written,
            call_stop=spec.call_stop,
            dropped=envelope.dropped,
            content_lead=spec.content_lead,
        )
    reserved = tuple(m for m in fmt.reserved if m not in envelope.brackets)  # `[`, `]`: JSON
    shown = dict(fmt.markers)
    if isinstance(turn, Think) and turn.phrases[0]:
        shown["reasoning"] += f" or {turn.phrases[0][0]} …"
    return replace(
        fmt,
        spec=stated,
        malformed_as_content=spec.malformed_as_content,
        reserved=reserved,
        markers=shown,
        primed=spec.primed,
    )


def _messages(spec: Spec, turn: Messages, envelope: Envelope) -> Format:
    """The `Format` of a turn of headed messages (`compile.messages`), its calls written
    from the spec's template."""
    headed = Headed(spec, turn)

    def render(parsed: Turn, start: str | None) -> str:
        return headed.render(parsed, start, envelope.render)

    states = (ast.REASONING, ast.CONTENT)
    channels = {state: (turn.opener(turn.opened(state)), turn.end) for state in states}
    return Format(
        spec.name,
        headed.grammar,
        render,
        reserved=turn.tokens(spec.stops),
        channels=channels,
        default_start=spec.default_start,
        prompts={None: spec.prompt} | {state: spec.prompt + c[0] for state, c in channels.items()},
        summary=spec.summary,
        markers={"reasoning": "…".join(channels["reasoning"]), "call": envelope.shown},
    )


def _json_turn(spec: Spec, turn: JsonTurn, envelope: Envelope) -> Format:
    """The `Format` of a turn that is one JSON object (`blocks.json_turn`): its calls the
    spec's `NameAndArguments` objects, written with its first stop after the object."""
    codec = spec.call.arguments
    if not isinstance(codec, NameAndArguments) or spec.section is not None:
        raise UsageError(
            f"spec {spec.name!r}: a JSON turn's calls are `{{call}}` objects of "
            "`NameAndArguments` in the turn's own members, with no `section`"
        )
    unread = [name for name in ("dropped", "placeholder", "fenced") if getattr(spec, name)]
    if unread:
        raise UsageError(
            f"spec {spec.name!r}: a JSON turn has no prose around calls to read "
            f"{', '.join(f'`{name}`' for name in unread)} in: leave it out"
        )
    element = codec.element()

    def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
        return json_turn(
            element, content=turn.content, calls=turn.calls, single=turn.single, stops=spec.stops
        )

    def render(parsed: Turn, start: str | None) -> str:
        stop = next(iter(spec.stops), "")
        return render_json_turn(
            parsed, envelope.render, content=turn.content, calls=turn.calls, stop=stop
        )

    return Format(
        spec.name,
        grammar,
        render,
        reserved=spec.stops,
        prompts={None: spec.prompt},
        summary=spec.summary,
        markers={"call": f'{{"{turn.calls}": [{envelope.shown}, …]}}'},
    )


def _interleaved(
    spec: Spec, turn: Channels, envelope: Envelope
) -> Callable[[Turn, str | None], str]:
    """The renderer of an `interleaved` channel turn: the reasoning channel (its opener
    omitted when pre-opened), each content part in the first content channel and each run
    of calls in the section, calls numbered from 0, then the first stop (`call_stop`
    after a turn with calls, where given); the turn's `header` before every channel (that
    does not begin with it) and call, a call's with its `label`."""
    thinking = next((c for c in turn.channels if c.name == "reasoning"), None)
    response = next((c for c in turn.channels if c.name != "reasoning"), None)
    head = turn.header
    block = None
    if thinking:
        block = Reasoning(under_header(head, thinking.written or thinking.open), thinking.close)

    def render(parsed: Turn, start: str | None) -> str:
        parts = tuple(
            f"{under_header(head, response.open)}{part}{response.close}"
            if response and isinstance(part, str)
            else part
            for part in parsed.parts
        )
        index = itertools.count()
        stop = next(iter(spec.stops), "")  # a spec may name no end-of-turn marker
        stop = spec.call_stop if spec.call_stop is not None and parsed.calls else stop
        return render_turn(
            replace(parsed, parts=parts),
            start,
            reasoning=block,
            call=lambda use: call_header(head, use, turn.label) + envelope.render(use, next(index)),
            between_calls=spec.call.between,
            section=envelope.written_section,
            stop=stop,
        )

    return render


def _check_channels(name: str, turn: Channels) -> None:
    """A channel turn (its tags spelled out) states its tokens and every channel's close."""
    if not turn.tokens:
        raise UsageError(
            f"spec {name!r}: a Channels turn needs `tokens`, the texts its markers begin "
            "with (or the spec's `tags`, which supply them)"
        )
    for channel in turn.channels:
        if not channel.close:
            raise UsageError(
                f"spec {name!r}: channel {channel.name!r} has no close (only a channel "
                "opened by a tag of the spec's `tags` may leave it to be derived)"
            )


def _check_markers(spec: Spec) -> None:
    """Every marker a spec reads is text: an empty one (or one of whitespace only) could
    never be told from prose, so it is a `UsageError` naming the field and what to write."""
    fields: list[tuple[str, tuple[str, ...], str]] = [
        ("stops", spec.stops, "every stop is the model's end-of-turn text"),
        ("dropped", spec.dropped, "leave the marker out"),
    ]
    if spec.section is not None:
        fields += [
            ("Section.begins", spec.section.begins, "calls with no begin have no `section`"),
            ("Section.ends", spec.section.ends, "a section with no end has `ends=()`"),
        ]
    if isinstance(spec.turn, Think):
        pairs = ((spec.turn.open, spec.turn.close), *spec.turn.also)
        without = "a turn with no reasoning markers is `turn=None`"
        fields += [("Think.open", tuple(o for o, _ in pairs), without)]
        fields += [("Think.close", tuple(c for _, c in pairs), without)]
    for name, texts, fix in fields:
        if any(not text.strip() for text in texts):
            raise UsageError(f"spec {spec.name!r}: {name} has an empty marker ({texts!r}): {fix}")


def _check_dropped(spec: Spec, envelope: Envelope) -> None:
    """A `dropped` marker that a call opener or a section begin starts with is read as the
    start of a call first, so standing alone at the end of the output it is a truncated
    call, never dropped: a `UsageError` saying how to write it instead."""
    openers = (envelope.opener, *(spec.section.begins if spec.section else ()))
    for marker in spec.dropped:
        for opener in openers:
            if opener.strip().startswith(marker):
                raise UsageError(
                    f"spec {spec.name!r}: the dropped marker {marker!r} begins the call "
                    f"opener {opener.strip()!r}, which is read first (alone at the end of the "
                    f"output the marker is a truncated call): begin the template after "
                    f"{marker!r} (dropped where it stands, it still lets the call follow), or "
                    f"leave it out of `dropped`"
                )
