"""The `Format` factories of the two data-driven turn shapes: a prose turn (`turn_format`)
and a channelled one (`channel_format`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from .. import ast
from ..blocks.calls import (
    Calls,
)
from ..blocks.channels import Channel, channelled_turn
from ..blocks.prose import (
    FENCES,
    THINK,
    Reasoning,
    assistant_turn,
)
from ..blocks.render import (
    render_channels,
    render_turn,
)
from ..blocks.turns import ToolUse, Turn
from ..combinators import (
    Parser,
)
from ..tools import Tools
from .format import Format


def turn_format(
    name: str,
    calls: Callable[[Tools | None], Calls],
    *,
    stops: tuple[str, ...],
    render_call: Callable[[ToolUse, int], str],
    prompts: Mapping[str | None, str],
    summary: str,
    call_marker: str,
    reserved: tuple[str, ...] = (),
    reasoning: Reasoning | None = THINK,
    default_start: str | None = None,
    between_calls: str = "",
    section: tuple[str, str] | None = None,
    fenced: bool = False,
    written: Reasoning | None = None,
    call_stop: str | None = None,
    dropped: tuple[str, ...] = (),
    content_lead: tuple[str, ...] = (),
) -> Format:
    """The `Format` of a family whose turn is a reasoning block, then content and calls,
    then one of `stops` (`assistant_turn`; `calls(tools)` gives the calls), rendered by
    `render_turn` with `render_call(call, its index in the turn)`, `between_calls`,
    `section` and the first stop (`call_stop` after a turn with calls, where given), the
    reasoning block laid out as `written` where given. Its
    reasoning channel and marker summary follow from `reasoning`; its reserved markers are
    the reasoning block's, the section's, `reserved` and the stops (and a backtick when
    `fenced`: Markdown code in prose is text, see `assistant_turn`). `dropped` markers are
    strays, dropped where they stand in the content; `content_lead` texts where they begin
    it only."""

    def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
        return assistant_turn(
            calls=calls(tools),
            stops=stops,
            reasoning=reasoning,
            start=start,
            fenced=fenced,
            dropped=dropped,
            content_lead=content_lead,
        )

    def render(turn: Turn, start: str | None) -> str:
        index = itertools.count()
        stop = call_stop if call_stop is not None and turn.calls else next(iter(stops), "")
        return render_turn(
            turn,
            start,
            reasoning=written or reasoning,
            stop=stop,
            section=section,
            call=lambda use: render_call(use, next(index)),
            between_calls=between_calls,
        )

    channels = {} if reasoning is None else {"reasoning": (reasoning.open, reasoning.close)}
    shown = {name: "…".join(block) for name, block in channels.items()} | {"call": call_marker}
    spelled = sum(reasoning.spellings, ()) if reasoning is not None else ()
    marked = _reserved(*spelled, *(section or ()), *reserved, *stops, *FENCES * fenced)
    return Format(
        name,
        grammar,
        render,
        reserved=marked,
        channels=channels,
        default_start=default_start,
        prompts=prompts,
        summary=summary,
        markers=shown,
    )


def _reserved(*markers: str) -> tuple[str, ...]:
    """Reserved markers without surrounding whitespace, duplicates or empty ones, in order."""
    return tuple(dict.fromkeys(m.strip() for m in markers if m.strip()))


def _opened(prompt: str, header: str, opener: str) -> str:
    """The generation prompt that opens a channel: `prompt`, then `opener`, less the
    `header` where the prompt ends with it and the opener begins with it."""
    if header and prompt.endswith(header) and opener.startswith(header):
        return prompt + opener[len(header) :]
    return prompt + opener


def channel_format(
    name: str,
    calls: Callable[[Tools | None], Calls],
    *,
    channels: Mapping[str, Channel],
    stops: tuple[str, ...],
    tokens: tuple[str, ...],
    prompt: str,
    summary: str,
    call_marker: str,
    render: Callable[[Turn, str | None], str] | None = None,
    render_call: Callable[[ToolUse, int], str] | None = None,
    section: tuple[str, str] = ("", ""),
    dropped: tuple[str, ...] = (),
    header: str = "",
    label: str = "{name}",
    starts: tuple[str, ...] | None = None,
    reserved: tuple[str, ...] = (),
    default_start: str | None = None,
) -> Format:
    """The `Format` of a family whose turn is made of channels: `channelled_turn` over
    `channels`, `calls(tools)`, `stops`, `tokens`, `dropped` and `header`. It renders with
    `render`, or else `render_channels` with `render_call`, `section`, the stops joined and
    `label`. The
    channels named in `starts` (default: all) are the start states a generation prompt can
    leave open, the prompt for each being `prompt` plus its opener (`prompt` alone opens
    none); the reserved markers are every channel's openers (and what of them opens it
    after a prompt that wrote the `header`, `Channel.headed`) and close, the section's,
    `reserved` and the stops; the marker summary shows the reasoning channel and
    `call_marker`."""

    def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
        return channelled_turn(
            channels=channels,
            calls=calls(tools),
            stops=stops,
            tokens=tokens,
            dropped=dropped,
            header=header,
            start=start,
        )

    def rendered(turn: Turn, start: str | None) -> str:
        assert render_call is not None
        return render_channels(
            turn,
            start,
            channels=channels,
            call=render_call,
            section=section,
            stop="".join(stops),
            header=header,
            label=label,
        )

    opened = {key: channels[key] for key in (channels if starts is None else starts)}
    thinking = next((c for c in channels.values() if c.node == ast.REASONING), None)
    opener = (thinking.written or thinking.open).replace("\n", "\\n") if thinking else ""
    shown = {"reasoning": f"{opener}…{thinking.close}"} if thinking else {}
    bounds = [marker for c in channels.values() for marker in (*c.openers, c.close)]
    bounds += [rest for c in channels.values() for rest in c.headed(header)]  # after a prompt
    prompts = {key: _opened(prompt, header, c.written or c.open) for key, c in opened.items()}
    return Format(
        name,
        grammar,
        render or rendered,
        default_start=default_start,
        summary=summary,
        reserved=_reserved(header, *bounds, *section, *reserved, *stops),
        channels={key: (channel.open, channel.close) for key, channel in opened.items()},
        prompts={None: prompt} | prompts,
        markers=shown | {"call": call_marker},
    )
