"""The strict, resumable JSON parser: values, errors at the earliest position, streamed text
and partial values, one-shot and under every chunking."""

from __future__ import annotations

import itertools
import json
import math
import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from protocall.combinators import (
    DONE,
    FAILED,
    NEED_MORE,
    Parser,
    Run,
    Text,
    end_of_input,
    seq,
    whitespace,
)
from protocall.testing import fed_and_resumed
from protocall.values import (
    json_object,
    json_string,
    json_value,
    partial_json,
)

# -- helpers ---------------------------------------------------------------------------------


def whole(parser: Parser[Any] | None = None) -> Parser[Any]:
    """`parser` (a `json_value` by default) that must span the whole text."""
    return (parser or json_value()) << end_of_input


def feed(parser: Parser[Any], chunks: list[str], finish: bool = True) -> tuple[Run[Any], str]:
    """Run `parser` over `chunks`; the run and the text it streamed."""
    run = parser.run()
    pieces: list[str] = []
    for chunk in chunks:
        if run.status is FAILED:
            break
        run.feed(chunk)
        pieces.extend(item.text for item in run.take() if isinstance(item, Text))
    if finish and run.status is not FAILED:
        run.finish()
        pieces.extend(item.text for item in run.take() if isinstance(item, Text))
    return run, "".join(pieces)


def parse(text: str, parser: Parser[Any] | None = None) -> Run[Any]:
    return feed(whole(parser), [text])[0]


def failure(text: str, parser: Parser[Any] | None = None) -> tuple[int, str]:
    run = parse(text, parser)
    assert run.status is FAILED, f"{text!r} was accepted"
    assert run.error is not None
    return run.error.position, run.error.expected


def same(a: Any, b: Any) -> bool:
    """Equal, with equal types (1 is not 1.0 or True) and float signs (-0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def grows(a: Any, b: Any) -> bool:
    """`b` extends `a`: a string extends, a container keeps its items and may gain more
    (only its last one may still grow), anything else stays the same."""
    if isinstance(a, str) and isinstance(b, str):
        return b.startswith(a)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) > len(b) or not all(map(same, a[:-1], b)):
            return False
        return not a or grows(a[-1], b[len(a) - 1])
    if isinstance(a, dict) and isinstance(b, dict):
        keys = list(a)
        if list(b)[: len(keys)] != keys or not all(same(a[k], b[k]) for k in keys[:-1]):
            return False
        return not keys or grows(a[keys[-1]], b[keys[-1]])
    return same(a, b)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({key for key, _ in pairs}) < len(pairs):
        raise ValueError("duplicate key")
    return dict(pairs)


def strict_accepts(text: str) -> bool:
    """The reference: `json.loads` without what it allows beyond RFC 8259 (surrounding
    whitespace, NaN and Infinity) and without duplicate keys."""
    if text != text.strip(" \t\n\r"):
        return False
    try:
        json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_reject_duplicates)
    except ValueError:
        return False
    return True


# -- strategies ------------------------------------------------------------------------------


class NumberText(str):
    """A number written as this exact text."""


NUMBER_TEXT = r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,24})?([eE][+-]?[0-9]{1,3})?"
characters = st.characters(exclude_categories=())  # surrogates included
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(10**40), 10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.from_regex(NUMBER_TEXT, fullmatch=True).map(NumberText),
    st.text(characters, max_size=12),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(characters, max_size=6), children, max_size=4),
    ),
    max_leaves=10,
)

SPACES = ["", "", "", " ", "\n", "\t", "\r\n", "  "]
SHORT_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r"}
SHORT_ESCAPES["\t"] = "t"


def u_escape(char: str, rng: random.Random) -> str:
    code = ord(char)
    units = (
        [code] if code < 0x10000 else [0xD800 + ((code - 0x10000) >> 10), 0xDC00 + (code & 0x3FF)]
    )
    hex_case = str.upper if rng.random() < 0.3 else str.lower
    return "".join("\\u" + hex_case(f"{unit:04x}") for unit in units)


def dump_string(text: str, rng: random.Random) -> str:
    out = ['"']
    for char in text:
        must = char in '"\\' or char < " "
        if char in SHORT_ESCAPES and (must or rng.random() < 0.3) and rng.random() < 0.7:
            out.append("\\" + SHORT_ESCAPES[char])
        elif must or rng.random() < 0.15:
            out.append(u_escape(char, rng))
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def dump(value: Any, rng: random.Random) -> str:
    """JSON text for `value`, with random whitespace and random escapes."""

    def space() -> str:
        return rng.choice(SPACES)

    if isinstance(value, dict):
        members = [
            f"{space()}{dump_string(k, rng)}{space()}:{space()}{dump(v, rng)}{space()}"
            for k, v in value.items()
        ]
        return "{" + (",".join(members) or space()) + "}"
    if isinstance(value, list):
        items = [f"{space()}{dump(v, rng)}{space()}" for v in value]
        return "[" + (",".join(items) or space()) + "]"
    if isinstance(value, str):
        return value if isinstance(value, NumberText) else dump_string(value, rng)
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)


@st.composite
def documents(draw: st.DrawFn) -> str:
    text = dump(draw(values), draw(st.randoms(use_true_random=False)))
    assume(strict_accepts(text))  # e.g. two keys that decode the same once escaped
    return text


@st.composite
def random_chunks(draw: st.DrawFn, text: str) -> list[str]:
    if len(text) < 2:
        return [text]
    cuts = sorted(set(draw(st.lists(st.integers(1, len(text) - 1), max_size=len(text)))))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def chunkings(text: str, data: st.DataObject) -> list[list[str]]:
    """One chunk, one character per chunk, and a random chunking."""
    return [[text], list(text), data.draw(random_chunks(text))]


MUTATION_CHARS = list(' \t\n\r{}[],:"\\/0123456789.eE+-abfnrtulsxAF\x00\x1f\x7fé€😀\ud800\u2028')


@st.composite
def mutated_documents(draw: st.DrawFn) -> str:
    text = draw(documents())
    kind = draw(st.sampled_from(["insert", "delete", "replace"]))
    at = draw(st.integers(0, len(text) - (kind != "insert")))
    char = draw(st.sampled_from(MUTATION_CHARS))
    if kind == "insert":
        return text[:at] + char + text[at:]
    return text[:at] + (char if kind == "replace" else "") + text[at + 1 :]


# -- properties ------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(documents(), st.data())
def test_valid_documents_give_what_json_loads_gives_under_every_chunking(
    text: str, data: st.DataObject
) -> None:
    expected = json.loads(text)
    for chunks in chunkings(text, data):
        run, streamed = feed(whole(), chunks)
        assert run.status is DONE, (chunks, run.error)
        assert same(run.value, expected)
        assert streamed == text


@settings(max_examples=30, deadline=None)
@given(documents())
def test_every_proper_prefix_of_a_valid_document_needs_more(text: str) -> None:
    run = whole().run()
    for char in text:
        assert run.feed(char) is NEED_MORE


@settings(max_examples=180, deadline=None)
@given(mutated_documents(), st.data())
def test_mutations_are_accepted_exactly_when_a_strict_reference_accepts_them(
    text: str, data: st.DataObject
) -> None:
    accepted = strict_accepts(text)
    outcomes = set()
    for chunks in chunkings(text, data):
        run, streamed = feed(whole(), chunks)
        if accepted:
            assert run.status is DONE, (chunks, run.error)
            assert same(run.value, json.loads(text))
        else:
            assert run.status is FAILED, chunks
            assert run.error is not None
            assert text.startswith(streamed)
            outcomes.add((run.error.position, run.error.expected, streamed))
    assert len(outcomes) <= 1, outcomes
    if outcomes:
        (position, _, _) = outcomes.pop()
        assert_fails_first_at(text, position)


@settings(max_examples=120, deadline=None)
@given(st.one_of(documents(), mutated_documents()), st.data())
def test_absorbers_do_what_a_resume_would(text: str, data: st.DataObject) -> None:
    """Strings and keys still arriving take deltas without resuming the parser: after every
    chunk the status and the items are a resume's, and so is the end (valid or not)."""
    fed, resumed = fed_and_resumed(whole(), data.draw(random_chunks(text)))
    assert fed == resumed


def assert_fails_first_at(text: str, position: int) -> None:
    """Up to `position` the text could still become valid; its next character cannot."""
    before, _ = feed(whole(), [text[:position]], finish=False)
    assert before.status is NEED_MORE
    if position < len(text):
        at, _ = feed(whole(), [text[: position + 1]], finish=False)
        assert at.status is FAILED
        assert at.error is not None and at.error.position == position


@settings(max_examples=40, deadline=None)
@given(documents(), st.data())
def test_partial_values_only_grow_and_end_as_the_value(text: str, data: st.DataObject) -> None:
    for chunks in chunkings(text, data)[1:]:
        run = whole().run()
        streamed = ""
        previous: Any = None
        for chunk in chunks:
            run.feed(chunk)
            for item in run.take():
                assert isinstance(item, Text) and item.start == len(streamed)
                streamed += item.text
            if streamed:
                current = partial_json(streamed)
                assert previous is None or grows(previous, current), (previous, current)
                previous = current
        run.finish()
        assert same(partial_json(text), run.value)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@settings(max_examples=50, deadline=None)
@given(documents(), st.integers(1, 60), st.integers(1, 4), st.data())
def test_limits_hold_under_every_chunking(
    text: str, max_size: int, max_depth: int, data: st.DataObject
) -> None:
    deep = depth(json.loads(text)) > max_depth
    outcomes = set()
    for chunks in chunkings(text, data):
        run, streamed = feed(whole(json_value(max_size=max_size, max_depth=max_depth)), chunks)
        if len(text) <= max_size and not deep:
            assert run.status is DONE and same(run.value, json.loads(text))
            continue
        assert run.error is not None
        outcomes.add((run.error.position, run.error.expected, streamed))
        if len(text) > max_size and (not deep or run.error.position == max_size):
            assert run.error.position == max_size
            assert "longer than" in run.error.expected
        else:
            assert "nesting deeper than" in run.error.expected
    assert len(outcomes) <= 1, outcomes


# -- values ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "123456789012345678901234567890",
        "-18446744073709551617",
        "[9223372036854775807, -9223372036854775808, 18446744073709551616]",
        "1e400",
        "-1e400",
        "1e-400",
        "-0",
        "-0.0",
        "0.1e1",
        '"\\ud800"',
        '"\\udc00\\ud800x"',
        '"\\ud83d\\ude00"',
        '"\\uD83D\\uDE00"',
        '"\\ud83d\\u0041"',
        '{"a": [1, 2.5, "\\n\\t\\"\\\\\\/\\b\\f\\r", true, false, null], "b": {}}',
        "1" * 4300,
        "1" * 5000 + ".5",
    ],
)
def test_values_are_what_json_loads_gives(text: str) -> None:
    run = parse(text)
    assert run.status is DONE
    assert same(run.value, json.loads(text))


def test_an_integer_python_cannot_convert_fails_where_it_ends() -> None:
    position, expected = failure("[" + "1" * 5000 + "]")
    assert position == 5001
    assert "4300 digits" in expected


def test_surrounding_whitespace_is_not_consumed() -> None:
    assert failure(" 1") == (0, "a JSON value")
    assert seq(whitespace, json_value(), whitespace).parse(" [1] ")[1] == [1]


def test_a_top_level_value_ends_without_looking_past_it() -> None:
    for text in ("[1]", '"a"', "true", "{}"):
        run = json_value().run()
        run.feed(text + "x")
        assert run.status is DONE and run.rest == "x"


def test_a_number_ends_at_the_first_character_that_cannot_continue_it() -> None:
    run = json_value().run()
    run.feed("12")
    assert run.status is NEED_MORE
    run.feed("3x")
    assert run.status is DONE and run.value == 123 and run.rest == "x"
    run = json_value().run()
    run.feed("12")
    assert run.finish() is DONE and run.value == 12


def test_json_object_and_json_string_accept_only_their_kind() -> None:
    assert parse('{"a": 1}', json_object()).value == {"a": 1}
    assert failure("[1]", json_object()) == (0, "a JSON object")
    assert parse('"a\\u00e9"', json_string()).value == "aé"
    assert failure("1", json_string()) == (0, "a JSON string")


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("", 0, "a JSON value"),
        ('"ab', 3, '`"`'),
        ('"a\\', 3, 'an escape character (one of `"\\/bfnrtu`)'),
        ('"\\u12', 5, "a hex digit"),
        ('"\\ud83d', 7, '`"`'),
        ('"\\ud83d\\u', 9, "a hex digit"),
        ("-", 1, "a digit"),
        ("1.", 2, "a digit"),
        ("1e", 2, "a digit, `+` or `-`"),
        ("1e+", 3, "a digit"),
        ("tr", 2, "`true`"),
        ("fals", 4, "`false`"),
        ("n", 1, "`null`"),
        ("[", 1, "a JSON value or `]`"),
        ("[1", 2, "`,` or `]`"),
        ("[1,", 3, "a JSON value"),
        ("{", 1, "an object key or `}`"),
        ('{"a"', 4, "`:`"),
        ('{"a":', 5, "a JSON value"),
        ('{"a":1', 6, "`,` or `}`"),
        ('{"a":1,', 7, "an object key"),
        ('{"a":1 ', 7, "`,` or `}`"),
    ],
)
def test_truncated_text_fails_at_the_end_expecting_what_was_needed(
    text: str, position: int, expected: str
) -> None:
    assert failure(text) == (position, expected)


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("NaN", 0, "a JSON value"),
        ("Infinity", 0, "a JSON value"),
        ("-Infinity", 1, "a digit"),
        ("[1,]", 3, "a JSON value"),
        ('{"a":1,}', 7, "an object key"),
        ("[1 // c\n]", 3, "`,` or `]`"),
        ("/* c */ 1", 0, "a JSON value"),
        ("01", 1, "end of input"),
        ("[01]", 2, "`,` or `]`"),
        ("-01", 2, "end of input"),
        ("1.e5", 2, "a digit"),
        (".5", 0, "a JSON value"),
        ("+1", 0, "a JSON value"),
        ("['a']", 1, "a JSON value or `]`"),
        ("{'a': 1}", 1, "an object key or `}`"),
        ("{a: 1}", 1, "an object key or `}`"),
        ('"a\nb"', 2, "a string character (control characters must be escaped)"),
        ('"a\tb"', 2, "a string character (control characters must be escaped)"),
        ('"\\x41"', 2, 'an escape character (one of `"\\/bfnrtu`)'),
        ('"\\U0041"', 2, 'an escape character (one of `"\\/bfnrtu`)'),
        ('"\\u12G4"', 5, "a hex digit"),
        ("trUe", 2, "`true`"),
        ("[true false]", 6, "`,` or `]`"),
        ('{"a" 1}', 5, "`:`"),
        ('{"a": 1 "b": 2}', 8, "`,` or `}`"),
        ("[1}", 2, "`,` or `]`"),
        ('{"a": 1]', 7, "`,` or `}`"),
    ],
)
def test_invalid_text_fails_at_the_first_impossible_character(
    text: str, position: int, expected: str
) -> None:
    assert failure(text) == (position, expected)


def test_a_duplicate_key_fails_at_its_closing_quote() -> None:
    text = '{"a": 1, "b": {"a": 2}, "a": 3}'
    position, expected = failure(text)
    assert position == text.rindex('"a"') + 2
    assert expected == "a key other than `a` (duplicate key)"


def test_keys_are_compared_decoded() -> None:
    text = '{"a": 1, "\\u0061": 2}'
    assert failure(text)[0] == text.index('": 2')
    assert parse('{"a": 1, "A": 2, "a ": 3}').value == {"a": 1, "A": 2, "a ": 3}


def test_a_long_key_streamed_in_small_deltas_is_kept_whole_for_decoding() -> None:
    key = "k\\u00e9y " * 120  # about 1 K characters of raw key text, escapes included
    text = f'{{"{key}": 1, "x": "{key}"}}'
    run, streamed = feed(whole(), [text[i : i + 4] for i in range(0, len(text), 4)])
    assert run.value == json.loads(text)
    assert streamed == text


def test_nesting_deeper_than_max_depth_fails_at_the_opening_bracket() -> None:
    assert parse("[" * 128 + "]" * 128).status is DONE
    assert failure("[" * 129 + "]" * 129) == (
        128,
        "a value nested at most 128 deep (nesting deeper than 128)",
    )
    assert failure('{"a": [{"b": 1}]}', json_value(max_depth=2))[0] == 7


def test_a_value_longer_than_max_size_fails_where_the_limit_is_crossed() -> None:
    limited = json_value(max_size=5)
    assert parse("[123]", limited).value == [123]
    assert parse("12345", limited).value == 12345
    assert seq(limited, whitespace).parse("12345 ")[0] == 12345
    position, expected = failure("[1234]", limited)
    assert position == 5
    assert "JSON text longer than 5 characters" in expected
    assert failure("123456", limited)[0] == 5
    assert failure('"abcdefgh"', limited)[0] == 5
    assert failure("[1,2,3,4]", limited)[0] == 5


def test_limits_fail_at_the_same_place_under_every_chunking() -> None:
    limited = json_value(max_size=5)
    for text in ("[1234]", "123456", "1234.5", '"\\u1234"'):
        one, streamed_one = feed(whole(limited), [text])
        chars, streamed_chars = feed(whole(limited), list(text))
        assert one.error is not None and chars.error is not None
        assert one.error.position == chars.error.position == 5
        assert streamed_one == streamed_chars


def test_bad_limits_are_usage_errors() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        json_value(max_depth=0)
    with pytest.raises(ValueError, match="max_size"):
        json_value(max_size=0)


# -- streaming -------------------------------------------------------------------------------


def streamed_after(*chunks: str) -> str:
    return feed(json_value(), list(chunks), finish=False)[1]


def test_tokens_stream_only_once_complete() -> None:
    assert streamed_after("[12") == "["
    assert streamed_after("[12", ",") == "[12,"
    assert streamed_after("[tr") == "["
    assert streamed_after("[true") == "[true"
    assert streamed_after("[-1.5e") == "["
    assert streamed_after("12") == ""


def test_strings_stream_as_they_arrive_but_never_half_an_escape() -> None:
    assert streamed_after('["ab') == '["ab'
    assert streamed_after('["ab\\') == '["ab'
    assert streamed_after('["ab\\u00') == '["ab'
    assert streamed_after('["ab\\u00e9') == '["ab\\u00e9'
    assert streamed_after('["\\ud83d') == '["'
    assert streamed_after('["\\ud83d\\ude') == '["'
    assert streamed_after('["\\ud83d\\ude00') == '["\\ud83d\\ude00'
    assert streamed_after('["\\ud83dx') == '["\\ud83dx'
    assert streamed_after('["\\ud83d\\n') == '["\\ud83d\\n'


def test_the_validated_text_before_a_failure_is_streamed() -> None:
    assert feed(json_value(), ['[1, "ab\\x'])[1] == '[1, "ab'
    assert feed(json_value(), ["[1, 2.x"])[1] == "[1, "


def test_a_long_string_streams_in_pieces_while_the_buffer_stays_small() -> None:
    run = json_value().run()
    run.feed('{"content": "')
    run.take()
    sizes = []
    for _ in range(5000):
        run.feed("abc\\n")
        sizes.append(len(run._inp.buf))  # the text the run still holds
        assert len(run.take()) == 1
    run.feed('"}')
    assert run.status is DONE
    assert run.value == {"content": "abc\n" * 5000}
    assert max(sizes) < 1000


# -- partial values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "value"),
    [
        ("", None),
        ('"ab', "ab"),
        ("[", []),
        ("[1, ", [1]),
        ('[1, "x', [1, "x"]),
        ("{", {}),
        ('{"ke', {}),
        ('{"key"', {}),
        ('{"key": ', {}),
        ('{"key": "v', {"key": "v"}),
        ('{"key": "v", ', {"key": "v"}),
        ('{"a": [1, {"b": true', {"a": [1, {"b": True}]}),
        ('{"a": [1, {"b": {', {"a": [1, {"b": {}}]}),
        ('{"a": [1, {"b": {}}], "c', {"a": [1, {"b": {}}]}),
        ('["\\u00e9\\ud83d\\ude00', ["é😀"]),
        ("[123456789012345678901234567890, ", [123456789012345678901234567890]),
        ("[1e400 ", [math.inf]),
    ],
)
def test_partial_json_closes_what_is_open_and_leaves_out_unfinished_members(
    prefix: str, value: Any
) -> None:
    assert same(partial_json(prefix), value)


@pytest.mark.parametrize("prefix", ['{"a": [1, {"b": tru', "1,", "]", '{"a": 1}}', "[1 2"])
def test_partial_json_rejects_text_the_parser_would_not_have_streamed(prefix: str) -> None:
    with pytest.raises(ValueError):
        partial_json(prefix)
