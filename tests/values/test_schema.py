"""Typing raw argument text from a JSON schema or a type attribute (`protocall.schema`)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall.schema import (
    Coerced,
    always_string,
    coerce,
    coerce_json,
    coerce_typed,
    parameter_schema,
)

INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
STRING = {"type": "string"}
BOOLEAN = {"type": "boolean"}
OBJECT = {"type": "object"}
ARRAY = {"type": "array"}


def value(raw: str, schema: Any, **kwargs: Any) -> Any:
    result = coerce(raw, schema, **kwargs)
    assert result.ok, result.problem
    return result.value


def test_no_schema_keeps_the_raw_text() -> None:
    assert coerce(" 3\n", None) == Coerced(" 3\n")
    assert coerce("3", {}) == Coerced("3")
    assert coerce("3", {"description": "untyped"}) == Coerced("3")


@pytest.mark.parametrize("raw", ["3", "3.5", "true", "null", "[1]", "  padded  ", "2026-01-15"])
def test_string_parameters_keep_numeric_looking_and_keyword_text(raw: str) -> None:
    assert coerce(raw, STRING) == Coerced(raw)
    assert coerce(raw, {"enum": ["a", "b"]}) == Coerced(raw)
    assert coerce(raw, {"type": "string", "enum": ["x"]}) == Coerced(raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("3", 3),
        ("-7", -7),
        ("+3", 3),
        (" 42\n", 42),
        ("3.0", 3),
        ("007", 7),
        ("9" * 30, 10**30 - 1),
    ],
)
def test_integers(raw: str, expected: int) -> None:
    assert value(raw, INTEGER) == expected
    assert type(value(raw, INTEGER)) is int


@pytest.mark.parametrize("raw", ["3.5", "2026-01-15", "1e3", "", "three", "0x10", "٣", "1_000"])
def test_text_that_is_not_an_integer_stays_a_string_and_is_reported(raw: str) -> None:
    result = coerce(raw, INTEGER)
    assert result.value == raw
    assert not result.ok
    assert result.problem is not None and "integer" in result.problem


def test_an_integer_beyond_the_digit_limit_does_not_crash() -> None:
    raw = "9" * 5000
    result = coerce(raw, INTEGER)
    if result.ok:  # interpreters without an integer-string digit limit convert it
        assert result.value == 10**5000 - 1
    else:
        assert result.value == raw


@pytest.mark.parametrize(
    ("raw", "expected"), [("3", 3), ("3.5", 3.5), ("-0.25", -0.25), ("1e3", 1000.0), ("3.0", 3.0)]
)
def test_numbers_are_ints_for_integer_text_and_floats_otherwise(raw: str, expected: float) -> None:
    result = value(raw, NUMBER)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize("raw", ["1e400", "nan", "Infinity", "1.2.3", "--1", "."])
def test_non_finite_or_malformed_numbers_stay_strings(raw: str) -> None:
    assert coerce(raw, NUMBER) == Coerced(raw, False, f"expected number, got {json.dumps(raw)}")


@pytest.mark.parametrize(("raw", "expected"), [("true", True), ("False", False), (" TRUE ", True)])
def test_booleans_are_case_insensitive(raw: str, expected: bool) -> None:
    assert value(raw, BOOLEAN) is expected


def test_yes_is_not_a_boolean() -> None:
    assert not coerce("yes", BOOLEAN).ok


@pytest.mark.parametrize("schema", [INTEGER, NUMBER, BOOLEAN, OBJECT, ARRAY, {"type": "null"}])
@pytest.mark.parametrize("raw", ["null", "NULL", "Null"])
def test_null_in_any_case_is_none_for_types_that_are_not_strings(raw: str, schema: Any) -> None:
    assert coerce(raw, schema) == Coerced(None)


def test_null_is_none_when_a_union_allows_null_and_a_string_otherwise() -> None:
    assert value("null", {"type": ["string", "null"]}) is None
    assert value("null", {"anyOf": [{"type": "string"}, {"type": "null"}]}) is None
    assert value("null", {"type": "string", "nullable": True}) is None
    assert value("null", {"type": ["integer", "string"]}) == "null"


@pytest.mark.parametrize("schema", [INTEGER, NUMBER, BOOLEAN, OBJECT, ARRAY, {"type": "null"}])
def test_python_none_is_null_where_no_string_is_allowed(schema: Any) -> None:
    assert coerce("None", schema) == Coerced(None)
    assert coerce(" None\n", {"type": [schema["type"], "null"]}) == Coerced(None)


@pytest.mark.parametrize("schema", [STRING, {"type": ["string", "null"]}, {"enum": ["a"]}])
def test_python_none_stays_text_where_a_string_is_allowed(schema: Any) -> None:
    assert coerce("None", schema) == Coerced("None")


def test_none_in_another_case_is_not_python_none() -> None:
    assert not coerce("none", INTEGER).ok
    assert not coerce("NONE", BOOLEAN).ok


def test_objects_and_arrays_are_json() -> None:
    assert value('{"unit": "celsius", "n": [1, 2.5, null]}', OBJECT) == {
        "unit": "celsius",
        "n": [1, 2.5, None],
    }
    assert value("[1, 2]", ARRAY) == [1, 2]
    assert value("[12345678901234567890123]", ARRAY) == [12345678901234567890123]


def test_python_literal_reprs_are_accepted_as_plain_json_data() -> None:
    assert value("{'a': True, 'b': None, 'c': (1, 2)}", OBJECT) == {
        "a": True,
        "b": None,
        "c": [1, 2],
    }
    assert value("['x', 'y']", ARRAY) == ["x", "y"]


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        ('[\\"a\\", 1, null]', ARRAY, ["a", 1, None]),
        ('[{\\"path\\": \\"/tmp/x\\", \\"n\\": [2]}]', ARRAY, [{"path": "/tmp/x", "n": [2]}]),
        ('{\\"a\\": \\"say \\\\\\"hi\\\\\\"\\"}', OBJECT, {"a": 'say "hi"'}),
        ('"[\\"a\\", 2]"', ARRAY, ["a", 2]),
        ('"{\\"a\\": true}"', OBJECT, {"a": True}),
        ('[\\"a\\"]', {"type": ["array", "null"]}, ["a"]),
    ],
)
def test_escaped_json_is_the_json_it_spells(raw: str, schema: Any, expected: Any) -> None:
    assert value(raw, schema) == expected


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ('[\\"a\\"]', OBJECT),
        ('"{\\"a\\": 1}"', ARRAY),
        ('"[1, 2"', ARRAY),
        ('[\\"a\\", "b"]', ARRAY),
        ('"\\"[1]\\""', ARRAY),
    ],
)
def test_escaped_json_of_the_wrong_shape_stays_a_string(raw: str, schema: Any) -> None:
    result = coerce(raw, schema)
    assert (result.value, result.ok) == (raw, False)


def test_escaped_text_for_a_string_parameter_stays_verbatim() -> None:
    assert value('[\\"a\\"]', STRING) == '[\\"a\\"]'
    assert value('[\\"a\\"]', {"type": ["string", "array"]}) == ["a"]


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ("[1, 2]", OBJECT),
        ('{"a": 1}', ARRAY),
        ("{1, 2}", ARRAY),
        ("{1: 'a'}", OBJECT),
        ("[1e400]", ARRAY),
        ("[NaN]", ARRAY),
        ("{'a': 1j}", OBJECT),
        ("[" * 5000 + "]" * 5000, ARRAY),
        ("not json", OBJECT),
    ],
)
def test_structured_text_of_the_wrong_shape_stays_a_string(raw: str, schema: Any) -> None:
    result = coerce(raw, schema)
    assert (result.value, result.ok) == (raw, False)


def test_unions_try_non_string_types_first_then_the_string() -> None:
    union = {"type": ["string", "integer"]}
    assert value("12", union) == 12
    assert value("12a", union) == "12a"
    assert value("x", {"anyOf": [{"type": "object"}, {"type": "string"}]}) == "x"
    assert value('{"a": 1}', {"oneOf": [{"type": "string"}, {"type": "object"}]}) == {"a": 1}
    assert value("3", {"type": ["integer", "number"]}) == 3
    assert value("3.5", {"type": ["integer", "number"]}) == 3.5


def test_a_union_without_string_reports_every_type() -> None:
    result = coerce("x", {"type": ["integer", "boolean"]})
    assert (result.value, result.ok, result.problem) == (
        "x",
        False,
        'expected integer or boolean, got "x"',
    )


def test_enums_are_typed_by_their_values() -> None:
    assert value("2", {"enum": [1, 2, 3]}) == 2
    assert value("true", {"enum": [True, "auto"]}) is True
    assert value("auto", {"enum": [True, "auto"]}) == "auto"
    assert value("5", {"const": 5}) == 5


def test_local_refs_resolve_against_the_root() -> None:
    root = {"$defs": {"Count": {"type": "integer"}, "Loop": {"$ref": "#/$defs/Loop"}}}
    assert value("4", {"$ref": "#/$defs/Count"}, root=root) == 4
    assert value("4", {"anyOf": [{"$ref": "#/$defs/Count"}, {"type": "null"}]}, root=root) == 4
    assert value("4", {"$ref": "#/$defs/Missing"}, root=root) == "4"
    assert value("4", {"$ref": "#/$defs/Loop"}, root=root) == "4"
    assert value("4", {"$ref": "#/$defs/Count"}) == "4"


def test_lenient_type_names() -> None:
    assert value("4", {"type": "int64"}) == 4
    assert value("4.5", {"type": "float"}) == 4.5
    assert value("true", {"type": "bool"}) is True
    assert value("{}", {"type": "dict"}) == {}
    assert value("4", {"type": "something-else"}) == "4"


def test_a_long_problem_message_is_shortened() -> None:
    problem = coerce("x" * 1000, INTEGER).problem
    assert problem is not None and len(problem) < 80 and problem.endswith('…"')


@pytest.mark.parametrize(
    ("raw", "type_name", "expected"),
    [
        ("Paris", "string", "Paris"),
        (" 3 ", "string", " 3 "),
        ("null", "string", "null"),
        ("3", "number", 3),
        ("3.25", "number", 3.25),
        ("true", "boolean", True),
        ("null", "null", None),
        ('{"unit": "celsius"}', "object", {"unit": "celsius"}),
        ("[1]", "array", [1]),
        ("[1]", "json", [1]),
        ("3", "unknown", "3"),
    ],
)
def test_type_attributes(raw: str, type_name: str, expected: Any) -> None:
    assert coerce_typed(raw, type_name) == Coerced(expected)


def test_a_type_attribute_that_does_not_fit_keeps_the_raw_text() -> None:
    assert coerce_typed("Paris", "number") == Coerced(
        "Paris", False, 'expected number, got "Paris"'
    )
    assert coerce_typed("[1]", "object").value == "[1]"


def test_json_bodies() -> None:
    assert coerce_json(" 3 ") == Coerced(3)
    assert coerce_json('"quoted"') == Coerced("quoted")
    assert coerce_json("null") == Coerced(None)
    assert coerce_json("{oops") == Coerced("{oops", False, 'expected JSON, got "{oops"')


def test_parameter_schema() -> None:
    parameters = {"type": "object", "properties": {"days": INTEGER, "bad": 3}}
    assert parameter_schema(parameters, "days") == INTEGER
    assert parameter_schema(parameters, "missing") is None
    assert parameter_schema(parameters, "bad") is None
    assert parameter_schema({"properties": []}, "days") is None
    assert parameter_schema(None, "days") is None


def test_always_string() -> None:
    assert always_string(None)
    assert always_string(STRING)
    assert always_string({"enum": ["a", "b"]})
    assert not always_string({"type": ["string", "null"]})
    assert not always_string(INTEGER)
    root = {"$defs": {"S": STRING}}
    assert always_string({"$ref": "#/$defs/S"}, root=root)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_any_json_text_coerces_to_what_json_decodes(data: Any) -> None:
    text = json.dumps(data)
    assert coerce_json(text) == Coerced(json.loads(text))
    shape = {dict: OBJECT, list: ARRAY}.get(type(data))
    if shape is not None:
        assert value(text, shape) == json.loads(text)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_coercion_never_raises_and_failure_keeps_the_raw_text(raw: str) -> None:
    for schema in (INTEGER, NUMBER, BOOLEAN, OBJECT, ARRAY, {"type": ["integer", "null"]}):
        result = coerce(raw, schema)
        assert result.ok or (result.value == raw and result.problem)
        if result.ok and isinstance(result.value, float):
            assert math.isfinite(result.value)


@settings(max_examples=200, deadline=None)
@given(st.integers())
def test_integer_text_round_trips(number: int) -> None:
    assert value(str(number), INTEGER) == number
    assert value(str(number), NUMBER) == number
    assert value(str(number), {"type": ["string", "integer"]}) == number
