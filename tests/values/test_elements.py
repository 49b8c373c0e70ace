"""Element-tree arguments (`protocall.values.elements`): nested elements typed by the schema
level by level, one-shot, per character and in drawn chunkings, with the same outcome."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from protocall.blocks.schema_typing import element_typing
from protocall.combinators import DONE, FAILED, NEED_MORE, Close, Item, Run, Text
from protocall.spec.codecs import XmlElements
from protocall.testing import chunkings, fed_and_resumed
from protocall.testing.strategies import values
from protocall.values.elements import Elements, element_arguments
from protocall.values.xmlargs import ARGUMENT, ARGUMENT_VALUE

P = "]<]minimax[>["
LAYOUT = Elements(P)
CODEC = XmlElements(LAYOUT)
END = f"{P}</invoke>"

ORDER = {
    "type": "object",
    "properties": {
        "user_id": {"type": "integer"},
        "urgent": {"type": "boolean"},
        "note": {"type": "string"},
        "price": {"type": ["number", "null"]},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}},
        },
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            },
        },
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "extra": {"type": "object"},
        "ref": {"$ref": "#/$defs/point"},
    },
    "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
}


def el(name: str, body: str) -> str:
    return f"{P}<{name}>{body}{P}</{name}>"


@dataclass
class Outcome:
    run: Run[Any]
    items: list[Item]

    @property
    def json(self) -> str:
        return "".join(item.text for item in self.items if isinstance(item, Text))


def parse(chunks: list[str], schema: Any = ORDER) -> Outcome:
    run = Run(element_arguments(LAYOUT, element_typing(schema)))
    items: list[Item] = []
    for chunk in chunks:
        if run.status is NEED_MORE:
            run.feed(chunk)
            items += run.take()
    if run.status is NEED_MORE:
        run.finish()
        items += run.take()
    return Outcome(run, items)


def outcomes(text: str, schema: Any = ORDER) -> list[Outcome]:
    """`text` one-shot and one character a chunk."""
    return [parse([text], schema), parse(list(text), schema)]


def read(text: str, schema: Any = ORDER) -> Any:
    """The arguments `text` parses to, the same one-shot and per character, their streamed
    JSON text exactly the value's."""
    values_read = []
    for outcome in outcomes(text + END, schema):
        assert outcome.run.status is DONE, outcome.run.error
        assert outcome.run.end == len(text)  # the end marker is not consumed
        assert json.loads(outcome.json) == outcome.run.value
        values_read.append((outcome.run.value, outcome.run.value.problems))
    assert values_read[0] == values_read[1]
    return values_read[0][0]


def failure(text: str, schema: Any = ORDER) -> str:
    """The error `text` fails with, the same one-shot and per character (but for the text
    it shows as got, which is what had arrived)."""
    errors = []
    for outcome in outcomes(text, schema):
        assert outcome.run.status is FAILED, outcome.run.value
        errors.append(str(outcome.run.error).partition(", got")[0])
    assert errors[0] == errors[1]
    return errors[0]


NESTED = (
    el("user_id", "42")
    + el("urgent", "true")
    + el("note", " Leave it at the desk. ")
    + el("address", el("city", "Lyon") + el("zip", "069001"))
    + el("lines", el("item", el("sku", "pen") + el("qty", "2")) + el("item", el("sku", "ink")))
    + el("labels", el("source", "app") + el("campaign", "spring"))
    + el("tags", el("item", "a") + el("item", " b "))
    + el("ref", el("x", "1.5"))
)


def test_nested_objects_and_lists_are_typed_level_by_level() -> None:
    assert read(NESTED) == {
        "user_id": 42,
        "urgent": True,
        "note": " Leave it at the desk. ",
        "address": {"city": "Lyon", "zip": 69001},
        "lines": [{"sku": "pen", "qty": 2}, {"sku": "ink"}],
        "labels": {"source": "app", "campaign": "spring"},
        "tags": ["a", " b "],
        "ref": {"x": 1.5},
    }


def test_no_arguments_and_whitespace_between_elements() -> None:
    assert read("") == {}
    assert read("\n ") == {}
    spaced = f"\n{P}<address>\n  {el('city', 'Lyon')}\n{P}</address>\n{el('tags', '')}\n"
    assert read(spaced) == {"address": {"city": "Lyon"}, "tags": []}


def test_an_empty_element_is_the_empty_container_its_schema_says_or_an_empty_string() -> None:
    text = el("address", "") + el("tags", " ") + el("extra", "") + el("note", "")
    assert read(text) == {"address": {}, "tags": [], "extra": {}, "note": ""}


def test_a_free_form_object_holds_json_scalars_or_strings_and_item_children_make_a_list() -> None:
    text = el("extra", el("a", "1") + el("b", el("item", "x") + el("item", "true")))
    assert read(text) == {"extra": {"a": 1, "b": ["x", True]}}


def test_without_a_schema_values_are_strings() -> None:
    assert read(el("free", el("item", "1")), None) == {"free": ["1"]}
    assert read(el("free", " 1 "), None) == {"free": " 1 "}
    assert read(el("address", el("floor", "3"))) == {"address": {"floor": "3"}}  # undeclared


def test_a_container_as_json_text_and_a_null_are_read_by_their_schema() -> None:
    text = el("tags", '["a", "b"]') + el("price", "null") + el("extra", '{"k": [1]}')
    assert read(text) == {"tags": ["a", "b"], "price": None, "extra": {"k": [1]}}


def test_a_value_that_does_not_convert_stays_a_string_and_is_reported() -> None:
    outcome = parse([el("lines", el("item", el("qty", "two"))) + END])
    assert outcome.run.value == {"lines": [{"qty": "two"}]}
    assert outcome.run.value.problems == [
        'argument `lines[0].qty`: expected integer, got "two"; kept as a string'
    ]


def test_argument_nodes_wrap_each_first_level_value() -> None:
    outcome = parse([el("address", el("city", "Lyon")) + el("user_id", "7") + END])
    closes = [item for item in outcome.items if isinstance(item, Close)]
    values_closed = [item.value for item in closes if item.tag == ARGUMENT_VALUE]
    assert values_closed == [{"city": "Lyon"}, 7]
    assert [item.value for item in closes if item.tag == ARGUMENT] == [
        ("address", {"city": "Lyon"}),
        ("user_id", 7),
    ]


def test_a_string_streams_before_its_element_closes() -> None:
    run = Run(element_arguments(LAYOUT, element_typing(ORDER)))
    run.feed(f"{P}<address>{P}<city>Saint-")
    streamed = "".join(item.text for item in run.take() if isinstance(item, Text))
    assert streamed == '{"address": {"city": "Saint-'
    run.feed(f"Malo{P}</ci")  # the closing tag's start is held, not text
    assert "".join(item.text for item in run.take() if isinstance(item, Text)) == "Malo"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (el("note", "a" + el("b", "c")), "expected `]<]minimax[>[</note>`"),
        (el("address", el("city", "x") + "text"), "expected `]<]minimax[>[<`"),
        (el("user_id", "1") + el("user_id", "2"), "repeated element `user_id`"),
        (el("tags", el("tag", "a")), "(a list's child)"),
        (f"{P}<note>open", "expected `]<]minimax[>[</note>`"),
        (f"{P}<address>{el('city', 'x')}", "expected `]<]minimax[>[<`"),
        (f"{P}<no\nte>x", "an element name and `>`"),
        (f"{P}<address>{P}</>", "expected `]<]minimax[>[</address>`"),
        ("text", "expected `]<]minimax[>[<`"),
    ],
)
def test_bad_input_fails_naming_what_was_expected(text: str, expected: str) -> None:
    assert expected in failure(text)


def test_nesting_is_bounded_by_the_run_s_max_depth() -> None:
    deep = el("extra", el("a", el("b", "x")))
    for outcome in outcomes(deep + END):
        assert outcome.run.status is DONE
    run = Run(element_arguments(LAYOUT, element_typing(ORDER)))
    run.input.max_depth = 2
    run.feed(deep + END)
    run.finish()
    assert run.status is FAILED
    assert "nested at most 2 deep (max_depth)" in str(run.error)


def test_nesting_up_to_the_bound_parses_and_past_it_fails_at_the_tag() -> None:
    def nested(depth: int) -> str:
        return f"{P}<a>" * depth + "x" + f"{P}</a>" * depth

    value = read(nested(127), None)  # the arguments and 126 objects: 127 levels
    for _ in range(126):
        value = value["a"]
    assert value == {"a": "x"}
    assert "a value nested at most 128 deep" in failure(nested(129) + END, None)


# -- generated values, written as the template writes them ------------------------------------

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        k: s for k, s in ORDER["properties"].items() if k not in ("ref",)
    },  # `$ref` aside: the value strategy does not follow it
}


@st.composite
def carried_arguments(draw: st.DrawFn) -> dict[str, Any]:
    """Arguments for `PARAMETERS` that the written form carries (`XmlElements.carries`)."""
    drawn: dict[str, Any] = draw(values(PARAMETERS, (P,)))
    assume(CODEC.carries(drawn, PARAMETERS))
    return drawn


@settings(max_examples=60, deadline=None)
@given(arguments=carried_arguments(), data=st.data())
def test_rendered_arguments_read_back_under_every_chunking(
    arguments: dict[str, Any], data: st.DataObject
) -> None:
    text = CODEC.render(arguments) + END
    chunks = data.draw(chunkings(text, (P, "\n")))
    outcome = parse(chunks, PARAMETERS)
    assert outcome.run.status is DONE, outcome.run.error
    assert outcome.run.value == arguments
    assert json.loads(outcome.json) == arguments
    fed, resumed = fed_and_resumed(element_arguments(LAYOUT, element_typing(PARAMETERS)), chunks)
    assert fed == resumed


def test_what_the_written_form_loses_is_not_carried() -> None:
    assert CODEC.carries({"note": "x", "tags": ["a"]}, PARAMETERS)
    assert not CODEC.carries({"price": None}, PARAMETERS)  # a null member is left out
    assert CODEC.carries({"extra": {"n": 1, "s": "x"}}, PARAMETERS)  # free-form: JSON scalars
    assert not CODEC.carries({"extra": {"n": "1"}}, PARAMETERS)  # read as 1
    assert not CODEC.carries({"address": {"floor": 3}}, PARAMETERS)  # undeclared: read as "3"
    assert CODEC.carries({"extra": {"item": "x"}}, PARAMETERS)  # the schema says object
    assert not CODEC.carries({"extra": {"a": {"item": "x"}}}, PARAMETERS)  # read as a list
    assert not CODEC.carries({"note": f"a{P}b"}, PARAMETERS)
    assert not CODEC.carries({"extra": {"a<b": "x"}}, PARAMETERS)  # no element name
    assert not CODEC.carries({"tags": [None]}, PARAMETERS)
    assert CODEC.carries({"tags": [], "extra": {}}, PARAMETERS)
    either = {"properties": {"e": {"anyOf": [{"type": "string"}, {"type": "object"}]}}}
    assert not CODEC.carries({"e": {}}, either)  # an empty element reads as ""
