"""Hand-written turns, checked under several chunkings with every property of the kit."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from .. import ast
from ..formats import Format
from ..message import Message
from ..tools import normalize_tools
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
    tools: Sequence[Mapping[str, Any]] | None = None,
    expected: dict[str, Any] | None = None,
    chunkings: Iterable[Sequence[str]] = (),
) -> Message:
    """Parse `text` in one chunk, per character, in 3-character chunks, per character with
    each complete call whole in one chunk, and in each of `chunkings`; assert that every
    property holds for each (same events and message as one chunk, deltas adding up, final
    names, …; with `expected`, parsing back to it without errors). Returns the one-chunk
    message."""
    declared = normalize_tools(tools)
    case = Case(text, declared, prompt, fmt.start_state(prompt), expected=expected)
    whole = stream(fmt, [text], tools, prompt)
    calls = [(n.start, n.end) for n in whole.tree.find_all(ast.TOOL_CALL) if n.end is not None]
    inside = {i for start, end in calls for i in range(start + 1, end)}
    calls_whole = split_at(text, (i for i in range(1, len(text)) if i not in inside))
    for chunks in (list(text), split_at(text, range(3, len(text), 3)), calls_whole, *chunkings):
        trial = Trial(fmt, case, list(chunks), whole, stream(fmt, chunks, tools, prompt))
        for prop in PROPERTIES:
            problem = prop.check(trial)
            assert problem is None, f"{prop.name}: expected {problem.expected}, got {problem.got}"
    return whole.message


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
