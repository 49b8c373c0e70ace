"""Degenerate outputs: what a model stuck in a loop emits, generated for any format.

`degenerate_inputs(fmt)` maps a label to a function `size -> text` of about `size`
characters: each structural character of the format's markers repeated, each marker and
marker prefix repeated, nested openers, whitespace runs (alone, after each marker and
inside a call's head), and the format's call opener followed by endless argument text or
an endless tool name.
The format's cost on each must be linear in `size` (DESIGN.md §4), whatever the chunking;
`benchmarks/bench_adversarial.py` times them, and the test suite counts the work.
"""

from __future__ import annotations

from collections.abc import Callable

import protocall

from .. import formats
from ..blocks.turns import ToolUse, Turn
from ..formats import Format

NAME = "get_weather"
"""The declared tool the call openers name (`TOOLS` declares it)."""

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": NAME,
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        },
    }
]

_VALUE = "QQVALUEQQ"
_STRUCTURAL = "{}[]()<>\"'\\:,=|/;"
"""Characters that open, close or separate something in some format."""

Generator = Callable[[int], str]


def parse(name: str, text: str, delta: int) -> None:
    """`text` parsed by format `name` with `TOOLS` declared: at once (`delta` 0, as
    `protocall.parse` does) or fed to a session `delta` characters at a time, then finished
    (how the benchmarks and the work-count tests run a degenerate output)."""
    if delta == 0:
        protocall.parse(text, name, TOOLS)
        return
    session = formats.get(name).parser(TOOLS)
    for start in range(0, len(text), delta):
        session.feed(text[start : start + delta])
    session.finish()


def call_opener(fmt: Format) -> tuple[str, str]:
    """The format's rendered call up to its argument value, and up to its tool name."""
    turn = Turn(parts=(ToolUse(NAME, {"location": _VALUE}),))
    text = fmt.render(turn, fmt.default_start)
    return text[: text.index(_VALUE)], text[: text.index(NAME)]


def repeated(unit: str) -> Generator:
    """`unit` over and over, about `size` characters in all."""
    return lambda size: unit * max(size // len(unit), 1)


def after(head: str, unit: str) -> Generator:
    """`head`, then `unit` repeated for the remaining characters."""
    return lambda size: head + unit * max((size - len(head)) // len(unit), 1)


def degenerate_inputs(fmt: Format) -> dict[str, Generator]:
    """Label -> generator of about `size` characters of one degenerate output of `fmt`."""
    opener, name_head = call_opener(fmt)
    markers = [m for m in dict.fromkeys((*fmt.reserved, opener.strip())) if m]
    cases: dict[str, Generator] = {}
    characters = {c for m in markers for c in m if c in _STRUCTURAL} | set("{[(")
    for character in sorted(characters):
        cases[f"{character!r} repeated"] = repeated(character)
    for marker in markers:
        cases[f"{marker!r} repeated"] = repeated(marker)
        cases[f"{marker!r}, ' ' run"] = after(marker, " ")
        if len(marker) > 2:
            cases[f"{marker[:-1]!r} repeated"] = repeated(marker[:-1])
            cases[f"{marker[: len(marker) // 2]!r} repeated"] = repeated(marker[: len(marker) // 2])
    cases["'{\"a\":' nested"] = repeated('{"a":')
    cases["'[{' nested"] = repeated("[{")
    cases["'\\n' run"] = repeated("\n")
    cases["' ' run"] = repeated(" ")
    cases[f"{markers[0]!r}, '\\n' run, marker"] = lambda size: (
        markers[0] + "\n" * max(size - 2 * len(markers[0]), 1) + markers[0]
    )
    cases["call head, ' ' run"] = after(name_head, " ")
    cases["call head, endless name"] = after(name_head, "a")
    cases["call opener, endless argument"] = after(opener, "x")
    cases["call opener, nested openers"] = after(opener, "[")
    cases["call opener, backslash run"] = after(opener, "\\")
    json_arguments = opener.rfind('{"location": "')
    if json_arguments >= 0:  # a model may write JSON arguments as one string
        cases["call head, arguments as an endless string"] = after(
            opener[:json_arguments] + '"', "x"
        )
    return cases
