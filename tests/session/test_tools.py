"""Declared tools (`protocall.tools`): schemas checked when the parser is created, type
aliases normalised for typing and validation alike, validators compiled once, and the
optional dependencies (Hypothesis, parsy) loaded only by what uses them."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocall
from protocall import UsageError, formats
from protocall.schema import JSON_TYPES, TYPE_ALIASES, coerce, json_type
from protocall.testing import chunkings, stream, verify
from protocall.tools import Tool, Tools, normalize_tools

QWEN = formats.get("qwen3-coder")
HERMES = formats.get("hermes")


def tool(tool_name: str, **properties: Any) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": tool_name, "parameters": parameters}}


def qwen_call(tool_name: str, **values: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in values.items())
    return f"<tool_call>\n<function={tool_name}>\n{body}</function>\n</tool_call><|im_end|>"


def hermes_call(name: str, arguments: str) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call><|im_end|>'


# -- a bad schema is a UsageError at creation, naming the tool and the path --------------------

BAD_SCHEMAS = [
    (
        tool("get_weather", days={"type": "intger"}),
        "tool 'get_weather': bad schema at parameters/properties/days/type: 'intger' is not a "
        "JSON Schema type (did you mean 'integer'?)",
    ),
    (
        tool("find", query={"type": "string", "pattern": "("}),
        "tool 'find': bad schema at parameters/properties/query/pattern: '(' is not a valid "
        "regex: missing ), unterminated subpattern at position 0",
    ),
    (
        {"name": "lookup", "parameters": {"type": "object", "required": "x"}},
        "tool 'lookup': bad schema at parameters/required: 'x' is not of type 'array'",
    ),
    (
        tool("mix", value={"type": ["string", "flaot"]}),
        "tool 'mix': bad schema at parameters/properties/value/type/1: 'flaot' is not a JSON "
        "Schema type (did you mean 'number'?)",
    ),
    (
        tool("odd", value={"type": "xyzzy"}),
        "tool 'odd': bad schema at parameters/properties/value/type: 'xyzzy' is not a JSON "
        "Schema type (expected one of: string, integer, number, boolean, null, object, array)",
    ),
    (
        tool("nested", items={"type": "array", "items": {"anyOf": [{"type": "strng"}]}}),
        "tool 'nested': bad schema at parameters/properties/items/items/anyOf/0/type: 'strng' "
        "is not a JSON Schema type (did you mean 'string'?)",
    ),
    (
        tool("ref", unit={"$ref": "#/$defs/Unit"}),
        "tool 'ref': bad schema at parameters/properties/unit/$ref: $ref '#/$defs/Unit' does "
        "not resolve within the schema",
    ),
    (
        {"name": "keys", "parameters": {"type": "object", "patternProperties": {"[": {}}}},
        "tool 'keys': bad schema at parameters/patternProperties: '[' is not a valid regex: "
        "unterminated character set at position 0",
    ),
    (
        {"name": "set", "parameters": {"type": "object", "required": {"a"}}},
        "tool 'set': parameters are not JSON data: Object of type set is not JSON serializable",
    ),
    (
        {"name": "listed", "parameters": ["not", "a", "schema"]},
        "tool 'listed': parameters must be a JSON schema object",
    ),
]


@pytest.mark.parametrize(("declared", "message"), BAD_SCHEMAS)
def test_a_bad_schema_is_a_usage_error_when_the_parser_is_created(
    declared: dict[str, Any], message: str
) -> None:
    for create in (
        lambda: HERMES.parser([declared]),
        lambda: QWEN.parser([declared], validate=False),
        lambda: protocall.parse("Hello.", "hermes", [declared]),
    ):
        with pytest.raises(UsageError) as raised:
            create()
        assert str(raised.value) == message


def test_a_tool_object_with_a_bad_schema_is_refused_by_tools() -> None:
    with pytest.raises(UsageError, match=r"tool 'x': bad schema at parameters/type: 'Str1ng'"):
        Tools([Tool("x", {"type": "Str1ng"})])


def test_type_names_are_checked_only_where_a_schema_is() -> None:
    """A property named `type`, or an enum value that looks like a schema, is not a type."""
    parameters = {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": [{"type": "intger"}, "a"]}},
        "$defs": {"type": {"type": "Integer"}},
        "default": {"type": "whatever"},
    }
    checked = Tools([Tool("t", parameters)])["t"].parameters
    assert checked["properties"] == parameters["properties"]
    assert checked["$defs"] == {"type": {"type": "integer"}}
    assert checked["default"] == {"type": "whatever"}


# -- aliases: one table for typing raw values and for validation ------------------------------


def test_the_alias_table_maps_onto_json_schema_types() -> None:
    assert set(TYPE_ALIASES.values()) <= {*JSON_TYPES, "json"}
    assert json_type("float") == json_type(" Float ") == json_type("DOUBLE") == "number"
    assert json_type("STRING") == "string" and json_type("int64") == "integer"
    assert json_type("intger") is None and json_type("floaty") is None and json_type(3) is None
    assert coerce("4", {"type": "intger"}).value == "4"  # no longer read as a prefix of `int`


def test_aliases_are_normalised_in_a_copy() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "ratio": {"type": "float"},
            "count": {"type": "Int", "nullable": True},
            "tags": {"type": "list", "items": {"type": "str"}},
            "blob": {"type": "any"},
            "either": {"type": ["float", "number", "null"]},
        },
        "required": ["ratio"],
    }
    original = repr(parameters)
    checked = normalize_tools([{"name": "t", "parameters": parameters}])
    assert checked is not None
    assert checked["t"].parameters == {
        "type": "object",
        "properties": {
            "ratio": {"type": "number"},
            "count": {"type": ["integer", "null"], "nullable": True},
            "tags": {"type": "array", "items": {"type": "string"}},
            "blob": {},
            "either": {"type": ["number", "null"]},
        },
        "required": ["ratio"],
    }
    assert repr(parameters) == original  # the caller's schema is not touched


def test_a_standard_schema_is_kept_as_given() -> None:
    parameters = {"type": "object", "properties": {"x": {"type": "number"}}}
    checked = normalize_tools([{"name": "t", "parameters": parameters}])
    assert checked is not None and checked["t"].parameters is parameters


ALIASED = [
    tool("measure", ratio={"type": "float"}, count={"type": "int"}, flag={"type": "bool"},
         options={"type": "dict"}, items={"type": "list"}, name={"type": "str"},
         maybe={"type": "Int", "nullable": True}),
]  # fmt: skip


def test_aliases_type_raw_values_one_shot_and_streamed() -> None:
    text = qwen_call(
        "measure", ratio="2.5", count="3", flag="true", options='{"a": 1}', items="[1, 2]",
        name="007", maybe="null",
    )  # fmt: skip
    message = verify(QWEN, text, tools=ALIASED)
    (call,) = message.tool_calls
    assert call.arguments == {"ratio": 2.5, "count": 3, "flag": True, "options": {"a": 1},
                              "items": [1, 2], "name": "007", "maybe": None}  # fmt: skip
    assert call.validation_errors == ()


def test_aliases_validate_like_their_json_schema_types() -> None:
    text = qwen_call("measure", ratio="two", count="3.5", maybe="7")
    (call,) = verify(QWEN, text, tools=ALIASED).tool_calls
    assert call.arguments == {"ratio": "two", "count": "3.5", "maybe": 7}
    assert call.validation_errors == (
        'argument `ratio`: expected number, got "two"; kept as a string',
        'argument `count`: expected integer, got "3.5"; kept as a string',
        "count: '3.5' is not of type 'integer'",
        "ratio: 'two' is not of type 'number'",
    )


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_alias_types_a_value_as_its_json_schema_type(data: st.DataObject) -> None:
    alias = data.draw(st.sampled_from(sorted(TYPE_ALIASES)), label="alias")
    spelled = data.draw(st.sampled_from([alias, alias.upper(), alias.title(), f" {alias} "]))
    raw, value = {
        "string": ("3", "3"),
        "integer": ("-12", -12),
        "number": ("2.5", 2.5),
        "boolean": ("false", False),
        "null": ("null", None),
        "object": ('{"k": [1]}', {"k": [1]}),
        "array": ("[true]", [True]),
        "json": ("[1]", "[1]"),  # `any`: no type constraint, so untyped like `{}`
    }[TYPE_ALIASES[alias]]
    tools = [tool("f", v={"type": spelled})]
    text = qwen_call("f", v=raw)
    chunks = data.draw(chunkings(text, QWEN.reserved), label="chunks")
    whole, split = stream(QWEN, [text], tools), stream(QWEN, chunks, tools)
    assert whole.merged_events == split.merged_events
    (call,) = split.message.tool_calls
    assert call.arguments == {"v": value} and call.validation_errors == ()


# -- validation: on by default, rejecting on request, never raising from feed() ----------------

TYPED = [tool("get_weather", location={"type": "string"}, days={"type": "integer"})]
INVALID = hermes_call("get_weather", '{"location": 3, "days": "two"}')


def test_validation_is_on_by_default() -> None:
    (call,) = verify(HERMES, INVALID, tools=TYPED).tool_calls
    assert call.validation_errors == (
        "days: 'two' is not of type 'integer'",
        "location: 3 is not of type 'string'",
    )


def test_validate_false_skips_the_schema_check() -> None:
    (call,) = stream(HERMES, list(INVALID), TYPED, validate=False).message.tool_calls
    assert call.arguments == {"location": 3, "days": "two"} and call.validation_errors == ()


@pytest.mark.parametrize("chunks", [[INVALID], list(INVALID)])
def test_reject_invalid_turns_a_violation_into_an_error(chunks: list[str]) -> None:
    message = stream(HERMES, chunks, TYPED, reject_invalid=True).message
    assert message.tool_calls == ()
    (error,) = message.errors
    assert error.code == "invalid_arguments"
    assert error.message == (
        "tool call `get_weather`: arguments violate the schema: "
        "days: 'two' is not of type 'integer'; location: 3 is not of type 'string'"
    )


RICH = [
    {
        "name": "plan",
        "parameters": {
            "type": "object",
            "$defs": {"Step": {"type": "object", "properties": {"n": {"type": "int"}}}},
            "properties": {
                "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                "code": {"type": "string", "pattern": "^[A-Z]+$"},
                "note": {"anyOf": [{"type": "str"}, {"type": "none"}]},
            },
            "required": ["steps"],
        },
    }
]


@settings(max_examples=60, deadline=None)
@given(
    arguments=st.fixed_dictionaries(
        {},
        optional={
            "steps": st.lists(st.fixed_dictionaries({"n": st.integers() | st.text(max_size=3)})),
            "code": st.text(max_size=5),
            "note": st.none() | st.text(max_size=5) | st.integers(),
        },
    ),
    data=st.data(),
)
def test_no_feed_raises_whatever_the_arguments(
    arguments: dict[str, Any], data: st.DataObject
) -> None:
    """Schema problems surface at creation; during the stream a violation is data."""
    import json

    text = hermes_call("plan", json.dumps(arguments))
    chunks = data.draw(chunkings(text, HERMES.reserved), label="chunks")
    for options in ({}, {"reject_invalid": True}):
        whole, split = (
            stream(HERMES, [text], RICH, **options),
            stream(HERMES, chunks, RICH, **options),
        )
        assert whole.message == split.message
    assert ("steps" in arguments) or whole.message.errors[0].code == "invalid_arguments"


def test_validators_are_built_with_the_parser() -> None:
    """The first completed call imports and compiles nothing: jsonschema loads when the
    parser for tools with schemas is created, and not for tools without one."""
    script = (
        "import sys, protocall\n"
        "from protocall import formats\n"
        "formats.get('hermes').parser([{'name': 'f'}])\n"
        "assert 'jsonschema' not in sys.modules\n"
        "formats.get('hermes').parser([{'name': 'f', 'parameters': {'type': 'object'}}])\n"
        "assert 'jsonschema' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


# -- optional dependencies: loaded by what uses them only -------------------------------------


def run_python(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )


def printed_without(missing: str, *statements: str) -> list[str]:
    """The lines `statements` print, run in turn after `import protocall` in a fresh
    interpreter where the `missing` modules cannot be imported; a statement that raises
    prints the exception's type and message instead."""
    script = f"import sys\nfor name in {missing.split()!r}: sys.modules[name] = None\n"
    script += "import protocall, protocall.combinators\n"
    for statement in statements:
        script += f"try:\n    {statement}\nexcept Exception as error:\n"
        script += "    print(type(error).__name__, error)\n"
    result = run_python(script)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_pytest_plugin_imports_neither_the_kit_nor_hypothesis() -> None:
    result = run_python(
        "import sys, protocall.pytest_plugin\n"
        "print(sorted(m for m in ('hypothesis', 'parsy', 'protocall.testing') if m in sys.modules))"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_protocall_works_without_hypothesis_and_parsy() -> None:
    assert printed_without(
        "hypothesis parsy",
        "print(protocall.parse('Hi.<|im_end|>', 'hermes').content)",
        "protocall.combinators.from_parsy(None, '</x>')",
        "import protocall.testing",
    ) == [
        "Hi.",
        "UsageError from_parsy needs parsy: pip install 'protocall[parsy]'",
        "ModuleNotFoundError the protocall testing kit needs Hypothesis: "
        "pip install 'protocall[testing]'",
    ]


def test_a_missing_jsonschema_is_a_usage_error_not_silence() -> None:
    assert printed_without(
        "jsonschema",
        "print(protocall.parse('Hi.<|im_end|>', 'hermes', [{'name': 'f'}]).content)",
        "protocall.parse('Hi.', 'hermes', [{'name': 'f', 'parameters': {'type': 'object'}}])",
    ) == [
        "Hi.",
        "UsageError checking tool schemas needs the jsonschema package, a dependency of "
        "protocall: pip install 'jsonschema>=4.18'",
    ]
