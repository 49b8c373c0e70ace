"""The grammars of OpenAI-shaped call objects (`NameAndArguments` with `within`): the
llguidance grammar accepts what the format writes and refuses the object without its
`function` member; the structural tag's schema is that of the written objects' array."""

from __future__ import annotations

import json

import jsonschema
from grammar_oracle import check

from protocall.blocks.turns import ToolUse, Turn
from protocall.compile.factory import build
from protocall.spec import Call, Section, Spec
from protocall.spec.codecs import NameAndArguments

OPENAI = NameAndArguments(id="id", within="function", constants=(("type", "function"),))
TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}]


def openai_spec(template: str, section: Section | None = None) -> Spec:
    """OpenAI-shaped call objects written by `template`, in `section` if given."""
    call = Call(template, OPENAI, between=", " if section else "")
    summary = "OpenAI-shaped call objects"
    return Spec("openai", summary, call, stops=("<|end|>",), turn=None, section=section)


ARRAY = openai_spec("{call}", Section(("<calls>",), ("</calls>",), array=True))
TAGGED = openai_spec("<call>{call}</call>")

TURN = Turn(None, ("Hi", ToolUse("f", {"a": 1}, "c1"), ToolUse("f", {"a": 2}, "c2")))


def test_llguidance_accepts_the_written_objects_only() -> None:
    for spec in (ARRAY, TAGGED):
        fmt = build(spec)
        grammar = fmt.decoding_grammar(TOOLS)
        written = fmt.render(TURN, None)
        assert check(grammar, written).accepted, written
        flat = written.replace('"function": {"name": "f", "arguments": {"a": 1}}', '"name": "f"')
        assert flat != written and not check(grammar, flat).accepted


def test_the_structural_tag_schema_is_the_written_object() -> None:
    tag = json.loads(build(ARRAY).decoding_grammar(TOOLS, "structural-tag"))
    schemas = [
        node["json_schema"]
        for node in _nodes(tag)
        if isinstance(node, dict) and node.get("type") == "json_schema"
    ]
    written = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    flat = {"id": "c1", "type": "function", "name": "f", "arguments": {"a": 1}}
    (schema,) = schemas  # the array's
    assert jsonschema.Draft202012Validator(schema).is_valid([written])
    assert not jsonschema.Draft202012Validator(schema).is_valid([flat])


def _nodes(value: object) -> list[object]:
    """Every dict and list inside `value`, itself first."""
    found = [value]
    children = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(children, list):
        return found
    for child in children:
        found += _nodes(child)
    return found
