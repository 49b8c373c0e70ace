"""A text scan's held tail, as the shortcuts tell it from the two regexes its scan
compiles (`Until.held`, a `HeldTail`), is the held tail `held_prefix` compiles a regex of
its own for: the same verdict on every text, for every marker set."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocall.combinators.text import Until
from protocall.shortcuts import enabled
from protocall.shortcuts.absorbers import held_prefix

pytestmark = pytest.mark.skipif(
    not enabled(), reason="PROTOCALL_SHORTCUTS=0: no shortcut tells a held tail"
)

# Few characters, so that markers share prefixes and contain one another.
MARKERS = st.frozensets(st.text("<>/ab", min_size=1, max_size=6), min_size=1, max_size=5)


@given(MARKERS, st.data())
def test_a_held_tail_is_told_as_its_own_regex_tells_it(
    markers: frozenset[str], data: st.DataObject
) -> None:
    held = Until(*sorted(markers)).held  # as the shortcuts installed it
    regex = held_prefix(markers)
    prefixes = [marker[:cut] for marker in markers for cut in range(len(marker) + 1)]
    text = data.draw(st.sampled_from(prefixes) | st.text("<>/ab", max_size=8))
    assert held.fullmatch(text) == (regex.fullmatch(text) is not None), (sorted(markers), text)


def test_a_proper_prefix_is_held_and_a_marker_or_other_text_is_not() -> None:
    held = Until("<ab>", "</x>").held
    assert held.fullmatch("<") and held.fullmatch("<a") and held.fullmatch("</")
    assert not held.fullmatch("<ab>") and not held.fullmatch("x<") and not held.fullmatch("")
    shorter = Until("<a", "<ab>").held
    assert shorter.fullmatch("<")
    assert not shorter.fullmatch("<ab")  # `<a` is complete at its start: decided there
