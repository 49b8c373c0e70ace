"""A repeated run of the item log kept as one period (`protocall.repeats`): it reads back
as exactly the entries it stands for, and a session stuck on a stop marker holds a few
bytes per repetition, not a node's tuples."""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocall import ast, formats
from protocall.repeats import LEAST, Repeated, blocks

ENTRIES = st.one_of(
    st.tuples(st.sampled_from(["a", "bc"]), st.integers(0, 3)),  # text
    st.tuples(st.sampled_from(["content", "end_of_turn"]), st.integers(0, 3), st.none()),
    st.tuples(
        st.sampled_from(["content", "end_of_turn"]),
        st.integers(0, 3),
        st.sampled_from(["x", None, 1, 1.0, True, ["mutable"]]),
        st.none(),
    ),
)


@st.composite
def logs(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Entries with runs of a period repeated at a stride, as a stuck model writes them."""
    entries: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(0, 4))):
        period = draw(st.lists(ENTRIES, min_size=1, max_size=9))
        stride = draw(st.integers(0, 5))
        for time in range(draw(st.integers(0, 50))):
            entries += [(e[0], e[1] + time * stride, *e[2:]) for e in period]
        entries += draw(st.lists(ENTRIES, max_size=5))
    return entries


@given(entries=logs(), size=st.integers(1, 40))
def test_the_blocks_read_back_as_the_entries(entries: list[tuple[Any, ...]], size: int) -> None:
    cut = list(blocks(entries, size))
    read = [entry for block in cut for entry in block]
    assert read == entries and list(map(repr, read)) == list(map(repr, entries))
    for block in cut:
        if isinstance(block, Repeated):
            assert len(block) >= LEAST and block[1:-1] == list(block)[1:-1]
            assert block[-1] == list(block)[-1]
            # a run shares no mutable value between the nodes it stands for, nor reads
            # back 1 for 1.0 or True
            assert all(type(e[2]) in (str, type(None)) for e in block.period if len(e) == 4)
        else:
            assert type(block) is tuple and 0 < len(block) <= size


@pytest.mark.slow
def test_a_repeated_stop_keeps_its_tree_in_a_few_bytes_a_repetition() -> None:
    fmt = formats.get("hermes")
    text = "Done." + "<|im_end|>" * 50_000
    deltas = [text[start : start + 4] for start in range(0, len(text), 4)]
    session = fmt.parser()
    gc.collect()
    tracemalloc.start()
    try:
        events = [event for delta in deltas for event in session.feed(delta)]
        events += session.finish()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 4 * len(text)  # a tuple per node: about 19 times
    assert [type(event).__name__ for event in events] == ["ContentDelta"] * len(events)
    stops = session.ast.find_all(ast.END_OF_TURN)
    assert len(stops) == 50_000
    assert [(node.start, node.end, node.value) for node in stops[-2:]] == [
        (len(text) - 20, len(text) - 10, "<|im_end|>"),
        (len(text) - 10, len(text), "<|im_end|>"),
    ]
    assert session.message.content == "Done."
