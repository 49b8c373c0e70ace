"""Properties of the combinator core (DESIGN.md §4) over randomly built grammars.

A grammar is drawn from literals, token regexes (character-class runs), `until` with one to
three markers, `seq` (with cuts between elements), `alt`, `many`, `optional`, `tag` and
`recover`, over a small alphabet so that markers, literals and classes overlap. Inputs are
sentences the grammar is likely to accept (each part sampled from what it matches), some
of them mutated (a character inserted, deleted or replaced, or the input cut short); a few
stretch an `until` span with hundreds of filler characters so that the buffer drops text.

Runs parse the whole input (`seq(grammar, end_of_input)`, as `parse` does). Emitted items
are compared after joining adjacent `Text` items, since chunking may split text anywhere;
error excerpts (`got`) show what had arrived when the failure was detected, so they are not
compared.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from protocall.combinators import (
    DONE,
    FAILED,
    NEED_MORE,
    Close,
    Item,
    Open,
    Parser,
    Recovered,
    Text,
    alt,
    cut,
    end_of_input,
    literal,
    many,
    optional,
    recover,
    regex,
    seq,
    tag,
    until,
)

ALPHABET = "ab</> "
FILLER = "x" * 300
"""Text no marker, literal or class contains: stretches an `until` span past compaction."""

# -- random grammars -------------------------------------------------------------------------


class Grammar:
    """A random parser, its source (what Hypothesis prints), the sentences it may accept,
    and the same grammar as a plain backtracking parser over complete text (`reference`;
    None for `recover`, whose region boundaries depend on failure positions)."""

    __slots__ = ("parser", "reference", "sentences", "source")

    def __init__(
        self,
        source: str,
        parser: Parser[Any],
        sentences: st.SearchStrategy[str],
        reference: Reference | None,
    ) -> None:
        self.source = source
        self.parser = parser
        self.sentences = sentences
        self.reference = reference

    def __repr__(self) -> str:
        return self.source


# -- the reference: PEG over complete text, with the core's cut -------------------------------
# A reference parser takes the text, a position and the stack of open choices (one flag per
# choice: committed?) and returns (value, end, items) or raises Mismatch. Like the core, a
# cut commits every open choice, the last branch of an alternative opens no choice, and a
# repetition that fails uncommitted or matches nothing ends a `many`.

Choices = list[list[bool]]
Reference = Callable[[str, int, Choices], tuple[Any, int, list[Item]]]


class Mismatch(Exception):
    pass


def r_literal(expected: str) -> Reference:
    def parse(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
        if not text.startswith(expected, pos):
            raise Mismatch
        return expected, pos + len(expected), []

    return parse


def r_regex(pattern: str) -> Reference:
    compiled = re.compile(pattern)

    def parse(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
        match = compiled.match(text, pos)
        if match is None:
            raise Mismatch
        return match.group(), match.end(), []

    return parse


def r_until(*markers: str) -> Reference:
    def parse(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
        found = [at for at in (text.find(m, pos) for m in markers) if at >= 0]
        end = min(found, default=len(text))
        return text[pos:end], end, [Text(text[pos:end], pos)] if end > pos else []

    return parse


def r_cut(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
    for choice in choices:
        choice[0] = True
    return None, pos, []


def r_seq(*parts: Reference) -> Reference:
    def parse(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
        values, items = [], []
        for part in parts:
            value, pos, more = part(text, pos, choices)
            values.append(value)
            items += more
        return tuple(values), pos, items

    return parse


def r_alt(*parts: Reference) -> Reference:
    def parse(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
        *tried, last = parts
        for part in tried:
            choice = [False]
            choices.append(choice)
            try:
                return part(text, pos, choices)
            except Mismatch:
                if choice[0]:
                    raise
            finally:
                choices.pop()
        return last(text, pos, choices)

    return parse


def r_nothing(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
    return None, pos, []


def r_many(part: Reference) -> Reference:
    def parse(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
        values: list[Any] = []
        items: list[Item] = []
        while True:
            choice = [False]
            choices.append(choice)
            try:
                value, end, more = part(text, pos, choices)
            except Mismatch:
                if choice[0]:
                    raise
                return values, pos, items
            finally:
                choices.pop()
            values.append(value)
            items += more
            if end == pos:
                return values, pos, items
            pos = end

    return parse


def r_tag(name: str, part: Reference) -> Reference:
    def parse(text: str, pos: int, choices: Choices) -> tuple[Any, int, list[Item]]:
        value, end, items = part(text, pos, choices)
        return value, end, [Open(name, pos), *items, Close(name, end, value)]

    return parse


def lift(build: Callable[..., Reference], *parts: Grammar) -> Reference | None:
    """`build` over the parts' references, if they all have one."""
    references = [part.reference for part in parts]
    if any(reference is None for reference in references):
        return None
    return build(*references)


def call(name: str, *args: Any) -> str:
    return f"{name}({', '.join(args)})"


fragments = st.text(ALPHABET, min_size=1, max_size=3)
prose = st.tuples(st.text(ALPHABET, max_size=5), st.integers(0, 3)).map(
    lambda drawn: drawn[0] if drawn[1] < 3 else FILLER + drawn[0]
)


@st.composite
def literals(draw: st.DrawFn) -> Grammar:
    text = draw(fragments)
    return Grammar(call("literal", repr(text)), literal(text), st.just(text), r_literal(text))


@st.composite
def regexes(draw: st.DrawFn) -> Grammar:
    """Token regexes: runs of a character class (`[a<]+`, `[b]*`) or of whitespace."""
    chars = "".join(sorted(draw(st.sets(st.sampled_from(ALPHABET.strip()), min_size=1))))
    plus = draw(st.booleans())
    if draw(st.integers(0, 4)) == 0:
        pattern, chars = r"\s*", " "
    else:
        pattern = f"[{re.escape(chars)}]{'+' if plus else '*'}"
    runs = st.text(chars, min_size=1 if pattern.endswith("+") else 0, max_size=3)
    return Grammar(call("regex", repr(pattern)), regex(pattern), runs, r_regex(pattern))


@st.composite
def untils(draw: st.DrawFn, terminated: bool) -> Grammar:
    """`until` with 1-3 markers; `terminated`: followed by an optional marker, longest first
    (so whatever marker stops the text is consumed next)."""
    markers = draw(st.lists(fragments, min_size=1, max_size=3, unique=True))
    source = call("until", *map(repr, markers))
    parser: Parser[Any] = until(*markers)
    reference = r_until(*markers)
    stop = st.sampled_from(["", *markers])
    if terminated:
        ordered = sorted(markers, key=len, reverse=True)
        terminator = call("optional", call("alt", *(call("literal", repr(m)) for m in ordered)))
        source = call("seq", source, terminator)
        parser = seq(parser, optional(alt(*map(literal, ordered))))
        either = r_alt(*map(r_literal, ordered)) if len(ordered) > 1 else r_literal(ordered[0])
        reference = r_seq(reference, r_alt(either, r_nothing))
    sentences = st.tuples(prose, stop).map("".join)
    return Grammar(source, parser, sentences, reference)


def joined(parts: list[Grammar]) -> st.SearchStrategy[str]:
    return st.tuples(*(part.sentences for part in parts)).map("".join)


@st.composite
def seqs(draw: st.DrawFn, children: st.SearchStrategy[Grammar]) -> Grammar:
    """A sequence of 1-3 parts, each possibly preceded by a cut."""
    parts = draw(st.lists(children, min_size=1, max_size=3))
    cuts = draw(st.lists(st.booleans(), min_size=len(parts), max_size=len(parts)))
    sources: list[str] = []
    parsers: list[Parser[Any]] = []
    references: list[Reference | None] = []
    for part, cutting in zip(parts, cuts, strict=True):
        if cutting:
            sources.append("cut")
            parsers.append(cut)
            references.append(r_cut)
        sources.append(part.source)
        parsers.append(part.parser)
        references.append(part.reference)
    reference = None if None in references else r_seq(*references)  # type: ignore[arg-type]
    return Grammar(call("seq", *sources), seq(*parsers), joined(parts), reference)


@st.composite
def alts(draw: st.DrawFn, children: st.SearchStrategy[Grammar]) -> Grammar:
    parts = draw(st.lists(children, min_size=2, max_size=3))
    sentences = st.one_of(*(part.sentences for part in parts))
    source = call("alt", *(p.source for p in parts))
    return Grammar(source, alt(*(p.parser for p in parts)), sentences, lift(r_alt, *parts))


@st.composite
def wrappers(draw: st.DrawFn, children: st.SearchStrategy[Grammar]) -> Grammar:
    """`many`, `optional` or `tag` around a part."""
    inner = draw(children)
    kind = draw(st.sampled_from(["many", "optional", "tag"]))
    if kind == "many":
        repeats = st.lists(inner.sentences, max_size=3).map("".join)
        return Grammar(call("many", inner.source), many(inner.parser), repeats, lift(r_many, inner))
    if kind == "optional":
        maybe = st.one_of(st.just(""), inner.sentences)
        reference = lift(lambda r: r_alt(r, r_nothing), inner)
        return Grammar(call("optional", inner.source), optional(inner.parser), maybe, reference)
    source = call("tag", "'t'", inner.source)
    reference = lift(lambda r: r_tag("t", r), inner)
    return Grammar(source, tag("t", inner.parser), inner.sentences, reference)


@st.composite
def recovers(draw: st.DrawFn, children: st.SearchStrategy[Grammar]) -> Grammar:
    """`recover` of a part that starts with a literal and a cut, resynchronising at a marker."""
    opener, body = draw(literals()), draw(children)
    marker = draw(fragments)
    source = call(
        "recover", call("seq", opener.source, "cut", body.source), f"until({marker!r}, emit=False)"
    )
    parser = recover(seq(opener.parser, cut, body.parser), until(marker, emit=False))
    sentences = st.one_of(joined([opener, body]), st.tuples(opener.sentences, prose).map("".join))
    return Grammar(source, parser, sentences, None)


@st.composite
def tagged(draw: st.DrawFn, parts: st.SearchStrategy[Grammar]) -> Grammar:
    """A part, half of the time as a node (so that most grammars emit items)."""
    part = draw(parts)
    if not draw(st.booleans()):
        return part
    source = call("tag", "'t'", part.source)
    return Grammar(
        source, tag("t", part.parser), part.sentences, lift(lambda r: r_tag("t", r), part)
    )


def grammars(terminated: bool = False, recovering: bool = True) -> st.SearchStrategy[Grammar]:
    """Random grammars; `terminated` restricts them to what the earliest-error property
    needs (see `test_an_error_is_never_before_where_the_input_left_an_accepted_one`),
    `recovering` allows `recover`."""
    leaves = tagged(st.one_of(literals(), regexes(), untils(terminated)))

    def extend(children: st.SearchStrategy[Grammar]) -> st.SearchStrategy[Grammar]:
        options = [seqs(children), alts(children), wrappers(children)]
        if recovering and not terminated:
            options.append(recovers(children))
        return st.one_of(*options)

    return st.recursive(leaves, extend, max_leaves=6)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> tuple[str, int]:
    """`text` with one character inserted, deleted or replaced, or cut short, and the length
    of the prefix it still shares with `text`."""
    at = draw(st.integers(0, len(text)))
    char = draw(st.sampled_from(ALPHABET))
    edit = draw(st.sampled_from(["insert", "delete", "replace", "cut"]))
    if edit == "insert":
        changed = text[:at] + char + text[at:]
    elif edit == "cut":
        changed = text[:at]
    else:
        changed = text[:at] + (char if edit == "replace" else "") + text[at + 1 :]
    shared = next((i for i, (a, b) in enumerate(zip(text, changed, strict=False)) if a != b), None)
    return changed, min(len(text), len(changed)) if shared is None else shared


@st.composite
def inputs(draw: st.DrawFn, grammar: Grammar) -> str:
    """A sentence of `grammar`, mutated half of the time."""
    sentence = draw(grammar.sentences)
    return draw(mutated(sentence))[0] if draw(st.booleans()) else sentence


@st.composite
def chunkings(draw: st.DrawFn, text: str) -> list[str]:
    """`text` split at random offsets."""
    cuts = draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12))
    bounds = sorted({0, len(text), *cuts})
    return [text[a:b] for a, b in pairwise(bounds) if b > a] or [text]


# -- observing runs --------------------------------------------------------------------------


def normal(value: Any) -> Any:
    """`value` with `Recovered` regions as comparable tuples."""
    if isinstance(value, Recovered):
        return ("recovered", value.raw, value.start, value.truncated, value.failure.position)
    if isinstance(value, tuple | list):
        return type(value)(map(normal, value))
    return value


def merged(items: list[Item]) -> list[Item]:
    """Adjacent `Text` items joined, `Close` values made comparable."""
    out: list[Item] = []
    for item in items:
        last = out[-1] if out else None
        if isinstance(item, Text) and isinstance(last, Text):
            out[-1] = Text(last.text + item.text, last.start)
        elif isinstance(item, Close):
            out.append(Close(item.tag, item.end, normal(item.value)))
        else:
            out.append(item)
    return out


@dataclass
class Observed:
    status: Any
    value: Any
    error: tuple[Any, ...] | None
    items: list[Item]
    statuses: list[Any]
    """The status after each chunk (before `finish`)."""
    dropped: bool
    """Whether the buffer dropped text it had scanned."""


def observe(grammar: Grammar, chunks: list[str], finish: bool = True) -> Observed:
    run = seq(grammar.parser, end_of_input).run()
    items: list[Item] = []
    statuses = []
    for chunk in chunks:
        if run.status is FAILED:
            break
        run.feed(chunk)
        items += run.take()
        statuses.append(run.status)
    if finish and run.status is not FAILED:
        run.finish()
        items += run.take()
    error = run.error
    summary = None
    if error is not None:
        fields = (error.line, error.column, error.expected, error.context, error.committed)
        summary = (error.position, *fields)
    dropped = run._inp.base > 0
    return Observed(run.status, normal(run.value), summary, merged(items), statuses, dropped)


def same_result(a: Observed, b: Observed) -> None:
    assert (a.status, a.value, a.error) == (b.status, b.value, b.error)
    assert a.items == b.items


def is_prefix(before: list[Item], after: list[Item]) -> bool:
    """`before` (merged) is a prefix of `after` (merged); its last text may have grown."""
    if not before:
        return True
    if len(before) > len(after) or before[:-1] != after[: len(before) - 1]:
        return False
    last, other = before[-1], after[len(before) - 1]
    if isinstance(last, Text) and isinstance(other, Text):
        return last.start == other.start and other.text.startswith(last.text)
    return last == other


def per_character(text: str) -> list[str]:
    return list(text) or [""]


# -- properties ------------------------------------------------------------------------------

examples = settings().max_examples


@settings(max_examples=examples)
@given(st.data())
def test_results_do_not_depend_on_chunking(data: st.DataObject) -> None:
    """One chunk, one character per chunk and random chunks give the same status, value,
    error (position, line, column, expected, context, committed) and emitted items."""
    grammar = data.draw(grammars(), label="grammar")
    text = data.draw(inputs(grammar), label="input")
    whole = observe(grammar, [text])
    event(f"input {whole.status.value}")
    streamed = observe(grammar, per_character(text))
    event("the buffer dropped text" if streamed.dropped else "the buffer kept all text")
    same_result(whole, streamed)
    same_result(whole, observe(grammar, data.draw(chunkings(text), label="chunks")))


@settings(max_examples=examples)
@given(st.data())
def test_every_proper_prefix_of_an_accepted_input_needs_more(data: st.DataObject) -> None:
    """Fed without end of input, a proper prefix of an accepted input is never FAILED (nor
    done: the whole input must be consumed); the same holds for every prefix up to the
    position where a rejected input fails."""
    grammar = data.draw(grammars(), label="grammar")
    text = data.draw(inputs(grammar), label="input")
    outcome = observe(grammar, per_character(text))
    viable = len(text) if outcome.status is DONE else outcome.error[0]  # type: ignore[index]
    assert outcome.statuses[:viable] == [NEED_MORE] * min(viable, len(outcome.statuses))
    at = data.draw(st.integers(0, viable), label="prefix length")
    assert observe(grammar, [text[:at]], finish=False).status is NEED_MORE


@settings(max_examples=examples)
@given(st.data())
def test_what_a_prefix_emits_is_a_prefix_of_what_its_extension_emits(
    data: st.DataObject,
) -> None:
    """Emitted means final: nothing emitted for a prefix is retracted or changed, whether
    the input then goes on, ends or fails."""
    grammar = data.draw(grammars(), label="grammar")
    text = data.draw(inputs(grammar), label="input")
    at = data.draw(st.integers(0, len(text)), label="prefix length")
    before = observe(grammar, [text[:at]], finish=False).items
    assert is_prefix(before, observe(grammar, [text], finish=False).items)
    assert is_prefix(before, observe(grammar, per_character(text)).items)


@settings(max_examples=examples)
@given(st.data())
def test_a_rejected_input_is_rejected_at_the_same_position_however_chunked(
    data: st.DataObject,
) -> None:
    grammar = data.draw(grammars(), label="grammar")
    text = data.draw(mutated(data.draw(grammar.sentences, label="sentence")), label="input")[0]
    whole = observe(grammar, [text])
    assume(whole.status is FAILED)
    for chunks in (per_character(text), data.draw(chunkings(text), label="chunks")):
        assert observe(grammar, chunks).error == whole.error


@settings(max_examples=examples)
@given(st.data())
def test_an_error_is_never_before_where_the_input_left_an_accepted_one(
    data: st.DataObject,
) -> None:
    """Earliest error: an input that shares its first `n` characters with an accepted input
    is not rejected before position `n` (that prefix had a valid continuation).

    Restriction: every `until` is followed by an optional marker of its own, and there is
    no `recover`. An `until` that stops at a marker its continuation cannot take makes the
    continuation fail at the marker's start, although the marker was only known once its
    last character arrived (`seq(until("abc", "q"), literal("q"))` accepts `xabq` but
    rejects `xabc` at 1, not 3); a recovered region likewise moves on from where its
    resynchronisation stopped."""
    grammar = data.draw(grammars(terminated=True), label="grammar")
    accepted = data.draw(grammar.sentences, label="accepted")
    assume(observe(grammar, [accepted]).status is DONE)
    text, shared = data.draw(mutated(accepted), label="input")
    outcome = observe(grammar, [text])
    event(f"mutated input {outcome.status.value}")
    if outcome.status is FAILED:
        assert outcome.error is not None
        assert outcome.error[0] >= shared


@settings(max_examples=examples)
@given(st.data())
def test_a_run_agrees_with_a_backtracking_reference_parser(data: st.DataObject) -> None:
    """Over complete text, a run accepts what a plain PEG parser of the same grammar (with
    the same cut) accepts, with the same value and the same items: those of the successful
    derivation only, in order (nothing from branches that failed)."""
    grammar = data.draw(grammars(recovering=False), label="grammar")
    assert grammar.reference is not None
    text = data.draw(inputs(grammar), label="input")
    try:
        value, end, items = grammar.reference(text, 0, [])
    except Mismatch:
        end = -1
    outcome = observe(grammar, [text])
    event(f"input {outcome.status.value}")
    assert (outcome.status is DONE) == (end == len(text))
    if outcome.status is DONE:
        assert outcome.value == (value, None)
        assert outcome.items == merged(items)
