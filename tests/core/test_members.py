"""`judged`: a member of a list judged on its own — a failed member that is still whole
(its brackets close) is one `error` node of its raw text and the list goes on; any other
failure is the list's. Every case one-shot, per character and in 2- and 3-character chunks."""

from __future__ import annotations

from typing import Any

import pytest
from test_core import drive

from protocall.combinators import (
    DONE,
    ERROR,
    FAILED,
    NEED_MORE,
    Close,
    Parser,
    cut,
    judged,
    literal,
    many,
    regex,
    seq,
    tag,
)
from protocall.combinators.members import Mismatch, Nesting


def outcome(parser: Parser[Any], chunks: list[str], finish: bool = True) -> tuple[Any, ...]:
    """The status, the members' values and the error regions' raw texts."""
    run = drive(parser, chunks, finish)
    closes = [item for item in run.items if isinstance(item, Close)]
    errors = [item.value[1] for item in closes if item.tag == ERROR]  # (…, raw, …) of each
    return run.status, [item.value for item in closes if item.tag == "member"], errors


def streamed(parser: Parser[Any], text: str, finish: bool = True) -> tuple[Any, ...]:
    """The outcome over `text`, the same in every chunking."""
    ways = [[text], *([text[i : i + n] for i in range(0, len(text), n)] for n in (1, 2, 3))]
    first, *others = [outcome(parser, chunks, finish) for chunks in ways]
    assert all(other == first for other in others)
    return first


NUMBER = cut.then(tag("member", seq(literal("{"), regex(r"\d+"), literal("}")).map(lambda p: p[1])))
"""A member: `{` digits `}`, committed at its start."""
BOUNDS = ("<end>", "[STOP]")
"""The list's bounds: markers no member reaches past outside a string."""
LIST = seq(
    literal("["),
    judged(NUMBER, BOUNDS),
    many(seq(literal(","), judged(NUMBER, BOUNDS))),
    literal("]"),
)
PY_LIST = seq(literal("["), judged(NUMBER, (), triple_quotes=True), literal("]"))


def test_good_members_pass() -> None:
    assert streamed(LIST, "[{1},{22}]") == (DONE, ["1", "22"], [])


def test_a_failed_whole_member_is_an_error_of_its_own_text_and_the_list_goes_on() -> None:
    assert streamed(LIST, '[{1},{"a": [1, "]"]},{3}]') == (DONE, ["1", "3"], ['{"a": [1, "]"]}'])


def test_a_name_may_head_a_member() -> None:
    assert streamed(LIST, "[{1},f (x=1),{3}]") == (DONE, ["1", "3"], ["f (x=1)"])


def test_a_member_whose_brackets_do_not_close_fails_the_list() -> None:
    assert streamed(LIST, "[{1},{x]}]")[0] is FAILED
    assert streamed(LIST, "[{1},x]")[0] is FAILED


def test_a_member_still_open_needs_more_and_fails_at_the_end_of_input() -> None:
    assert streamed(LIST, '[{1},{x, "}', finish=False)[0] is NEED_MORE
    assert streamed(LIST, '[{1},{x, "}')[0] is FAILED


def test_a_bound_outside_a_string_ends_the_member_and_fails_the_list_at_once() -> None:
    """The list fails where the bound has arrived, before the end of the input: the text
    after it (a member's closing brace) is never waited for."""
    assert streamed(LIST, "[{1},{x <end> }]", finish=False)[0] is FAILED
    assert streamed(LIST, "[{1},{x [STOP] }]", finish=False)[0] is FAILED
    assert streamed(LIST, "[{1},{x <en", finish=False)[0] is NEED_MORE


def test_a_bound_inside_a_string_or_a_near_miss_is_part_of_the_member() -> None:
    assert streamed(LIST, '[{1},{x "<end>"},{3}]') == (DONE, ["1", "3"], ['{x "<end>"}'])
    assert streamed(LIST, "[{1},{x <en> [STOPS]},{3}]") == (
        DONE,
        ["1", "3"],
        ["{x <en> [STOPS]}"],
    )


def test_a_failure_before_a_cut_passes_through() -> None:
    uncommitted = seq(literal("["), judged(literal("{1}"), ()), literal("]"))
    assert streamed(uncommitted, "[{2}]")[0] is FAILED


def test_triple_quoted_strings_hide_quotes_and_brackets() -> None:
    text = '[{\'\'\'it\'s ) """\'\'\' """a"" ]"""}]'
    assert streamed(PY_LIST, text) == (DONE, [], [text[1:-1]])


SCANNED = [
    "f(a='x)', b=[1, {'k': \"]\"}])",
    '{"a": "\\"}"}',
    "g(a='''x''')",
    "g(a='')",
    "g(a=''')''')",
]


@pytest.mark.parametrize("text", SCANNED)
def test_a_scan_ends_at_the_last_closer_however_the_text_is_split(text: str) -> None:
    for split in range(len(text)):
        nesting = Nesting(triple_quotes=True)
        resume, done = nesting.scan(text[:split], 0, final=False)
        assert not done and resume <= split
        assert nesting.scan(text, resume, final=True) == (len(text), True)


def test_a_closer_that_closes_nothing_open_is_a_mismatch() -> None:
    with pytest.raises(Mismatch):
        Nesting(triple_quotes=False).scan("{[}", 0, final=True)


def test_a_raw_newline_ends_a_one_line_string_and_so_the_member() -> None:
    with pytest.raises(Mismatch):
        Nesting(triple_quotes=True).scan("g(a='x\ny')", 0, final=False)
    assert Nesting(triple_quotes=True).scan("g(a='''x\ny''')", 0, final=True) == (14, True)
