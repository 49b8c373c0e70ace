"""The exported xgrammar structural tags, read by a small interpreter of the structural-tag
semantics (xgrammar itself needs torch to import): every valid turn the testing kit renders
(its arguments in schema order, xgrammar's default) matches the tag outside its reasoning
and stop; a format whose calls are not JSON says so."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest
from grammar_oracle import EXPORTABLE, turn_in_order
from hypothesis import HealthCheck, assume, given, note, settings

from protocall import formats
from protocall.blocks.turns import Turn
from protocall.combinators import UsageError
from protocall.testing import cases
from protocall.testing.strategies import render

SETTINGS = settings(
    max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}]


def _expressible() -> list[str]:
    names = []
    for name in EXPORTABLE:
        try:
            formats.get(name).decoding_grammar(TOOLS, "structural-tag")
        except UsageError:
            continue
        names.append(name)
    return names


EXPRESSIBLE = _expressible()


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


@pytest.mark.parametrize("name", EXPRESSIBLE)
def test_valid_turns_match_the_structural_tag(name: str) -> None:
    fmt = formats.get(name)

    @SETTINGS
    @given(cases(fmt))
    def matched(case: Any) -> None:
        assume(case.turn.calls)  # rendered again with no reasoning, from no start state
        turn = turn_in_order(Turn(None, case.turn.parts), case.tools, required_first=False)
        text = render(fmt, turn, None)
        stop = next(s for s in fmt.spec.stops if text.endswith(s))
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


def test_what_a_structural_tag_cannot_say_is_named() -> None:
    with pytest.raises(UsageError, match="XmlArguments"):
        formats.get("qwen3-coder").decoding_grammar(TOOLS, "structural-tag")
    with pytest.raises(UsageError, match="PythonKeywords"):
        formats.get("olmo-3").decoding_grammar(TOOLS, "structural-tag")
    with pytest.raises(UsageError, match="needs declared tools"):
        formats.get("hermes").decoding_grammar([], "structural-tag")
