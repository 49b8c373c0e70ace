"""parsy grammars as leaves: one run over the delimited span, the same value under every
chunking, parsy's failures at their stream positions, delimiters held back."""

from __future__ import annotations

from typing import Any

import parsy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall.combinators import (
    DONE,
    FAILED,
    NEED_MORE,
    Parser,
    Text,
    alt,
    end_of_input,
    from_parsy,
    literal,
    seq,
    tag,
)
from protocall.testing import chunkings

OPEN, CLOSE = "<args>", "</args>"
PAIR = parsy.seq(parsy.regex("[a-z]+") << parsy.string("="), parsy.regex("[0-9]+").map(int))
PAIRS = PAIR.sep_by(parsy.string(";"))


def arguments(**options: Any) -> Parser[Any]:
    """`<args>k=1;v=2</args>`, the pairs parsed by parsy."""
    return seq(literal(OPEN), from_parsy(PAIRS, CLOSE, **options), literal(CLOSE), end_of_input)


def feed(parser: Parser[Any], chunks: list[str]) -> tuple[Any, ...]:
    run = parser.run()
    texts = []
    for chunk in chunks:
        if run.status is FAILED:
            break
        run.feed(chunk)
        texts += [item for item in run.take() if isinstance(item, Text)]
    if run.status is not FAILED:
        run.finish()
    if run.error is not None:
        return FAILED, run.error.position, run.error.expected
    assert not texts
    return DONE, run.value


def reference(text: str) -> tuple[Any, ...]:
    """What the leaf must give: parsy over the span up to the earliest delimiter."""
    assert text.startswith(OPEN)
    close = text.find(CLOSE, len(OPEN))
    span = text[len(OPEN) : close if close >= 0 else len(text)]
    try:
        value = PAIRS.parse(span)
    except parsy.ParseError as error:
        return FAILED, len(OPEN) + error.index, " or ".join(sorted(error.expected))
    if close < 0:
        return FAILED, len(text), f"`{CLOSE}`"
    if close + len(CLOSE) < len(text):
        return FAILED, close + len(CLOSE), "end of input"
    return DONE, (OPEN, value, CLOSE, None)


NAMES = st.text("abcz", min_size=1, max_size=4)
DOCUMENTS = st.lists(st.tuples(NAMES, st.integers(0, 10**6)), max_size=5).map(
    lambda pairs: OPEN + ";".join(f"{k}={v}" for k, v in pairs) + CLOSE
)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_the_value_is_the_same_under_every_chunking(data: st.DataObject) -> None:
    text = data.draw(DOCUMENTS)
    expected = reference(text)
    assert expected[0] is DONE
    assert feed(arguments(), [text]) == expected
    assert feed(arguments(), data.draw(chunkings(text))) == expected


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_failures_are_at_parsys_position_under_every_chunking(data: st.DataObject) -> None:
    text = data.draw(DOCUMENTS)
    at = data.draw(st.integers(len(OPEN), len(text)))
    text = text[:at] + data.draw(st.sampled_from(list("a1=;<>/x "))) + text[at + 1 :]
    expected = reference(text)
    assert feed(arguments(), [text]) == expected
    assert feed(arguments(), data.draw(chunkings(text))) == expected


def test_a_parsy_failure_maps_to_the_stream_position() -> None:
    assert feed(arguments(), ["<args>a=1;b=x</args>"]) == (FAILED, 12, "[0-9]+")


def test_nothing_is_decided_before_the_delimiter_arrives() -> None:
    run = arguments().run()
    run.feed("<args>a=1</ar")
    assert run.status is NEED_MORE
    run.feed("gs>")
    run.finish()
    assert run.value == (OPEN, [["a", 1]], CLOSE, None)


def test_a_partial_delimiter_that_is_not_one_belongs_to_the_span() -> None:
    anything = from_parsy(parsy.regex(".*", flags=0), "</x>")
    run = seq(anything, literal("</x>")).run()
    for chunk in ["a</", "y</", "x", ">"]:
        run.feed(chunk)
    assert run.status is DONE
    assert run.value == ("a</y", "</x>")


def test_the_earliest_of_several_delimiters_ends_the_span() -> None:
    word = from_parsy(parsy.regex("[a-z]*"), ("</a>", "</b>"))
    assert feed(seq(word, literal("</b>")), ["xy</b>z</a>"]) == (DONE, ("xy", "</b>"))
    assert feed(seq(word, literal("</b>")), ["xy</a>z</b>"]) == (FAILED, 4, "`</b>`")


@pytest.mark.parametrize(
    ("required", "expected"), [(False, (DONE, [["a", 1]])), (True, (FAILED, 3, "`</args>`"))]
)
def test_end_of_input_without_the_delimiter(required: bool, expected: tuple[Any, ...]) -> None:
    assert feed(from_parsy(PAIRS, CLOSE, required=required) << end_of_input, ["a=1"]) == expected


def test_it_does_not_stream_inside_the_leaf() -> None:
    run = tag("leaf", from_parsy(parsy.regex("[a-z]*"), "!")).run()
    run.feed("abc")
    assert run.take() == [("leaf", 0)]
    run.feed("def!")
    assert run.take() == [("leaf", 6, "abcdef")]


def test_a_parsy_failure_lets_an_alternative_try() -> None:
    number = from_parsy(parsy.regex("[0-9]+").map(int), "!")
    word = from_parsy(parsy.regex("[a-z]+"), "!")
    assert feed(alt(number, word) << literal("!"), ["abc!"]) == (DONE, "abc")
