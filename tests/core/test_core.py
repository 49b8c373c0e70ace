"""The combinator core (DESIGN.md §4-§5): each combinator's answer at the end of what has
arrived (need more) and at the end of input (match or fail), error positions and messages,
hold-back and release, cuts, recovery, and the `Run` API. Every case is checked one-shot and
streamed (one chunk, one character per chunk, two- and three-character chunks) with the same
result; random chunkings of random grammars are in `test_properties.py`."""

from __future__ import annotations

import json
import tracemalloc
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocall.combinators import (
    DONE,
    ERROR,
    FAILED,
    NEED_MORE,
    Close,
    Item,
    Open,
    ParseError,
    Parser,
    Recovered,
    Run,
    Text,
    UsageError,
    alt,
    as_text,
    cut,
    dispatch,
    emit,
    end_of_input,
    fail,
    forward,
    generate,
    json_escaped,
    literal,
    many,
    markers,
    not_followed_by,
    optional,
    peek,
    recover,
    regex,
    separated_runs,
    seq,
    skip_many,
    success,
    tag,
    until,
    whitespace,
)
from protocall.combinators.stream import Input
from protocall.shortcuts import enabled
from protocall.shortcuts.absorbers import marker_starts
from protocall.testing import chunkings as random_chunkings
from protocall.testing import fed_and_resumed

# -- helpers ---------------------------------------------------------------------------------

shortcut = pytest.mark.skipif(
    not enabled(), reason="what a shortcut does (PROTOCALL_SHORTCUTS=0 turns them off)"
)
"""A test of what a shortcut does, beyond the combinators' meaning."""


def merge_text(items: list[Item]) -> list[Item]:
    """Adjacent `Text` items joined: how text is split into items depends on the chunks."""
    merged: list[Item] = []
    for item in items:
        last = merged[-1] if merged else None
        if isinstance(item, Text) and isinstance(last, Text):
            merged[-1] = Text(last.text + item.text, last.start)
        else:
            merged.append(item)
    return merged


def normal(value: Any) -> Any:
    """`value` with `Recovered` regions as comparable tuples."""
    if isinstance(value, Recovered):
        failure = value.failure
        return ("recovered", value.raw, value.start, value.truncated, failure.position)
    if isinstance(value, tuple | list):
        return type(value)(map(normal, value))
    return value


@dataclass
class Outcome:
    status: Any
    value: Any
    error: tuple[Any, ...] | None
    items: list[Item]


def drive(parser: Parser[Any], chunks: list[str], finish: bool = True) -> Outcome:
    """Feed `chunks` to a run of `parser` (then finish it), collecting what it emits."""
    run = parser.run()
    items: list[Item] = []
    for chunk in chunks:
        if run.status is FAILED:
            break
        run.feed(chunk)
        items += run.take()
    if finish and run.status is not FAILED:
        run.finish()
        items += run.take()
    error = run.error
    summary = None
    if error is not None:
        fields = (error.line, error.column, error.expected, error.context, error.committed)
        summary = (error.position, *fields)
    items = [Close(i.tag, i.end, normal(i.value)) if isinstance(i, Close) else i for i in items]
    return Outcome(run.status, normal(run.value), summary, merge_text(items))


def chunkings(text: str) -> list[list[str]]:
    every = [[text[i : i + n] for i in range(0, len(text), n)] for n in (1, 2, 3)]
    return [[text], *every]


def streamed(parser: Parser[Any], text: str, finish: bool = True) -> Outcome:
    """The outcome of `parser` over `text`, checked to be the same under every chunking."""
    outcomes = [drive(parser, chunks, finish) for chunks in chunkings(text)]
    for other in outcomes[1:]:
        assert other == outcomes[0]
    return outcomes[0]


def accepts(parser: Parser[Any], text: str) -> Any:
    """`parser.parse(text)`, checked against streamed runs of `parser` up to end of input."""
    value = parser.parse(text)
    outcome = streamed(seq(parser, end_of_input), text)
    assert outcome.status is DONE
    assert outcome.value == (normal(value), None)
    return value


def rejects(parser: Parser[Any], text: str) -> ParseError:
    """The `ParseError` of `parser.parse(text)`, checked against streamed runs."""
    with pytest.raises(ParseError) as caught:
        parser.parse(text)
    error = caught.value
    outcome = streamed(seq(parser, end_of_input), text)
    assert outcome.status is FAILED
    assert outcome.error is not None
    assert outcome.error[0] == error.position
    assert outcome.error[3] == error.expected
    return error


def status_after(parser: Parser[Any], text: str) -> Any:
    """The status once `text` has arrived (no end of input), the same under every chunking."""
    return streamed(parser, text, finish=False).status


def emitted(parser: Parser[Any], *chunks: str) -> list[list[Item]]:
    """What each feed of `chunks` made `take` return (no end of input)."""
    run = parser.run()
    return [fed(run, chunk).take() for chunk in chunks]


# -- literal ---------------------------------------------------------------------------------


def test_literal_matches_exactly_and_gives_its_text() -> None:
    assert accepts(literal("</think>"), "</think>") == "</think>"


def test_literal_needs_more_while_what_arrived_is_a_prefix() -> None:
    assert status_after(literal("</think>"), "</th") is NEED_MORE


def test_literal_fails_at_the_first_character_that_differs() -> None:
    error = rejects(literal("</think>"), "</thonk>")
    assert (error.position, error.expected, error.got) == (4, "`</think>`", "`onk>`")


def test_literal_cut_off_by_the_end_of_input_fails_there() -> None:
    error = rejects(literal("</think>"), "</th")
    assert (error.position, error.got) == (4, "end of input")
    assert error.at_end_of_input


def test_literal_shows_control_characters_escaped() -> None:
    assert rejects(literal("a\nb"), "a\nc").expected == "`a\\nb`"


def test_literal_must_not_be_empty() -> None:
    with pytest.raises(ValueError):
        literal("")


# -- regex -----------------------------------------------------------------------------------


def test_regex_run_reaching_the_end_of_what_arrived_needs_more() -> None:
    assert status_after(regex("[a-z_]+"), "get_weather") is NEED_MORE


def test_regex_run_ends_where_another_character_follows() -> None:
    assert streamed(regex("[a-z_]+"), "get_weather(", finish=False).value == "get_weather"


def test_regex_run_at_the_end_of_input_is_what_arrived() -> None:
    assert accepts(regex("[a-z_]+"), "get_weather") == "get_weather"


def test_regex_without_a_match_fails_at_its_start() -> None:
    error = rejects(seq(literal("("), regex("[0-9]+")), "(x")
    assert (error.position, error.expected, error.got) == (1, "/[0-9]+/", "`x`")


def test_regex_value_is_the_chosen_group() -> None:
    assert accepts(regex(r"([a-z]+)\d*", group=1), "abc42") == "abc"


def test_empty_regex_match_decides_once_the_next_character_arrives() -> None:
    assert status_after(seq(whitespace, literal("x")), "  ") is NEED_MORE
    assert accepts(seq(whitespace, literal("x")), "x") == ("", "x")


# -- seq, map, bind, generate, forward ------------------------------------------------------


def test_seq_gives_the_tuple_of_values() -> None:
    assert accepts(seq(literal("<"), regex("[a-z]+"), literal(">")), "<b>") == ("<", "b", ">")


def test_seq_fails_where_its_element_fails() -> None:
    assert rejects(seq(literal("<"), regex("[a-z]+"), literal(">")), "<b]").position == 2


def test_map_result_then_skip_transform_values() -> None:
    number = regex("[0-9]+").map(int)
    assert accepts(number, "42") == 42
    assert accepts(literal("yes").result(True), "yes") is True
    assert accepts(literal("(") >> number << literal(")"), "(7)") == 7


def test_bind_chooses_the_next_parser_from_a_value() -> None:
    repeated = regex("[a-z]").bind(lambda char: literal(char.upper()))
    assert accepts(repeated, "bB") == "B"
    assert rejects(repeated, "bA").position == 1


def test_generate_runs_a_sequential_parser_written_as_a_generator() -> None:
    @generate
    def pair() -> Any:
        key = yield regex("[a-z]+")
        yield literal("=")
        value = yield regex("[0-9]+").map(int)
        return {key: value}

    assert accepts(pair, "x=12") == {"x": 12}
    assert rejects(pair, "x=y").position == 2


def test_forward_defines_a_recursive_grammar() -> None:
    nested = forward()
    nested.define(
        alt(seq(literal("("), many(nested), literal(")")).map(lambda v: v[1]), literal("x"))
    )
    assert accepts(nested, "(x(x)())") == ["x", ["x"], []]
    assert rejects(nested, "(x(x)").at_end_of_input


def test_forward_used_before_define_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        forward().parse("x")


def test_desc_names_a_parser_in_errors() -> None:
    assert rejects(regex("[a-z]+").desc("a name"), "1").expected == "a name"


# -- end_of_input, success, fail -------------------------------------------------------------


def test_end_of_input_needs_more_while_the_stream_is_open() -> None:
    assert status_after(end_of_input, "") is NEED_MORE
    assert streamed(end_of_input, "").status is DONE


def test_end_of_input_fails_where_more_text_follows() -> None:
    error = rejects(literal("ab"), "abc")
    assert (error.position, error.expected, error.got) == (2, "end of input", "`c`")


def test_success_consumes_nothing_and_fail_never_matches() -> None:
    assert accepts(success(3), "") == 3
    assert rejects(fail("a miracle"), "x").expected == "a miracle"


# -- alt -------------------------------------------------------------------------------------

THINK_OR_CALL = alt(literal("</think>"), literal("<tool_call>"))


def test_alt_takes_the_first_branch_that_matches() -> None:
    assert accepts(seq(alt(literal("a"), literal("ab")), regex("[a-z]*")), "ab") == ("a", "b")


def test_alt_needs_more_while_the_branch_it_tries_does() -> None:
    assert status_after(THINK_OR_CALL, "<") is NEED_MORE
    assert status_after(THINK_OR_CALL, "<tool") is NEED_MORE


def test_alt_failure_names_every_branch_that_failed_there() -> None:
    error = rejects(THINK_OR_CALL, "x")
    assert str(error) == "at 1:1: expected `</think>` or `<tool_call>`, got `x`"


def test_alt_cut_off_by_the_end_of_input_fails_there() -> None:
    error = rejects(THINK_OR_CALL, "<")
    assert (error.position, error.expected, error.got) == (
        1,
        "`</think>` or `<tool_call>`",
        "end of input",
    )


def test_alt_reports_the_branch_that_got_furthest() -> None:
    error = rejects(THINK_OR_CALL, "<tool_cell>")
    assert (error.position, error.expected) == (7, "`<tool_call>`")


def test_alt_holds_a_branch_output_until_it_is_decided() -> None:
    call = seq(literal("<"), tag("name", regex("[a-z]+")), literal(">"))
    parser = seq(alt(call, tag("text", until("#"))), literal("#"))
    assert emitted(parser, "<ab", ">") == [
        [],
        [Open("name", 1), Close("name", 3, "ab")],
    ]


def test_alt_drops_the_output_of_a_branch_that_failed() -> None:
    call = seq(literal("<"), tag("name", regex("[a-z]+")), literal(">"))
    outcome = streamed(alt(call, tag("text", until("#"))), "<ab!")
    assert outcome.items == [Open("text", 0), Text("<ab!", 0), Close("text", 4, "<ab!")]


def test_alt_last_branch_streams_its_output_straight_through() -> None:
    parser = alt(literal("zz"), tag("text", until("#")))
    assert emitted(parser, "abc") == [[Open("text", 0), Text("abc", 0)]]


def test_alt_needs_a_branch() -> None:
    with pytest.raises(ValueError):
        alt()


# -- many, optional --------------------------------------------------------------------------


def test_many_repeats_while_its_parser_matches() -> None:
    assert accepts(many(literal("ab")), "ababab") == ["ab", "ab", "ab"]
    assert accepts(many(literal("ab")), "") == []


def test_many_needs_more_while_a_repetition_is_undecided() -> None:
    assert status_after(many(literal("ab")), "aba") is NEED_MORE


def test_many_stops_at_a_repetition_that_matches_nothing() -> None:
    assert accepts(many(optional(literal("a"))), "aa") == ["a", "a", None]
    assert accepts(many(whitespace), "") == [""]


def test_many_drops_the_output_of_the_repetition_that_failed() -> None:
    parser = seq(many(seq(tag("a", literal("a")), literal("b"))), regex("[a-z]*"))
    outcome = streamed(parser, "abac")
    assert outcome.items == [Open("a", 0), Close("a", 1, "a")]
    assert outcome.value == ([("a", "b")], "ac")


_RUN_TEXTS = ("a", "b!", "ab", "!", " ", "<", "<c>x</c>", "</t>", "##!", "[e~")
_RUN_SEPARATORS = ("[e~[", "##", "")
_RUN_PARSERS = (
    until("[e~[", "##", "<c>", "</t>", nonempty=True, commit=True),  # a turn's text scan
    until("[e~[", "##", "<c>", "</t>", nonempty=True),  # no cut: a choice holds it
    seq(literal("a"), regex("[a-z ]*")),  # fails at the first character but `a`
    seq(literal("a"), cut, literal("b"), regex("[a-z]*")),  # `a!`: a committed error
)


@given(
    st.lists(
        st.tuples(st.sampled_from(_RUN_TEXTS), st.sampled_from(_RUN_SEPARATORS)), max_size=6
    ).map(lambda pairs: "".join(text + separator for text, separator in pairs)),
    st.data(),
)
def test_runs_do_what_the_loop_does(text: str, data: st.DataObject) -> None:
    """`runs` in a loop's choice emits, matches, fails and waits as the loop over a plain
    `tag` would (separators and runs read in one repetition instead of one each), under
    random chunkings: rivals before the separator, after it, one it shares a start with."""
    call = tag("call", seq(literal("<c>"), regex("[a-z]+"), literal("</c>")))
    shout = tag("shout", literal("##!"))  # before the separator, where it may match too
    end = tag("end", markers("[e~[", "##"))
    word = tag("word", literal("b!"))  # text to the run: a rival after a separator
    rivals = (call, shout, end, word, many(literal("</t>"), minimum=1))
    last = as_text(markers("<c>", "<"))

    def loop(text_run: Parser[Any]) -> Parser[Any]:
        return seq(skip_many(alt(*rivals, text_run, last)), regex(r"[\s\S]*"))

    chunks = data.draw(random_chunkings(text, ["[e~[", "##", "<c>", "</t>"]))
    for scan in _RUN_PARSERS:
        expected = drive(loop(tag("text", scan)), chunks)
        assert drive(loop(separated_runs("text", scan, rivals, end)), chunks) == expected


@shortcut
def test_runs_read_a_separated_run_in_one_repetition() -> None:
    scan = until("[e~[", nonempty=True, commit=True)
    end = tag("end", literal("[e~["))
    outcome = streamed(
        many(alt(end, separated_runs("text", scan, (end,), end))), "[e~[a[e~[b[e~[[e~[c"
    )
    assert outcome.value == ["[e~[", "b", "[e~[", "c"]  # a run's value is its last text's
    assert outcome.items == [
        *(Open("end", 0), Close("end", 4, "[e~[")),
        *(Open("text", 4), Text("a", 4), Close("text", 5, "a")),
        *(Open("end", 5), Close("end", 9, "[e~[")),
        *(Open("text", 9), Text("b", 9), Close("text", 10, "b")),
        *(Open("end", 10), Close("end", 14, "[e~[")),  # then the loop: a rival follows
        *(Open("end", 14), Close("end", 18, "[e~[")),
        *(Open("text", 18), Text("c", 18), Close("text", 19, "c")),
    ]
    word = tag("word", literal("b!"))  # after a separator, where a run could read it too
    parser = many(alt(end, word, separated_runs("text", scan, (end, word), end)))
    assert streamed(parser, "a[e~[b!").items[-2:] == [Open("word", 5), Close("word", 7, "b!")]


def test_skip_many_emits_what_many_does_and_keeps_no_values() -> None:
    repetition = seq(tag("a", literal("a")), literal("b"))
    kept, skipped = streamed(many(repetition), "abab"), streamed(skip_many(repetition), "abab")
    assert (skipped.items, skipped.value) == (kept.items, [])
    assert rejects(skip_many(literal("a"), minimum=2), "a").position == 1


def test_a_choice_opened_where_the_innermost_one_starts_is_held_in_it() -> None:
    """A repetition's alternatives open no choice of their own at its start (the
    repetition's holds nothing yet): a branch that fails there drops what it emitted, and
    the branch after it matches, as with a choice of their own."""
    parser = many(alt(seq(tag("x", until("b")), literal("b")), tag("y", regex("[a-z0-9]+c"))))
    run = Run(parser)
    run.feed("a1")
    assert [choice.out for choice in run.input.choices] == [[Open("x", 0), Text("a1", 0)]]
    run.feed("c")
    run.finish()
    assert run.take() == [Open("y", 0), Close("y", 3, "a1c")]
    assert streamed(parser, "a1b").items == [Open("x", 0), Text("a1", 0), Close("x", 2, "a1")]


def test_many_minimum_fails_where_a_required_repetition_fails() -> None:
    error = rejects(many(literal("a"), minimum=2), "a")
    assert (error.position, error.got) == (1, "end of input")


def test_optional_gives_the_default_when_its_parser_fails() -> None:
    assert accepts(seq(optional(literal("-"), "+"), regex("[0-9]+")), "5") == ("+", "5")


def test_optional_needs_more_while_its_parser_is_undecided() -> None:
    assert status_after(seq(optional(literal("<b>")), literal("<i>")), "<") is NEED_MORE


# -- earliest error ---------------------------------------------------------------------------
# The error is at the first position where no continuation could be valid: a repetition
# or an optional part that failed further along than what follows it says where.


def test_error_inside_an_unfinished_repetition_is_where_it_stopped() -> None:
    error = rejects(seq(many(literal("ab")), literal("c")), "abad")
    assert (error.position, error.expected, error.got) == (3, "`ab`", "`d`")


def test_error_after_an_optional_part_that_got_further() -> None:
    error = rejects(seq(optional(literal("ab")), literal("c")), "ad")
    assert (error.position, error.expected) == (1, "`ab`")


def test_error_at_the_same_position_expects_both() -> None:
    error = rejects(seq(many(literal("ab")), literal("c")), "abx")
    assert (error.position, error.expected) == (2, "`ab` or `c`")


def test_error_after_a_cut_is_not_before_a_branch_that_got_further() -> None:
    parser = alt(
        seq(literal("ab"), literal("c")), seq(literal("a"), cut, literal("x")), literal("z")
    )
    error = rejects(parser, "abd")
    assert (error.position, error.expected, error.committed) == (2, "`c`", True)


def test_lookahead_does_not_move_the_error() -> None:
    further = seq(optional(literal("abc")), literal("!"))
    assert rejects(seq(not_followed_by(further), literal("x")), "abd").position == 0
    looked = seq(peek(seq(optional(literal("abc")), literal("a"))), literal("ab"), literal("!"))
    assert rejects(looked, "abd").expected == "`!`"


# -- cut -------------------------------------------------------------------------------------

OPENER = seq(literal("<a>"), cut, literal("x"))


def test_failure_after_a_cut_is_committed_so_no_other_branch_is_tried() -> None:
    error = rejects(alt(OPENER, literal("<a>y")), "<a>y")
    assert (error.position, error.expected, error.committed) == (3, "`x`", True)
    assert accepts(alt(seq(literal("<a>"), literal("x")), literal("<a>y")), "<a>y") == "<a>y"


def test_cut_commits_every_enclosing_choice() -> None:
    inner = alt(OPENER, literal("<b>"))
    assert rejects(alt(seq(literal("["), inner), literal("[<a>y")), "[<a>y").committed


def test_cut_releases_the_output_held_by_undecided_choices() -> None:
    call = seq(
        literal("<"), tag("name", regex("[a-z]+")), literal(">"), cut, tag("body", until("#"))
    )
    parser = alt(call, tag("text", until("#")))
    assert emitted(parser, "<ab", ">", "xy") == [
        [],
        [Open("name", 1), Close("name", 3, "ab"), Open("body", 4)],
        [Text("xy", 4)],
    ]


def test_many_does_not_stop_at_a_repetition_that_failed_after_a_cut() -> None:
    assert rejects(many(OPENER), "<a>x<a>y").committed
    assert not rejects(many(seq(literal("<a>"), literal("x"))), "<a>x<a>y").committed


def test_optional_part_that_failed_after_a_cut_is_an_error() -> None:
    error = rejects(seq(optional(OPENER), literal("<a>y")), "<a>y")
    assert (error.position, error.committed) == (3, True)


# -- recover ---------------------------------------------------------------------------------

CALL = recover(
    tag("call", seq(literal("<c>"), cut, tag("name", regex("[a-z]+")), literal("</c>"))),
    until("</c>", emit=False).then(optional(literal("</c>"))),
)
TURN = many(alt(CALL, tag("text", until("<c>", nonempty=True))))


def error_nodes(items: list[Item]) -> list[Any]:
    return [item.value for item in items if isinstance(item, Close) and item.tag == ERROR]


def test_recover_turns_a_committed_failure_into_an_error_node() -> None:
    outcome = streamed(seq(TURN, end_of_input), "hi<c>ab!x</c>ok")
    assert outcome.status is DONE
    (recovered,) = error_nodes(outcome.items)
    assert recovered == ("recovered", "<c>ab!x</c>", 2, False, 7)
    assert outcome.items[3:] == [
        Open("call", 2),
        Open("name", 5),
        Close("name", 7, "ab"),
        Open(ERROR, 2),
        Text("<c>ab!x</c>", 2),
        Close(ERROR, 13, recovered),
        Open("text", 13),
        Text("ok", 13),
        Close("text", 15, "ok"),
    ]


def test_recovered_region_cut_off_by_the_end_of_input_is_truncated() -> None:
    outcome = streamed(seq(TURN, end_of_input), "hi<c>ab")
    assert error_nodes(outcome.items) == [("recovered", "<c>ab", 2, True, 7)]


def test_recover_passes_a_failure_before_the_cut_through_as_a_backtrack() -> None:
    outcome = streamed(seq(TURN, end_of_input), "a<x")
    assert outcome.items == [Open("text", 0), Text("a<x", 0), Close("text", 3, "a<x")]


def test_recovered_failure_does_not_escape_to_enclosing_choices() -> None:
    value = accepts(alt(CALL, literal("<c>ab!</c>")), "<c>ab!</c>")
    assert isinstance(value, Recovered)
    assert value.raw == "<c>ab!</c>"


def test_recover_keeps_the_raw_text_the_buffer_dropped() -> None:
    call = recover(
        seq(literal("<c>"), cut, tag("body", until("</c>", "<!")), literal("</c>")),
        until("</c>", emit=False),
    )
    text = "<c>" + "x" * 5000 + "<!y"
    run = call.run()
    longest = 0
    for start in range(0, len(text), 4):
        run.feed(text[start : start + 4])
        longest = max(longest, len(run._inp.buf))
    run.finish()
    assert longest < 1000
    assert isinstance(run.value, Recovered)
    assert (run.value.raw, run.value.truncated) == (text, False)


def test_raw_text_wholly_dropped_by_the_buffer_is_read_back() -> None:
    """A span that ends before the buffer's start (a run's header, read once the resync
    has gone on past a release) is the dropped text, not a slice of the buffer."""
    inp = Input()
    barrier = inp.open_choice(0, barrier=True)
    text = "".join(f"{n:04d}" for n in range(2000))
    inp.append(text)
    inp.cut()  # the region committed: its text may be dropped, and is kept for `raw`
    inp.release(6000)
    assert inp.base == 6000
    assert inp.raw(10, 30) == text[10:30]
    assert inp.raw(5990, 6010) == text[5990:6010]
    inp.close_choice(barrier, keep_output=False)


# -- peek, not_followed_by, as_text -----------------------------------------------------------


def test_peek_matches_without_consuming_or_emitting() -> None:
    outcome = streamed(seq(peek(tag("t", literal("ab"))), regex("[a-z]+")), "abc")
    assert (outcome.value, outcome.items) == (("ab", "abc"), [])


def test_not_followed_by_succeeds_where_its_parser_fails() -> None:
    word = seq(not_followed_by(literal("end"), "a word"), regex("[a-z]+"))
    assert accepts(word, "edge")[1] == "edge"
    assert rejects(word, "end").expected == "a word"
    assert status_after(word, "en") is NEED_MORE


def test_as_text_emits_the_matched_text() -> None:
    assert streamed(as_text(literal("<b>")), "<b>").items == [Text("<b>", 0)]


# -- tag, emit -------------------------------------------------------------------------------


def test_tag_brackets_the_streamed_text_of_its_parser() -> None:
    assert emitted(tag("t", until("!")), "ab", "c!") == [
        [Open("t", 0), Text("ab", 0)],
        [Text("c", 2), Close("t", 3, "abc")],
    ]


def test_failure_inside_tags_names_what_was_open() -> None:
    error = rejects(tag("call", seq(literal("<c>"), tag("args", literal("{}")))), "<c>{")
    assert error.context == ("call", "args")
    assert str(error) == "at 1:5 (inside call > args): expected `{}`, got end of input"


def test_emit_is_a_zero_width_node() -> None:
    outcome = streamed(seq(literal("a"), emit("k", 5)), "a")
    assert outcome.value == ("a", 5)
    assert outcome.items == [Open("k", 1), Close("k", 1, 5)]


# -- dispatch --------------------------------------------------------------------------------

NAME = regex("[a-z_]+")
ARGS = {
    "get_weather": seq(literal("("), regex("[a-z]+"), literal(")")),
    "get_weather_forecast": seq(literal("("), regex("[0-9]+"), literal(")")),
}


def test_dispatch_parses_the_key_then_its_parser() -> None:
    assert accepts(dispatch(NAME, ARGS), "get_weather(paris)") == (
        "get_weather",
        ("(", "paris", ")"),
    )
    assert accepts(dispatch(NAME, ARGS), "get_weather_forecast(3)")[0] == "get_weather_forecast"


def test_dispatch_key_is_decided_only_once_its_terminator_arrives() -> None:
    parser = dispatch(tag("name", NAME), ARGS)
    assert emitted(parser, "get_weather", "(") == [
        [Open("name", 0)],
        [Close("name", 11, "get_weather")],
    ]
    assert status_after(parser, "get_weather") is NEED_MORE


def test_dispatch_unknown_key_fails_at_its_start_naming_the_keys() -> None:
    error = rejects(seq(literal("!"), dispatch(NAME, ARGS)), "!get_time()")
    assert (error.position, error.got) == (1, "`get_time()`")
    assert error.expected == "one of `get_weather`, `get_weather_forecast`"


def test_dispatch_lists_at_most_six_keys() -> None:
    table = {name: success(None) for name in "abcdefgh"}
    expected = rejects(dispatch(NAME, table), "z").expected
    assert expected == "one of `a`, `b`, `c`, `d`, `e`, `f`, …"


def test_dispatch_default_supplies_a_parser_for_other_keys() -> None:
    parser = dispatch(NAME, ARGS, default=lambda key: success(key.upper()))
    assert accepts(parser, "other") == ("other", "OTHER")


# -- until -----------------------------------------------------------------------------------

CONTENT = until("<tool_call>", "</think>")


def test_until_gives_the_text_before_the_earliest_marker() -> None:
    outcome = streamed(CONTENT, "Hi</think><tool_call>", finish=False)
    assert (outcome.status, outcome.value) == (DONE, "Hi")
    assert streamed(CONTENT, "Hi<tool_call></think>", finish=False).value == "Hi"


def test_until_holds_back_a_tail_that_could_start_a_marker() -> None:
    assert emitted(CONTENT, "Hi <tool_ca") == [[Text("Hi ", 0)]]


def test_until_releases_the_held_tail_when_the_next_input_rules_the_marker_out() -> None:
    assert emitted(CONTENT, "Hi <tool_ca", "t") == [[Text("Hi ", 0)], [Text("<tool_cat", 3)]]


def test_until_stops_at_the_marker_the_held_tail_became() -> None:
    run = CONTENT.run()
    assert fed(run, "Hi <tool_ca").take() == [Text("Hi ", 0)]
    assert fed(run, "ll>").take() == []
    assert (run.status, run.value, run.end, run.rest) == (DONE, "Hi ", 3, "<tool_call>")


def test_until_releases_the_held_tail_at_the_end_of_input() -> None:
    run = CONTENT.run()
    run.feed("Hi <tool_ca")
    run.take()
    assert run.finish() is DONE and run.take() == [Text("<tool_ca", 3)]
    assert run.value == "Hi <tool_ca"


def test_until_streams_each_character_once_and_never_a_marker() -> None:
    run = CONTENT.run()
    pieces = []
    for char in "a<b</thin</think>":
        pieces += [item.text for item in fed(run, char).take() if isinstance(item, Text)]
    assert pieces == ["a", "<b", "</thin"]
    assert run.value == "a<b</thin"


def test_until_overlapping_markers_where_one_is_a_prefix_of_another() -> None:
    parser = until("<a", "<ab>")
    assert streamed(parser, "x<ab>", finish=False).value == "x"
    assert emitted(parser, "x<") == [[Text("x", 0)]]
    assert streamed(parser, "x<b", finish=False).status is NEED_MORE
    assert streamed(parser, "x<a", finish=False).value == "x"


def test_until_waits_for_a_longer_marker_that_starts_before_a_complete_one() -> None:
    parser = until("abcd", "c")
    run = parser.run()
    assert fed(run, "xabc").take() == [Text("x", 0)]
    assert fed(run, "e").take() == [Text("ab", 1)]
    assert (run.value, run.end) == ("xab", 3)
    assert streamed(parser, "xabcd", finish=False).value == "x"


def test_until_a_repeated_marker_character_is_held_once() -> None:
    assert streamed(until("<tool_call>"), "a<<tool_call>", finish=False).value == "a<"


def test_until_without_emit_streams_nothing() -> None:
    assert streamed(until("#", emit=False), "abc").items == []


def test_until_required_fails_at_the_end_of_input_expecting_a_marker() -> None:
    error = rejects(until("</think>", "<tool_call>", required=True), "abc")
    assert str(error) == "at 1:4: expected `</think>` or `<tool_call>`, got end of input"


def test_until_nonempty_fails_where_the_text_would_be_empty() -> None:
    error = rejects(seq(literal("x"), until("#", nonempty=True)), "x#")
    assert (error.position, error.expected) == (1, "text")
    assert accepts(until("#", nonempty=True), "a") == "a"


def test_until_commit_cuts_once_it_has_consumed_text() -> None:
    text = seq(tag("text", until("!", commit=True)), literal("!"))
    assert rejects(alt(text, literal("ab?")), "ab?").committed
    assert emitted(alt(text, literal("ab?")), "ab") == [[Open("text", 0), Text("ab", 0)]]
    assert emitted(alt(seq(tag("text", until("!")), literal("!")), literal("ab?")), "ab") == [[]]


@shortcut
def test_until_emits_a_plain_marker_with_the_text_around_it() -> None:
    """A marker the guard rules out is text, in the one `Text` item of all that a delta
    decides; the text before a marker whose deciding characters have not arrived is
    emitted at once, the marker held."""
    scan = until("<", text_markers=(literal("<call>"), ["<"]))
    assert emitted(scan, "a<b<c", "<ca", "x") == [
        [Text("a<b", 0)],
        [Text("<c", 3)],
        [Text("<cax", 5)],
    ]
    assert accepts(seq(scan, literal("<call>")), "a<b<call>") == ("a<b", "<call>")


def test_json_escaped_streams_text_as_the_body_of_a_json_string() -> None:
    code = 'print("a\\nb")\n\té \x01' + "x = 1\n" * 50
    outcome = streamed(json_escaped(until("<e>")), code + "<e>", finish=False)
    assert outcome.value == code
    texts = [item.text for item in outcome.items if isinstance(item, Text)]
    assert texts == [json.dumps(code, ensure_ascii=False)[1:-1]]


def test_until_needs_a_marker() -> None:
    with pytest.raises(ValueError):
        until()
    with pytest.raises(ValueError):
        until("a", "")


# -- buffer compaction -------------------------------------------------------------------------

MARKERS = ("<tool_call>", "</think>", "<|im_end|>")
SCANNER = many(alt(*map(literal, MARKERS), seq(cut, tag("content", until(*MARKERS)))))


def test_a_million_characters_stream_through_a_small_buffer() -> None:
    sentence = "The <b>quick</b> fox said <tool and </thin, then stopped.<|im_end|>\n"
    text = sentence * (1_000_000 // len(sentence))
    run = SCANNER.run()
    pieces = []
    longest = 0
    for start in range(0, len(text), 7):
        run.feed(text[start : start + 7])
        longest = max(longest, len(run._inp.buf))
        pieces += [item.text for item in run.take() if isinstance(item, Text)]
    run.finish()
    pieces += [item.text for item in run.take() if isinstance(item, Text)]
    assert run.status is DONE
    assert longest <= 600
    assert "".join(pieces) == text.replace("<|im_end|>", "")


def test_a_long_span_costs_about_its_own_size_in_memory() -> None:
    text = "plain prose with a <b> now and then\n" * 6000
    run = tag("content", until(*MARKERS)).run()
    tracemalloc.start()
    try:
        for start in range(0, len(text), 4):
            run.feed(text[start : start + 4])
            run.take()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 3 * len(text)
    run.finish()
    assert run.value == text


def test_line_and_column_stay_exact_after_the_buffer_dropped_text() -> None:
    prose = "".join(f"line {n} says <tool but not more\n" for n in range(5000))
    text = prose + "  tail</think>?"
    parser = seq(tag("content", until("</think>")), literal("</think>"), end_of_input)
    run = parser.run()
    for start in range(0, len(text), 4):
        run.feed(text[start : start + 4])
    run.finish()
    assert run._inp.base > 0
    assert run.error is not None
    assert (run.error.position, run.error.line, run.error.column) == (len(text) - 1, 5001, 15)


# -- Run -------------------------------------------------------------------------------------


def test_feed_and_finish_return_the_status() -> None:
    run = literal("ab").run()
    assert run.feed("a") is NEED_MORE and run.status is NEED_MORE
    assert run.finish() is FAILED and run.status is FAILED


def test_a_done_run_keeps_what_follows_as_the_rest() -> None:
    run = literal("ab").run()
    run.feed("abc")
    assert (run.status, run.value, run.end, run.rest) == (DONE, "ab", 2, "c")
    assert run.feed("d") is DONE and run.rest == "cd"
    assert run.offset == 4


def test_rest_before_done_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        _ = literal("ab").run().rest


def test_feeding_a_finished_run_is_a_usage_error() -> None:
    run = literal("ab").run()
    run.feed("ab")
    run.finish()
    with pytest.raises(UsageError):
        run.feed("x")


def test_finishing_twice_is_a_usage_error() -> None:
    run = literal("ab").run()
    run.finish()
    with pytest.raises(UsageError):
        run.finish()


def test_feeding_a_failed_run_is_a_usage_error() -> None:
    run = literal("ab").run()
    run.feed("x")
    assert run.status is FAILED
    with pytest.raises(UsageError):
        run.feed("y")


def test_feeding_nothing_changes_nothing() -> None:
    assert end_of_input.run().feed("") is NEED_MORE
    run = tag("t", until("!")).run()
    run.feed("ab")
    run.take()
    assert fed(run, "").take() == []
    assert fed(run, "!").take() == [Close("t", 2, "ab")]


def test_take_returns_each_item_once() -> None:
    run = tag("t", until("!")).run()
    run.feed("ab")
    assert run.take() == [Open("t", 0), Text("ab", 0)]
    assert run.take() == []


def test_parse_error_carries_line_column_and_an_excerpt() -> None:
    error = rejects(
        seq(until("#"), literal("#"), literal("!")), "one\ntwo\nth#ree and more text here"
    )
    assert (error.position, error.line, error.column) == (11, 3, 4)
    assert error.got == "`ree and more text here`"
    long = rejects(literal("a"), "b" * 40)
    assert long.got == "`" + "b" * 24 + "`…"


def fed(run: Run[Any], text: str) -> Run[Any]:
    """`run` after feeding `text` (`feed` returns the status; these tests read the run)."""
    run.feed(text)
    return run


_MARKER_TEXT = st.text(alphabet="<|/\nab ", min_size=1, max_size=5)


@given(
    st.frozensets(_MARKER_TEXT, min_size=1, max_size=4), st.text(alphabet="<|/\nab c", max_size=8)
)
def test_marker_starts_never_misses_a_marker_start(markers: frozenset[str], text: str) -> None:
    """When `marker_starts` clears a delta, no marker occurs in it and none starts in it and
    runs past its end: absorbing the delta whole is what a resumed scan would do."""
    pattern, starter = marker_starts(markers)
    cleared = starter not in text if starter is not None else pattern.search(text) is None
    if cleared:
        for i in range(len(text)):
            assert not any(m.startswith(text[i:]) or text[i:].startswith(m) for m in markers)


def _outcome(parser: Parser[Any], chunks: list[str]) -> tuple[Any, ...]:
    run = Run(seq(parser, regex(r"[\s\S]*")))
    statuses = []
    for chunk in chunks:
        if run.status is FAILED:
            break
        statuses.append(run.feed(chunk))
    if run.status is not FAILED:
        run.finish()
    error = run.error
    where = None if error is None else (error.position, error.expected)
    return run.status, run.value, where, statuses


@given(
    st.lists(_MARKER_TEXT, min_size=1, max_size=4),
    st.text(alphabet="<|/\nab", max_size=6),
)
def test_markers_match_as_an_alt_of_literals(texts: list[str], text: str) -> None:
    """`markers` is an ordered `alt` of `literal`s: the same value, end, error and the same
    need-more answers after every chunk, in one chunk and per character."""
    for chunks in ([text], list(text)):
        expected = _outcome(alt(*map(literal, texts)), chunks)
        assert _outcome(markers(*texts), chunks) == expected


@pytest.mark.parametrize("token", ["[a-z_]+", r"[a-z]\w*"])  # a run of one class, and not
@given(chunks=st.lists(st.text(alphabet="ab_ 1(", min_size=1, max_size=3), max_size=6))
def test_a_waiting_token_absorbs_what_a_resume_would(token: str, chunks: list[str]) -> None:
    """A `regex` whose match reaches the end of the input buffers a delta over which it still
    does without resuming the tree: the outcome after every chunk is a resume's."""
    fed, resumed = fed_and_resumed(seq(regex(token), whitespace, literal("(")), chunks)
    assert fed == resumed


_UNDECIDED = many(
    alt(
        tag("call", seq(literal("<tool_call>"), regex("[a-z]+"), literal("</tool_call>"))),
        tag("think", literal("<think>")),
        tag("text", as_text(regex("[^<]+") | literal("<"))),
    )
)
"""A choice whose first branches wait on a marker that has only partly arrived (their glance
at `<tool_c` waits), before a text branch that would take the `<` at once."""


_UNDECIDED_PIECES = ["<tool_call>", "<think>", "<tool_c", "<th", "<", "ab", "</tool_call>"]


@given(st.lists(st.sampled_from(_UNDECIDED_PIECES), min_size=1, max_size=6), st.data())
def test_a_waiting_choice_absorbs_what_a_resume_would(
    pieces: list[str], data: st.DataObject
) -> None:
    """A choice waiting for the characters that decide which branch to try buffers a delta
    after which it would wait again without resuming the tree: the same outcome and output
    after every chunk as a resume's."""
    text = "".join(pieces)
    fed, resumed = fed_and_resumed(_UNDECIDED, data.draw(random_chunkings(text, ["<tool_call>"])))
    assert fed == resumed


def test_a_held_prefix_that_completes_a_shorter_marker_decides_at_once() -> None:
    """`ab` held back may still become `abc`, but complete `ab` ends the text, as resumed."""
    run = until("abc", "ab").run()
    run.feed("xa")
    assert (run.feed("b"), run.value) == (DONE, "x")


@given(st.lists(_MARKER_TEXT, min_size=1, max_size=4), st.data())
def test_a_held_marker_prefix_absorbs_what_a_resume_would(
    markers: list[str], data: st.DataObject
) -> None:
    """An `until` holding back a marker prefix buffers input that keeps it held without
    resuming the tree: the same outcome and output after every chunk as a resume's."""
    pieces = [*markers, *(m[:cut] for m in markers for cut in range(1, len(m))), "a", "\n"]
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=6)))
    fed, resumed = fed_and_resumed(until(*markers), data.draw(random_chunkings(text, markers)))
    assert fed == resumed
