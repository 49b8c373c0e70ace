"""Free text that never completes a pattern, as a deterministic automaton that a grammar
writes as one rule per state (`gbnf`).

A pattern is a run of texts with any `GAP` whitespace between two of them (`[`, a name,
`(`); a marker is a pattern of one text. The patterns' prefixes form a trie, each node a
pattern's texts read so far and part of the next one; a node that has just read a whole
text but the last is in a gap, and stays there on whitespace. A state of the automaton is
the set of nodes the text read so far can stand in (the root always among them: a match
may begin anywhere), as in Aho and Corasick's matcher; a character that completes a
pattern from one of them is refused. Each state looks only at the characters its nodes
go on with, so the work is the size of the trie and the states' moves, not the alphabet
times the patterns."""

from __future__ import annotations

import collections
import functools
from dataclasses import dataclass

from .ir import GAP

Patterns = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class State:
    """Where a character takes the text: to another state (`moves`, none of them to the
    first), nowhere (`refused`: it would complete a pattern), or else back to the first
    state, where no match is under way."""

    moves: tuple[tuple[int, frozenset[str]], ...]
    refused: frozenset[str]

    def special(self) -> frozenset[str]:
        """The characters that do not take the text back to the first state."""
        return self.refused.union(*(chars for _, chars in self.moves))


@dataclass
class _Trie:
    """The patterns' prefixes: a node's `children` by the next character (two where one
    ends a text there and another goes on within one), the characters that complete a
    pattern from it (`final`), and whether it is in a gap (it has read a whole text)."""

    children: list[dict[str, set[int]]]
    final: list[set[str]]
    gap: list[bool]

    @classmethod
    def of(cls, patterns: Patterns) -> _Trie:
        trie = cls([{}], [set()], [False])
        numbers: dict[tuple[int, str, bool], int] = {}  # a child: its parent, char, gap
        for pattern in patterns:
            texts = [text for text in pattern if text]
            node = 0
            for index, text in enumerate(texts):
                for done, char in enumerate(text, 1):
                    whole = done == len(text)
                    if whole and index + 1 == len(texts):
                        trie.final[node].add(char)
                        continue
                    if (node, char, whole) not in numbers:
                        numbers[node, char, whole] = len(trie.children)
                        trie.children.append({})
                        trie.final.append(set())
                        trie.gap.append(whole)
                    child = numbers[node, char, whole]
                    trie.children[node].setdefault(char, set()).add(child)
                    node = child
        return trie

    def holds(self, text: str) -> bool:
        """Whether a pattern matches somewhere in `text`."""
        nodes: set[int] = set()
        for char in text:
            after: set[int] = set()
            for node in (0, *nodes):
                if char in self.final[node]:
                    return True
                after |= self.children[node].get(char, set())
                if self.gap[node] and char in GAP:
                    after.add(node)
            nodes = after
        return False

    def step(self, nodes: frozenset[int]) -> tuple[dict[str, frozenset[int]], set[str]]:
        """The nodes each character takes `nodes` (and the root) to, where that is not
        only the root, and the characters that complete a pattern from one of them."""
        after: dict[str, set[int]] = collections.defaultdict(set)
        refused: set[str] = set()
        for node in (0, *nodes):
            for char, targets in self.children[node].items():
                after[char] |= targets
            refused |= self.final[node]
            if self.gap[node]:
                for char in GAP:
                    after[char].add(node)
        return {c: frozenset(t) for c, t in after.items() if c not in refused}, refused


@functools.lru_cache(maxsize=64)
def automaton(patterns: Patterns) -> tuple[State, ...]:
    """The states of free text that never completes one of `patterns`: the first where no
    match is under way, the others numbered in the order they are reached from it. A
    marker that holds a match of a pattern of more texts is left out (text that holds the
    marker holds that match): an opener `[get(` that is a head `[ get (` spaced tight."""
    heads = tuple(pattern for pattern in patterns if len(pattern) > 1)
    among = _Trie.of(heads)
    trie = _Trie.of(heads + tuple(p for p in patterns if len(p) == 1 and not among.holds(p[0])))
    numbers: dict[frozenset[int], int] = {frozenset(): 0}
    pending: collections.deque[frozenset[int]] = collections.deque([frozenset()])
    states = []
    while pending:
        after, refused = trie.step(pending.popleft())
        by_target: dict[int, set[str]] = {}
        for char, nodes in after.items():
            if nodes not in numbers:
                numbers[nodes] = len(numbers)
                pending.append(nodes)
            by_target.setdefault(numbers[nodes], set()).add(char)
        moves = tuple((target, frozenset(chars)) for target, chars in sorted(by_target.items()))
        states.append(State(moves, frozenset(refused)))
    return tuple(states)


def straddling(markers: tuple[str, ...], marker: str) -> tuple[str, ...]:
    """The texts free text must not end with where `marker` follows it: each proper prefix
    of one of `markers` that `marker`'s text completes (`>` before `>>>`, `<|eot_id|`
    before `>`), so that no marker stands across the two, which the parser would read
    there instead."""
    completed = _completed(markers)
    starts = (completed.get(marker[:end], ()) for end in range(1, len(marker) + 1))
    return tuple(dict.fromkeys(start for found in starts for start in found))


@functools.lru_cache(maxsize=64)
def _completed(markers: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Per proper suffix of one of `markers`, the starts of markers it completes (the
    rest of each marker before it)."""
    found: dict[str, list[str]] = collections.defaultdict(list)
    for other in markers:
        for cut in range(1, len(other)):
            found[other[cut:]].append(other[:cut])
    return {suffix: tuple(starts) for suffix, starts in found.items()}


def endings(patterns: Patterns, texts: tuple[str, ...]) -> frozenset[int]:
    """The states of `automaton(patterns)` in which the text read ends with none of
    `texts` (prefixes of the patterns' texts: whether it ends with one is the state's)."""
    states = automaton(patterns)
    shortest = {0: ""}  # a text that reaches each state, as short as any
    pending = collections.deque([0])
    while pending:
        number = pending.popleft()
        for target, chars in states[number].moves:
            if target not in shortest:
                shortest[target] = shortest[number] + min(chars)
                pending.append(target)
    return frozenset(n for n, text in shortest.items() if not text.endswith(texts))
