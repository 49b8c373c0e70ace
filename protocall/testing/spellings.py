"""Every spelling a format reads, for the kit to write: a format's renderer writes the first
spelling of each marker, so the other spellings a spec accepts (a section's other begins
and ends, the other stops, the reasoning block's `also` pairs, a channel's `also` openers,
the `respelled` tokens of a loose call) are swapped into rendered turns (`respellings`) and
must read the same."""

from __future__ import annotations

from ..compile.format import Format
from ..spec import Channels, Messages, Think
from ..spec.tags import respelled, spelled

Respelling = tuple[tuple[str, str], ...]
"""(as written, another spelling) replacements made together in a rendered turn."""


def respellings(fmt: Format) -> tuple[Respelling, ...]:
    """The other spellings of `fmt`'s markers, each as the replacements that write it in a
    turn its renderer wrote (none for a format built without a spec)."""
    if fmt.spec is None:
        return ()
    spec = respelled(spelled(fmt.spec))
    found: list[Respelling] = []
    section = spec.section
    if section is not None and not section.written_bare:
        found += _others(section.begins) + _others(section.ends)
    if not isinstance(spec.turn, Messages):  # a hook's turn may tell its stops apart
        found += _others(spec.stops)
    if isinstance(spec.turn, Channels):
        found += [((c.open, other),) for c in spec.turn.channels for other in c.also]
    if isinstance(spec.turn, Think) and not spec.turn.written:
        pair = (spec.turn.open, spec.turn.close)
        found += [tuple(zip(pair, other, strict=True)) for other in spec.turn.also]
    if spec.call.loose:  # the token in each marker holding it, not in prose around them
        for token, spelling in spec.respelled:
            held = [marker for marker in fmt.reserved if token in marker]
            found.append(tuple((marker, marker.replace(token, spelling)) for marker in held))
    return tuple(dict.fromkeys(found))


def _others(spellings: tuple[str, ...]) -> list[Respelling]:
    """Each spelling after the first, replacing the first (their whitespace aside: the
    renderer writes the first's, and whitespace there reads as any)."""
    first = spellings[0].strip() if spellings else ""
    return [((first, other.strip()),) for other in spellings[1:] if other.strip() != first]


def applying(text: str, found: tuple[Respelling, ...]) -> list[Respelling]:
    """The respellings of `found` whose every written marker is in `text` (a reasoning block
    the prompt opened keeps the spelling of its close: only a pair written whole is
    respelled)."""
    return [respelling for respelling in found if all(w in text for w, _ in respelling)]


def respell(text: str, respelling: Respelling) -> str:
    """`text` with each replacement of `respelling` made everywhere (the kit's turns hold
    markers only where their markup is, so only markup is respelled)."""
    for written, other in respelling:
        text = text.replace(written, other)
    return text
