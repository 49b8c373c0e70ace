"""The spellings of a spec's markers made explicit before anything is derived: `spelled`, its
tags (`Spec.tags`) and its tokenizer's suffix (`Spec.token_suffix`) spelled out, and
`respelled`, its section's other spellings (`Spec.respelled`) listed."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, is_dataclass, replace
from typing import Any

from ..blocks.channels import Channel
from ..combinators import UsageError
from .codecs import Attribute, Plain
from .parts import Channels, Spec, Think

TAG = re.compile(r"<(/?)([A-Za-z][^<>|]*)>")
"""A tag as a spec writes it: `<t …>` or `</t>`, a name first (so never a `<|token|>`)."""

KEPT = frozenset({"name", "summary", "pattern", "id_pattern", "label"})
"""The texts that are no markers: names, prose, regexes."""

TOKEN = re.compile(r"(</?[|｜]?[^\s<>|｜]+?)([|｜]?>)")
"""A token written as a tag without attributes (`<tool_call>`, `</arg_key>`, `<|im_end|>`,
`<｜hy_eos｜>`): its text up to the closing bracket, and that bracket."""


def spelled(spec: Spec) -> Spec:
    """`spec` with no `tags` and no `token_suffix`, what they imply made explicit: see
    `suffixed`, and for tags (see `Tags`) every tag in its texts (all but those `KEPT`)
    spelled with the tags' tokens, a channel's empty close its opening tag's close, a
    `Channels` turn's tokens completed and a `Plain` name quoted in a tag an `Attribute`;
    `spec` itself where it has neither."""
    return suffixed(_tagged(spec))


def suffixed(spec: Spec) -> Spec:
    """`spec` with no `token_suffix`, every token written as a tag without attributes in
    its texts (all but those `KEPT`) spelled with the suffix right before its closing
    bracket, as a tokenizer that suffixes its special tokens writes them (`:opensource`:
    `<tool_call:opensource>`, `</arg_key:opensource>`, `<｜hy_eos:opensource｜>`); `spec`
    itself where it has none."""
    suffix = spec.token_suffix
    if not suffix:
        return spec

    def spell(text: str) -> str:
        return TOKEN.sub(lambda m: m[1] + suffix + m[2], text)

    done: Spec = _rewritten(replace(spec, token_suffix=""), "", spell)
    return done


def _tagged(spec: Spec) -> Spec:
    tags = spec.tags
    if tags is None:
        return spec

    def spell(text: str) -> str:
        return TAG.sub(lambda m: (tags.close if m[1] else tags.open) + m[2] + tags.sep, text)

    turn, call = spec.turn, spec.call
    if isinstance(turn, Channels):
        channels = tuple(_closed(channel) for channel in turn.channels)
        stops = tuple(map(spell, spec.stops))
        tokens = (tags.open, tags.close, *turn.tokens)
        tokens += tuple(stop for stop in stops if not stop.startswith(tokens))
        turn = replace(turn, channels=channels, tokens=tuple(dict.fromkeys(tokens)))
    if call.name == Plain() and any('="{name}"' in m[0] for m in TAG.finditer(call.template)):
        call = replace(call, name=Attribute())
    done: Spec = _rewritten(replace(spec, tags=None, turn=turn, call=call), "", spell)
    return done


def _closed(channel: Channel) -> Channel:
    tag = TAG.fullmatch(channel.open)
    if channel.close or tag is None:
        return channel
    return replace(channel, close=f"</{tag[2].split()[0]}>")


def _rewritten(value: Any, name: str, spell: Callable[[str], str]) -> Any:
    """`value` (a text, a tuple or a spec part, named `name`) with `spell` applied to
    every text in it but those `KEPT`."""
    if isinstance(value, str):
        return value if name in KEPT else spell(value)
    if isinstance(value, tuple):
        return tuple(_rewritten(item, name, spell) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        parts = fields(value)
        return replace(
            value, **{f.name: _rewritten(getattr(value, f.name), f.name, spell) for f in parts}
        )
    return value


def respelled(spec: Spec) -> Spec:
    """`spec` with its section's begins and ends, and its reasoning's `ends_at`, each followed
    by its `respelled` spellings (each (token, spelling) pair swapped in where the marker
    holds the token), where its call is not `loose` (a loose call's `templates.Template`
    respells every marker itself). A token no section marker holds, or one in such a call's
    template, is a `UsageError`."""
    section = spec.section
    if spec.call.loose or not spec.respelled:
        return spec
    markers = (*section.begins, *section.ends) if section else ()
    for token, _ in spec.respelled:
        if token in spec.call.template or not any(token in m for m in markers):
            raise UsageError(
                f"spec {spec.name!r}: a respelled token in its section's markers and not in "
                f"the call's template (a `loose` call respells its own), not {token!r}"
            )
    assert section is not None  # a token in no marker was refused

    def spellings(marker: str) -> tuple[str, ...]:
        return (marker, *(marker.replace(t, s) for t, s in spec.respelled if t in marker))

    begins = tuple(dict.fromkeys(m for begin in section.begins for m in spellings(begin)))
    ends = tuple(dict.fromkeys(m for end in section.ends for m in spellings(end)))
    spec = replace(spec, section=replace(section, begins=begins, ends=ends))
    if isinstance(spec.turn, Think) and spec.turn.ends_at:
        ends_at = tuple(dict.fromkeys(m for end in spec.turn.ends_at for m in spellings(end)))
        spec = replace(spec, turn=replace(spec.turn, ends_at=ends_at))
    return spec
