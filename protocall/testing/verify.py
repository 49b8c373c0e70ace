"""Hand-written turns, parsed every way a stream may arrive, with every property of the kit."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from .. import ast, formats, parse
from ..formats import Format
from ..message import Message
from ..tools import Tool, Tools, normalize_tools
from .chunks import chunkings as marker_chunkings
from .chunks import split_at
from .properties import PROPERTIES, Trial
from .run import stream
from .strategies import Case


def verify(
    fmt: Format,
    text: str,
    prompt: str | None = None,
    *,
    tools: Iterable[Mapping[str, Any] | Tool] | Tools | None = None,
    expected: dict[str, Any] | None = None,
    chunkings: Iterable[Sequence[str]] = (),
    seeds: Sequence[int] = (0, 1),
) -> Message:
    """Parse `text` every way a stream may arrive and assert that each way gives the same
    result: in one chunk (the reference), per character, in 3-character chunks, per
    character with each complete call whole in one chunk, with each complete call whole
    and the text between in one chunk, in one random chunking (pieces of 1 to 7
    characters) per seed of `seeds`, and in each of `chunkings`. Every property of the kit
    must hold for each way (the same merged events, message and tree as one chunk, deltas
    adding up, final names, …; with `expected`, parsing back to it without errors), and a
    registered format's one-shot `protocall.parse` must give the same message. Returns the
    one-chunk message."""
    declared = normalize_tools(tools)
    case = Case(text, declared, prompt, fmt.start_state(prompt), expected=expected)
    whole = stream(fmt, [text], declared, prompt)
    calls = [(n.start, n.end) for n in whole.tree.find_all(ast.TOOL_CALL) if n.end is not None]
    inside = {i for start, end in calls for i in range(start + 1, end)}
    ways = [
        list(text),
        split_at(text, range(3, len(text), 3)),
        split_at(text, (i for i in range(1, len(text)) if i not in inside)),
        split_at(text, (at for span in calls for at in span)),
        *(random_split(text, seed) for seed in seeds),
        *chunkings,
    ]
    for chunks in ways:
        trial = Trial(fmt, case, list(chunks), whole, stream(fmt, chunks, declared, prompt))
        for prop in PROPERTIES:
            problem = prop.check(trial)
            assert problem is None, f"{prop.name}: expected {problem.expected}, got {problem.got}"
    if fmt.name in formats.names() and formats.get(fmt.name) is fmt:
        one_shot = parse(text, fmt.name, declared, prompt, seed=0)
        assert one_shot == whole.message, f"protocall.parse gave {one_shot}"
    return whole.message


def random_split(text: str, seed: int, longest: int = 7) -> list[str]:
    """`text` in pieces of 1 to `longest` characters, their lengths drawn from `seed`."""
    draw, cuts, at = random.Random(seed), [], 0
    while at < len(text):
        at += draw.randint(1, longest)
        cuts.append(at)
    return split_at(text, cuts)


def example_tests(
    fmt: Format,
    examples: Sequence[tuple[str, str | None, dict[str, Any]]],
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    max_examples: int = 10,
) -> Callable[..., None]:
    """A pytest test over hand-written `(text, prompt, expected)` examples: each is
    `verify`-ed, and again under `max_examples` random chunkings that cut at and inside
    markers (Hypothesis). Bind it to a `test_…` name in a test module."""
    import pytest

    @pytest.mark.parametrize(("text", "prompt", "expected"), examples)
    @settings(max_examples=max_examples, deadline=None)
    @given(data=st.data())
    def test(text: str, prompt: str | None, expected: dict[str, Any], data: st.DataObject) -> None:
        chunks = data.draw(marker_chunkings(text, fmt.reserved), label="chunks")
        verify(fmt, text, prompt, tools=tools, expected=expected, chunkings=[chunks])

    return cast(Callable[..., None], test)  # pytest's decorators are untyped
