"""A grammar after a primed prompt: the turn from inside its first marker.

A generation prompt may end with the start of the turn's first marker (`Spec.primed`:
Functionary v3.2's template ends its prompt with `>>>`), so the model writes the rest of
that marker on. `after(grammar, text)` is the grammar of what may follow `text`: a text
`w` matches it exactly when `text + w` matches `grammar` with `text` read as the start of
a marker (free text before it is empty). `text` must end in literal text or a whole
special token: a prompt that ends inside a special token, a JSON value, a lexeme or an
unordered list of members is a `UsageError`, as is one after which nothing can follow.
"""

from __future__ import annotations

from dataclasses import replace

from ..combinators import UsageError
from .ir import Alt, Grammar, Lit, Node, Opt, Ref, Seq, Star, Token, Until, alt, reachable, seq

DEPTH = 64
"""Rules `after` enters one inside another (a rule that refers to itself before any text
ends there with a `UsageError`)."""

_Rests = list[tuple[Node, str]]
"""The ways a node begins `text`: what is left of the node after the part of `text` it
matched, and what is left of `text` (a node matched whole, by a proper prefix of `text` or
by none of it, leaves the rest to what follows it)."""


def after(grammar: Grammar, text: str, dropped: tuple[str, ...] = ()) -> Grammar:
    """`grammar` from after `text` on (see the module docstring): its `start` rule is what
    follows `text` in a match of the old one, or of the old one after one of the `dropped`
    markers (the parser drops them where they stand: Functionary's `>>>all\n` before its
    text, which the grammar does not write, is how an output after `>>>` begins text)."""
    start = grammar.rules["start"]
    start = alt(start, *(seq(Lit(marker), start) for marker in dropped))
    rests = [rest for rest, left in _after(start, text, grammar, 0) if not left]
    if not rests:
        raise UsageError(f"no turn of the grammar begins with {text!r}, where the prompt ends")
    rules = {**grammar.rules, "start": alt(*rests)}
    primed = reachable(replace(grammar, rules=rules))
    return replace(primed, dropped=grammar.dropped)


def _after(node: Node, text: str, grammar: Grammar, depth: int) -> _Rests:
    if not text:
        return [(node, "")]
    if isinstance(node, Lit):
        if node.text.startswith(text):
            return [(Lit(node.text[len(text) :]), "")]
        return [(Lit(""), text[len(node.text) :])] if text.startswith(node.text) else []
    if isinstance(node, Token):
        if text.startswith(node.text):
            return [(Lit(""), text[len(node.text) :])]
        if node.text.startswith(text):
            raise UsageError(f"the prompt ends inside the special token {node.text!r}")
        return []
    if isinstance(node, Seq):
        return _sequence(node.items, text, grammar, depth)
    if isinstance(node, Alt):
        return [rest for item in node.items for rest in _after(item, text, grammar, depth)]
    if isinstance(node, Opt):
        return [*_after(node.item, text, grammar, depth), (Lit(""), text)]
    if isinstance(node, Star):
        rests: _Rests = [(Lit(""), text)]
        for rest, left in _after(node.item, text, grammar, depth):
            if not left:
                rests.append((seq(rest, node), ""))
            elif len(left) < len(text):  # a repetition that matched nothing adds nothing
                rests += _after(node, left, grammar, depth)
        return rests
    if isinstance(node, Ref):
        if depth >= DEPTH:
            raise UsageError(
                f"rule {node.name!r} is {DEPTH} rules deep where the prompt ends: it refers to "
                "itself before any text"
            )
        return _after(grammar.rules[node.name], text, grammar, depth + 1)
    if isinstance(node, Until):
        return _free_text(node, text, grammar, depth)
    raise UsageError(f"the prompt ends inside {type(node).__name__.lower()} {node!r}")


def _sequence(items: tuple[Node, ...], text: str, grammar: Grammar, depth: int) -> _Rests:
    """`_after` of the sequence `items`."""
    first, others = items[0], items[1:]
    rests: _Rests = []
    for rest, left in _after(first, text, grammar, depth):
        if not left:
            rests.append((seq(rest, *others), ""))
        elif others:
            rests += _sequence(others, left, grammar, depth)
        else:
            rests.append((Lit(""), left))
    return rests


def _free_text(node: Until, text: str, grammar: Grammar, depth: int) -> _Rests:
    """`_after` of free text then its marker: `text` begins a marker (it is the start of
    the turn's first one), so the free text before it is empty."""
    if node.string:
        raise UsageError("the prompt ends inside a string value")
    return _after(node.marker, text, grammar, depth)
