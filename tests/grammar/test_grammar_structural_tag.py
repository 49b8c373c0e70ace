"""The exported xgrammar structural tags, read by a small interpreter of the structural-tag
semantics (xgrammar itself needs torch to import; `grammar` content read by the GBNF
recognizer): every valid turn the testing kit renders (its arguments in schema order,
xgrammar's default, where the schemas go to xgrammar whole; required ones first where the
tag holds GBNF) matches the tag outside its reasoning and stop, in every format."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest
from gbnf_recognizer import Recognizer
from grammar_oracle import TRIGGERED, turn_in_order
from hypothesis import HealthCheck, assume, given, note, settings
from sampled import every_format

from protocall import formats
from protocall.blocks.turns import Turn
from protocall.combinators import UsageError
from protocall.grammar.structural_tag import JSON_CODECS
from protocall.grammar.walk import spec_of
from protocall.testing import cases
from protocall.testing.strategies import render

SETTINGS = settings(
    max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}]


def ends(node: Mapping[str, Any], text: str, at: int) -> set[int]:
    """Where a match of `node` that starts at `at` can end."""
    kind = node["type"]
    if kind == "const_string":
        return {at + len(node["value"])} if text.startswith(node["value"], at) else set()
    if kind == "regex":
        return {k for k in range(at, len(text) + 1) if re.fullmatch(node["pattern"], text[at:k])}
    if kind == "json_schema":
        try:
            value, end = json.JSONDecoder().raw_decode(text, at)
        except json.JSONDecodeError:
            return set()
        valid = jsonschema.Draft202012Validator(node["json_schema"]).is_valid(value)
        return {end} if valid and _in_schema_order(value, node["json_schema"]) else set()
    if kind == "sequence":
        positions = {at}
        for element in node["elements"]:
            positions = {end for p in positions for end in ends(element, text, p)}
        return positions
    if kind == "grammar":
        return set(Recognizer(node["grammar"]).ends(text, at))
    if kind == "tag":
        if not text.startswith(node["begin"], at):
            return set()
        inner = ends(node["content"], text, at + len(node["begin"]))
        return {p + len(node["end"]) for p in inner if text.startswith(node["end"], p)}
    assert kind == "tags_with_separator", kind
    found, frontier, count = set(), {at}, 0
    while frontier:
        starts = frontier if count == 0 else {
            p + len(node["separator"]) for p in frontier if text.startswith(node["separator"], p)
        }  # fmt: skip
        frontier = {end for p in starts for tag in node["tags"] for end in ends(tag, text, p)}
        frontier -= found
        count += 1
        found |= frontier
        if node["stop_after_first"]:
            break
    return found | (set() if node["at_least_one"] else {at})


def _in_schema_order(value: Any, schema: Any) -> bool:
    if isinstance(value, list):
        items = schema.get("items", {}) if isinstance(schema, Mapping) else {}
        members = items.get("anyOf", [items]) if isinstance(items, Mapping) else [{}]
        return all(any(_in_schema_order(v, m) for m in members) for v in value)
    if not isinstance(value, dict) or not isinstance(schema, Mapping):
        return True
    order = list(schema.get("properties") or {})
    keys = [key for key in value if key in order]
    return keys == sorted(keys, key=order.index) and all(
        _in_schema_order(value[key], schema["properties"][key]) for key in keys
    )


def matches(tag: Mapping[str, Any], text: str) -> bool:
    """Whether `text` is free text and triggered tags as `tag` (a `triggered_tags`) says."""
    assert tag["type"] == "structural_tag"
    triggered = tag["format"]
    at, count = 0, 0
    while True:
        found = [(text.find(t, at), t) for t in triggered["triggers"] if text.find(t, at) >= 0]
        if not found:
            return count > 0 or not triggered["at_least_one"]
        start, trigger = min(found)
        if triggered["stop_after_first"] and count:
            return False
        options = [t for t in triggered["tags"] if t["begin"].startswith(trigger)]
        positions = {end for t in options for end in ends(t, text, start)}
        if not positions:
            return False
        at, count = max(positions), count + 1


@pytest.mark.parametrize("name", every_format(TRIGGERED))
def test_valid_turns_match_the_structural_tag(name: str) -> None:
    fmt = formats.get(name)
    in_gbnf = not isinstance(spec_of(fmt).call.arguments, JSON_CODECS)

    @SETTINGS
    @given(cases(fmt))
    def matched(case: Any) -> None:
        assume(case.turn.calls)  # rendered again with no reasoning, from no start state
        parts = Turn(None, case.turn.parts)
        turn = turn_in_order(parts, case.tools, required_first=in_gbnf)
        text = render(fmt, turn, None)
        stop = next((s for s in spec_of(fmt).stops if text.endswith(s)), "")  # none: K2 Horizon
        tag = json.loads(fmt.decoding_grammar(case.tools, "structural-tag"))
        if any(t["end"] == stop for t in tag["format"]["tags"]):
            stop = ""  # the call's end is the stop (gpt-oss's `<|call|>`): the tag's
        note(f"text {text!r}\n{json.dumps(tag, indent=1)}")
        assert matches(tag, text.removesuffix(stop))

    matched()


def test_the_options_are_the_tags_flags() -> None:
    tag = json.loads(formats.get("hermes").decoding_grammar(TOOLS, "structural-tag"))
    assert tag["format"]["at_least_one"] is False and tag["format"]["stop_after_first"] is False
    one = formats.get("hermes").decoding_grammar(
        TOOLS, "structural-tag", tool_choice="required", parallel=False
    )
    assert json.loads(one)["format"]["at_least_one"] is True
    call = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    assert matches(tag, f"hi{call}\n{call}") and not matches(json.loads(one), f"{call}\n{call}")
    assert not matches(tag, '<tool_call>\n{"name": "f", "arguments": {"a": "x"}}\n</tool_call>')


def test_calls_that_are_not_json_are_tags_of_gbnf() -> None:
    """XML-style arguments, Python literals and bare objects: a tag per run of calls, its
    rest in GBNF; a run that only its calls' own beginning marks is a tag per tool."""
    tag = json.loads(formats.get("qwen3-coder").decoding_grammar(TOOLS, "structural-tag"))
    (only,) = tag["format"]["tags"]
    assert tag["format"]["triggers"] == ["<tool_call>\n<function="] == [only["begin"]]
    assert only["content"]["type"] == "grammar" and only["end"] == ""
    call = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    assert matches(tag, f"hi{call}") and not matches(tag, call.replace("1", "x"))
    two = [*TOOLS, {"name": "g", "parameters": {"type": "object"}}]
    tag = json.loads(formats.get("pythonic").decoding_grammar(two, "structural-tag"))
    assert tag["format"]["triggers"] == ["[f(", "[g("]
    assert matches(tag, "see [1] [f(a=1), g()]") and not matches(tag, "[f(a=True)]")
    one = formats.get("pythonic").decoding_grammar(two, "structural-tag", parallel=False)
    assert not matches(json.loads(one), "[f(a=1), g()]")


def test_what_a_structural_tag_cannot_say_is_named() -> None:
    with pytest.raises(UsageError, match="needs declared tools"):
        formats.get("hermes").decoding_grammar([], "structural-tag")
    with pytest.raises(UsageError, match="needs declared tools"):
        formats.get("qwen3-coder").decoding_grammar([], "structural-tag")
