"""Boundary mutations of valid turns: what a model (or a tokenizer, or a length limit) does
to a turn that the format's happy path does not show.

Each strategy takes a valid `Case` (from `strategies.cases`) and gives a derived `Case`
whose `label` says what was done. Only `truncations` and `unclosed_reasoning` keep an exact
expectation; the others are checked against the invariants that hold for any input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from ..blocks.turns import ToolUse, Turn
from ..formats import Format
from .chunks import marker_cuts
from .draws import choose, integers
from .strategies import SEPARATORS, SIMPLE_NAMES, Case, markers_only_from_markup, neutral, render

WHITESPACE = (" ", "\n", "\n\n", "\t", " \n ")
REPLACEMENT_BYTES = st.one_of(st.integers(0x80, 0xFF), st.integers(0, 0x7F))
"""Bytes a corrupted stream gets: half of them invalid where they land in UTF-8."""

KINDS = (
    "marker in prose",
    "marker in argument",
    "call in unclosed reasoning",
    "whitespace at a marker",
    "undeclared tool",
    "corrupted byte",
    "cut inside a character",
    "whitespace anywhere",
)
"""The mutation kinds `mutations` draws from (those applicable to the case)."""


@st.composite
def truncations(draw: st.DrawFn, case: Case) -> Case:
    """`case` cut at a random point: a proper prefix of its text (possibly empty)."""
    return truncated(case, draw(integers(0, max(len(case.text) - 1, 0))))


def truncated(case: Case, cut: int) -> Case:
    """`case` cut after `cut` characters."""
    return case.derive(
        text=case.text[:cut],
        expected=None,
        truncates=case,
        label=f"{case.label}, truncated after {cut} of {len(case.text)} characters",
    )


@st.composite
def marker_truncations(
    draw: st.DrawFn, case: Case, markers: Sequence[str], max_cuts: int = 4
) -> list[Case]:
    """`case` cut at up to `max_cuts` boundaries of occurrences of `markers` in it: just
    before a marker, one character into it, or just after it (where a parser decides)."""
    cuts: set[int] = set()
    for start, end in marker_cuts(case.text, markers):
        cuts |= {start, start + 1, end}
    points = sorted(cut for cut in cuts if cut < len(case.text))
    if not points:
        return []
    chosen = draw(st.lists(integers(0, len(points) - 1), max_size=max_cuts, unique=True))
    return [truncated(case, points[i]) for i in sorted(chosen)]


def unclosed_reasoning(fmt: Format, case: Case) -> Case | None:
    """The turn's calls opened inside a reasoning block the generation prompt pre-opened and
    the model never closed (the Ling 3.0 bug): rendered from the `reasoning` start state
    with the reasoning close marker removed, content before the first call dropped. The
    calls must still parse as calls and the reasoning as reasoning (`expected` is exact).
    None when the format has no pre-openable reasoning or the turn no call."""
    if case.turn is None or not case.turn.calls:
        return None
    if "reasoning" not in fmt.channels or "reasoning" not in fmt.prompts:
        return None
    parts = case.turn.parts
    first_call = next(i for i, part in enumerate(parts) if isinstance(part, ToolUse))
    turn = Turn(case.turn.reasoning or "", parts[first_call:])
    close = fmt.channels["reasoning"][1]
    text, plain = (_without(render(fmt, t, "reasoning"), close) for t in (turn, neutral(turn)))
    if text is None or plain is None or not markers_only_from_markup(fmt, text, plain):
        return None
    return Case(
        text,
        case.tools,
        fmt.prompt_for("reasoning"),
        "reasoning",
        turn,
        turn.expected(),
        label="calls inside an unclosed pre-opened reasoning block",
    )


def _without(text: str, marker: str) -> str | None:
    at = text.find(marker)
    return None if at < 0 else text[:at] + text[at + len(marker) :]


def _string_arguments(turn: Turn) -> list[tuple[int, str]]:
    return [
        (index, key)
        for index, part in enumerate(turn.parts)
        if isinstance(part, ToolUse)
        for key, value in part.arguments.items()
        if isinstance(value, str)
    ]


def _insert(text: str, at: int, piece: str) -> str:
    return text[:at] + piece + text[at:]


@st.composite
def marker_in_prose(draw: st.DrawFn, fmt: Format, case: Case) -> Case:
    """A `fmt.reserved` marker written into the reasoning or a content piece."""
    assert case.turn is not None
    turn = case.turn
    marker = choose(draw, fmt.reserved)
    targets: list[int | None] = [
        i for i, part in enumerate(turn.parts) if isinstance(part, str)
    ] or [len(turn.parts)]
    if turn.reasoning is not None:
        targets.append(None)
    target = choose(draw, targets)
    if target is None:
        assert turn.reasoning is not None
        at = draw(integers(0, len(turn.reasoning)))
        turn = Turn(_insert(turn.reasoning, at, marker), turn.parts)
        where = "reasoning"
    else:
        old = turn.parts[target] if target < len(turn.parts) else ""
        assert isinstance(old, str)
        at = draw(integers(0, len(old)))
        parts = (*turn.parts[:target], _insert(old, at, marker), *turn.parts[target + 1 :])
        turn = Turn(turn.reasoning, parts)
        where = "content"
    return _rerendered(fmt, case, turn, f"marker {marker!r} written into the {where}")


@st.composite
def marker_in_argument(draw: st.DrawFn, fmt: Format, case: Case) -> Case:
    """A `fmt.reserved` marker written into a string argument value."""
    assert case.turn is not None
    index, key = choose(draw, _string_arguments(case.turn))
    call = case.turn.parts[index]
    assert isinstance(call, ToolUse)
    marker = choose(draw, fmt.reserved)
    value = call.arguments[key]
    changed = {**call.arguments, key: _insert(value, draw(integers(0, len(value))), marker)}
    parts = list(case.turn.parts)
    parts[index] = ToolUse(call.name, changed, call.id)
    turn = Turn(case.turn.reasoning, tuple(parts))
    label = f"marker {marker!r} written into argument {key!r} of `{call.name}`"
    return _rerendered(fmt, case, turn, label)


def _rerendered(fmt: Format, case: Case, turn: Turn, label: str, **changes: Any) -> Case:
    text = render(fmt, turn, case.start)
    return case.derive(text=text, turn=turn, expected=None, label=label, **changes)


@st.composite
def whitespace_at_marker(draw: st.DrawFn, fmt: Format, case: Case) -> Case:
    """A run of whitespace inserted before or after a marker (or at either end)."""
    points = {0, len(case.text)}
    for start, end in marker_cuts(case.text, fmt.reserved):
        points |= {start, end}
    return _spaced(draw, case, choose(draw, sorted(points)))


@st.composite
def whitespace_anywhere(draw: st.DrawFn, case: Case) -> Case:
    """A run of whitespace inserted at any offset: inside a name, a key, a string value, a
    number or a marker, between a call list's items."""
    return _spaced(draw, case, draw(integers(0, len(case.text))))


def _spaced(draw: st.DrawFn, case: Case, at: int) -> Case:
    space = choose(draw, WHITESPACE)
    return case.derive(
        text=_insert(case.text, at, space),
        expected=None,
        label=f"{space!r} inserted at offset {at}",
    )


@st.composite
def undeclared_tool(draw: st.DrawFn, fmt: Format, case: Case) -> Case:
    """One call renamed to a tool that is not declared: often a declared name extended
    (`get` → `get_x`) or cut short (`get_weather` → `get`), to tempt a prefix match."""
    assert case.turn is not None and case.tools is not None
    declared = sorted(case.tools)
    base = choose(draw, declared)
    how = choose(draw, ("extended", "shortened", "other"))
    if how == "extended":
        name = base + choose(draw, SEPARATORS) + draw(SIMPLE_NAMES)
    elif how == "shortened" and len(base) > 1:
        name = base[: draw(integers(1, len(base) - 1))]
    else:
        name = draw(SIMPLE_NAMES)
    assume(name not in case.tools)
    calls = [i for i, part in enumerate(case.turn.parts) if isinstance(part, ToolUse)]
    index = choose(draw, calls)
    call = case.turn.parts[index]
    assert isinstance(call, ToolUse)
    parts = list(case.turn.parts)
    parts[index] = ToolUse(name, call.arguments, call.id)
    turn = Turn(case.turn.reasoning, tuple(parts))
    label = f"call to undeclared tool `{name}`"
    return _rerendered(fmt, case, turn, label, undeclared=name)


@st.composite
def corrupted_byte(draw: st.DrawFn, case: Case) -> Case:
    """One byte of the UTF-8 stream replaced (often by a byte invalid in UTF-8 there)."""
    data = bytearray(case.text.encode())
    at = draw(integers(0, len(data) - 1))
    data[at] = draw(REPLACEMENT_BYTES)
    raw = bytes(data)
    return case.derive(
        text=raw.decode("utf-8", "replace"),
        data=raw,
        expected=None,
        label=f"byte {at} replaced by 0x{data[at]:02x}",
    )


@st.composite
def cut_inside_character(draw: st.DrawFn, case: Case) -> Case:
    """The UTF-8 stream cut short inside a multi-byte character (decoded as U+FFFD)."""
    data = case.text.encode()
    inside = [i for i, byte in enumerate(data) if 0x80 <= byte < 0xC0]
    raw = data[: choose(draw, inside)]
    return case.derive(
        text=raw.decode("utf-8", "replace"),
        data=raw,
        expected=None,
        label=f"bytes cut after {len(raw)} of {len(data)}, inside a character",
    )


def applicable(fmt: Format, case: Case) -> list[str]:
    """The mutation kinds that apply to `case`."""
    turn = case.turn
    kinds = ["whitespace at a marker", "whitespace anywhere"]
    if case.text:
        kinds.append("corrupted byte")
    if any(ord(char) > 0x7F for char in case.text):
        kinds.append("cut inside a character")
    if turn is None:
        return kinds
    if fmt.reserved:
        kinds.append("marker in prose")
        if _string_arguments(turn):
            kinds.append("marker in argument")
    if turn.calls and case.tools:
        kinds.append("undeclared tool")
    if unclosed_reasoning(fmt, case) is not None:
        kinds.append("call in unclosed reasoning")
    return sorted(kinds, key=KINDS.index)


@st.composite
def mutations(draw: st.DrawFn, fmt: Format, case: Case) -> Case:
    """One applicable mutation of `case` (see `KINDS`)."""
    kind = choose(draw, applicable(fmt, case))
    if kind == "call in unclosed reasoning":
        mutated = unclosed_reasoning(fmt, case)
        assert mutated is not None
        return mutated
    if kind == "corrupted byte":
        return draw(corrupted_byte(case))
    if kind == "cut inside a character":
        return draw(cut_inside_character(case))
    if kind == "whitespace anywhere":
        return draw(whitespace_anywhere(case))
    strategy = {
        "marker in prose": marker_in_prose,
        "marker in argument": marker_in_argument,
        "whitespace at a marker": whitespace_at_marker,
        "undeclared tool": undeclared_tool,
    }[kind]
    return draw(strategy(fmt, case))


__all__ = [
    "KINDS",
    "applicable",
    "corrupted_byte",
    "cut_inside_character",
    "marker_in_argument",
    "marker_in_prose",
    "marker_truncations",
    "mutations",
    "truncated",
    "truncations",
    "unclosed_reasoning",
    "undeclared_tool",
    "whitespace_anywhere",
    "whitespace_at_marker",
]
