"""Quoted strings as tokens: where a string's body ends (`body_end`), and a whole string
token read once, never emitted (`string_token`), one-shot, per character and in 2- and
3-character chunks."""

from __future__ import annotations

import re
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_core import streamed

from protocall.combinators import DONE, FAILED, NEED_MORE, literal, quoted, regex, seq, string_token
from protocall.combinators.quoted import body_end

BODIES = {
    '"': re.compile(r'(?:[^\\"\n]|\\[\s\S])*'),
    "'": re.compile(r"(?:[^\\'\n]|\\[\s\S])*"),
    '"""': re.compile(r'(?:[^\\"]|\\[\s\S]|"(?!""))*'),
    "'''": re.compile(r"(?:[^\\']|\\[\s\S]|'(?!''))*"),
}
"""A string's body as one regular expression: what `body_end` finds without one (this
form keeps backtracking state per character)."""

TOKEN = string_token('"', "a JSON string")
AFTER = seq(TOKEN, regex(r"[\s\S]*"))
"""A token, then whatever follows it (to see where the token ended)."""


@given(st.sampled_from(sorted(BODIES)), st.text("\\\"'\na ", max_size=40), st.integers(0, 5))
def test_a_string_body_ends_where_its_regular_expression_does(
    quote: str, text: str, at: int
) -> None:
    at = min(at, len(text))
    assert body_end(quote, text, at) == BODIES[quote].match(text, at).end()  # type: ignore[union-attr]


def test_a_run_of_backslashes_is_scanned_without_memory_per_character() -> None:
    text = "\\" * 100_001
    tracemalloc.start()
    try:
        assert body_end('"', text, 0) == 100_000  # the last one escapes what is to come
        assert tracemalloc.get_traced_memory()[1] < 10_000
    finally:
        tracemalloc.stop()


def test_a_token_runs_through_its_closing_quote_and_emits_nothing() -> None:
    outcome = streamed(AFTER, r'"a\"b\\" rest')
    assert (outcome.status, outcome.value, outcome.items) == (DONE, (r'"a\"b\\"', " rest"), [])


def test_a_token_without_its_closing_quote_ends_at_a_raw_newline_or_the_end() -> None:
    assert streamed(AFTER, '"ab\ncd').value == ('"ab', "\ncd")
    assert streamed(AFTER, '"ab\\').value == ('"ab\\', "")
    assert streamed(TOKEN, '"ab\\"', finish=False).status is NEED_MORE


def test_no_opening_quote_is_a_failure_there() -> None:
    assert streamed(TOKEN, "x").status is FAILED
    assert streamed(seq(literal("a"), TOKEN), "ab").error[0] == 1  # type: ignore[index]


def test_a_long_token_is_scanned_once_however_it_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resumed per character, the scan goes on from where it stopped: the characters it
    covers add up to the text's length (a re-match from the start would cover about
    n²/2)."""
    text = '"' + "ab\\\\" * 5_000 + '"'
    covered = []

    def counted(quote: str, buf: str, at: int) -> int:
        end = body_end(quote, buf, at)
        covered.append(end - at)
        return end

    monkeypatch.setattr(quoted, "body_end", counted)
    run = TOKEN.run()
    for char in text:
        run.feed(char)
    run.finish()
    assert run.status is DONE and run.value == text
    assert sum(covered) <= len(text)
