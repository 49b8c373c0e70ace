"""Free text that never completes a pattern (`protocall.grammar.free_text`): the automaton
accepts exactly the texts that hold no match of a pattern (its texts with any whitespace
between them), the same language as the construction it replaced, and its size grows with
the patterns' text, not with their number times the alphabet."""

from __future__ import annotations

import collections
import re
from typing import Any

from gbnf_recognizer import Recognizer
from grammar_oracle import check
from hypothesis import given
from hypothesis import strategies as st

from protocall.grammar import free_text, gbnf, lark
from protocall.grammar.ir import GAP, Grammar, Lit, Until

Patterns = tuple[tuple[str, ...], ...]
Position = tuple[int, int, int]

texts = st.text(alphabet='ab[( "\t', min_size=1, max_size=3)
patterns = st.lists(st.lists(texts, min_size=1, max_size=3).map(tuple), min_size=1, max_size=4)
OUTSIDE = "z"
"""A character no pattern holds."""


def reference_step(
    patterns: Patterns, positions: frozenset[Position], char: str
) -> frozenset[Position] | None:
    """The construction `free_text` replaced, one character on: the matches under way as
    (pattern, its text, the characters of it read; 0 of a text after the first: in the gap
    before it), each pattern begun anew at every character; None where `char` completes
    one."""
    after: set[Position] = set()
    begun = ((number, 0, 0) for number in range(len(patterns)))
    for number, index, done in (*begun, *positions):
        pattern = patterns[number]
        if index and not done and char in GAP:
            after.add((number, index, done))
        if pattern[index][done] != char:
            continue
        if done + 1 < len(pattern[index]):
            after.add((number, index, done + 1))
        elif index + 1 < len(pattern):
            after.add((number, index + 1, 0))
        else:
            return None
    return frozenset(after)


def step(states: tuple[free_text.State, ...], number: int, char: str) -> int | None:
    """The state of `states` that `char` takes state `number` to, None where it is refused."""
    state = states[number]
    if char in state.refused:
        return None
    return next((target for target, chars in state.moves if char in chars), 0)


def head_regex(patterns: Patterns) -> re.Pattern[str]:
    gap = "[" + re.escape(GAP) + "]*"
    return re.compile("|".join(gap.join(map(re.escape, pattern)) for pattern in patterns))


@given(patterns)
def test_the_automaton_has_the_language_of_the_construction_it_replaced(
    drawn: list[tuple[str, ...]],
) -> None:
    """Walked side by side from their first states over every character that matters
    (the patterns', whitespace, one other), the two refuse the same characters at every
    pair of states they reach together: the same language, proved for these patterns."""
    patterns = tuple(drawn)
    states = free_text.automaton(patterns)
    alphabet = {char for pattern in patterns for text in pattern for char in text}
    alphabet |= set(GAP) | {OUTSIDE}
    start = (0, frozenset[Position]())
    seen, pending = {start}, collections.deque([start])
    while pending:
        number, positions = pending.popleft()
        for char in alphabet:
            new, old = step(states, number, char), reference_step(patterns, positions, char)
            assert (new is None) == (old is None), (patterns, number, positions, char)
            if new is not None and old is not None and (new, old) not in seen:
                seen.add((new, old))
                pending.append((new, old))


@given(patterns, st.data())
def test_the_gbnf_free_text_holds_exactly_the_texts_with_no_match(
    drawn: list[tuple[str, ...]], data: Any
) -> None:
    """Texts made of the patterns' pieces and whitespace: the GBNF of free text then a
    marker accepts one iff no pattern matches in it, its gaps any whitespace."""
    patterns = tuple(drawn)
    pieces = [text[:end] for pattern in patterns for text in pattern for end in (1, len(text))]
    text = "".join(data.draw(st.lists(st.sampled_from([*pieces, " ", "\u3000", OUTSIDE]))))
    markers = tuple(pattern[0] for pattern in patterns if len(pattern) == 1)
    heads = tuple(pattern for pattern in patterns if len(pattern) > 1)
    written = gbnf.write(Grammar(markers, {"start": Until(Lit("$"))}, heads=heads))
    found = head_regex(patterns).search(text)
    assert Recognizer(written).accepts(text + "$") == (found is None), (text, found)


@given(
    st.lists(st.text(alphabet="ab>", min_size=1, max_size=3), min_size=1, max_size=3, unique=True),
    st.data(),
)
def test_free_text_then_a_marker_holds_no_marker_begun_in_the_free_text(
    drawn: list[str], data: Any
) -> None:
    """Free text then one of the markers: the GBNF and the Lark grammar (llguidance) accept
    it iff no marker begins inside the free text, whole there or completed by the marker
    after it (`x>` before `>>>`), as the parser would read it there."""
    markers = tuple(drawn)
    marker = data.draw(st.sampled_from(markers))
    text = data.draw(st.text(alphabet="ab>z", max_size=6))
    whole = text + marker
    begun = any(whole.startswith(other, at) for other in markers for at in range(len(text)))
    grammar = Grammar(markers, {"start": Until(Lit(marker))})
    assert Recognizer(gbnf.write(grammar)).accepts(whole) == (not begun), whole
    assert check(lark.write(grammar), whole, ()).accepted == (not begun), whole


def test_the_automaton_grows_with_the_names_not_their_number_squared() -> None:
    """Pythonic call heads (`[`, a name, `(`, whitespace between) and openers (`[NAME(`)
    of 2,000 names: at most a state per character of the patterns."""
    names = [f"tool_{n}_{'x' * (n % 7)}" for n in range(2000)]
    heads = tuple(("[", name, "(") for name in names)
    openers = tuple((f"[{name}(",) for name in names)
    states = free_text.automaton(heads + openers)
    size = sum(len(text) for pattern in heads + openers for text in pattern)
    assert len(states) <= size
