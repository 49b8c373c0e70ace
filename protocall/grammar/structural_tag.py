"""A format's calls as an xgrammar structural tag (the `response_format` of type
`structural_tag` that vLLM and SGLang accept): a `triggered_tags` format whose tags are the
calls. Free content and reasoning are left to the server (text outside the tags is free).

Calls whose arguments are one JSON value (a JSON object, a `{"name", "arguments"}` object,
a JSON array of calls) are tags of `begin` (the call up to its arguments), the arguments'
JSON schema (xgrammar's to read whole), `end`. Any other calls (XML-style arguments, Python
literals, Gemma 4's bare objects) are tags of a whole run of calls: `begin` the text that
opens the run (a section's opener, or a call's own beginning such as `[get(`), the rest of
the run in GBNF (`grammar` content, as the `gbnf` dialect writes it, its dropped keywords
reported), and an empty `end`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..combinators import UsageError
from ..spec import Spec
from ..spec.codecs import Attribute, IdName, JsonObject, NameAndArguments, NameKey
from ..tools import Tool, Tools
from . import gbnf, schemas, walk
from .ir import common_prefix, reachable

_HOLE = re.compile(r"\{(?:name|id|index|arguments|call)\}")


def write(
    fmt: walk.Described, tools: Tools, start: str | None, options: walk.Options
) -> tuple[str, tuple[str, ...]]:
    """The structural tag JSON of `fmt`'s calls to `tools` (see the module docstring), and
    the schema keywords it drops (none where xgrammar reads the schemas whole)."""
    if not walk.chosen_tools(tools, options):
        raise UsageError("a structural tag needs declared tools (its tags are their calls)")
    walk.no_trigger(walk.spec_of(fmt))
    if json_arguments(fmt):
        return json.dumps(structural_tag(fmt, tools, options), ensure_ascii=False), ()
    tag, dropped = _grammar_tags(fmt, tools, options)
    return json.dumps(tag, ensure_ascii=False), dropped


JSON_CODECS = (JsonObject, NameAndArguments, NameKey)
"""The codecs of arguments that are one JSON value."""


def json_arguments(fmt: walk.Described) -> bool:
    """Whether `fmt`'s calls are tags of JSON arguments, whose schemas xgrammar reads
    whole (else their tags hold GBNF; a `UsageError` where `fmt` has no grammar)."""
    return isinstance(walk.spec_of(fmt).call.arguments, JSON_CODECS)


def _grammar_tags(
    fmt: walk.Described, tools: Tools, options: walk.Options
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A tag per run of calls, its rest in GBNF (see the module docstring)."""
    grammar, runs = walk.build_runs(fmt, tools, options)
    tags, dropped = [], list(grammar.dropped)  # what the walk dropped, then each writer
    for opener, rest in runs:
        grammar.rules["start"] = rest
        part = reachable(grammar)
        content = {"type": "grammar", "grammar": gbnf.write(part)}
        tags.append(_tag(opener, content, ""))
        dropped += part.dropped
    return _triggered([opener for opener, _ in runs], tags, options), tuple(dict.fromkeys(dropped))


def structural_tag(fmt: walk.Described, tools: Tools, options: walk.Options) -> dict[str, Any]:
    """The tag of calls whose arguments are one JSON value (see the module docstring)."""
    spec = walk.spec_of(fmt)
    chosen = walk.chosen_tools(tools, options)
    section = spec.section if spec.section and not spec.section.written_bare else None
    if section is not None and section.array:
        defs: dict[str, Any] = {}
        schema: dict[str, Any] = {
            "type": "array",
            "items": {"anyOf": [_element(spec, t, defs) for t in chosen]},
        }
        schema |= {"minItems": 1} | ({} if options.parallel else {"maxItems": 1})
        schema |= {"$defs": defs} if defs else {}
        end = section.ends[0] if section.ends else ""
        tags = [_tag(section.begins[0], _json(schema), end)]
        return _triggered([section.begins[0]], tags, options)
    calls = [_call(spec, tool) for tool in chosen]
    if section is None or section.each:
        wrap = (section.begins[0], section.ends[0]) if section else ("", "")
        tags = [_tag(wrap[0] + c["begin"], c["content"], c["end"] + wrap[1]) for c in calls]
        trigger = common_prefix([tag["begin"] for tag in tags])
        return _triggered([trigger], tags, options)
    inner = {
        "type": "tags_with_separator",
        "tags": calls,
        "separator": spec.call.between,
        "at_least_one": True,
        "stop_after_first": not options.parallel,
    }
    tags = [_tag(section.begins[0], inner, section.ends[0])]
    return _triggered([section.begins[0]], tags, options)


def _triggered(
    triggers: list[str], tags: list[dict[str, Any]], options: walk.Options
) -> dict[str, Any]:
    if not triggers[0]:
        raise UsageError("no structural tag for calls that begin with no marker")
    triggered = {
        "type": "triggered_tags",
        "triggers": triggers,
        "tags": tags,
        "at_least_one": options.tool_choice != "auto",
        "stop_after_first": not options.parallel,
    }
    return {"type": "structural_tag", "format": triggered}


def _tag(begin: str, content: dict[str, Any], end: str) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def _json(schema: Any) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": schema}


def _parameters(tool: Tool) -> dict[str, Any]:
    return {"type": "object", **tool.parameters}


def _element(spec: Spec, tool: Tool, defs: dict[str, Any]) -> dict[str, Any]:
    """A call object of the array, its arguments' schema in `defs` where its `$ref`s
    need the schema's root (`schemas.relocated` there)."""
    codec = spec.call.arguments
    arguments = _parameters(tool)
    if walk.has_ref(arguments):
        at = "#/$defs/" + tool.name.replace("~", "~0").replace("/", "~1")
        defs[tool.name] = schemas.relocated(arguments, at)
        arguments = {"$ref": at}
    if isinstance(codec, NameKey):
        return _closed({tool.name: arguments})
    assert isinstance(codec, NameAndArguments)
    members = {codec.name: {"const": tool.name}, codec.keys[0]: arguments}
    if codec.within is not None:  # in an object of their own
        members = {codec.within: _closed(members)}
    members = {key: {"const": value} for key, value in codec.constants} | members
    if codec.id is not None:  # the call id, written first
        members = {codec.id: {"type": "string"}, **members}
    return _closed(members)


def _closed(members: dict[str, Any]) -> dict[str, Any]:
    """A JSON object of exactly `members` (key: schema)."""
    closed = {"required": list(members), "additionalProperties": False}
    return {"type": "object", "properties": members, **closed}


def _object(members: list[tuple[str, str]]) -> str:
    """A JSON object's text of `members` (key, the value's text)."""
    pairs = (f"{json.dumps(key, ensure_ascii=False)}: {value}" for key, value in members)
    return "{" + ", ".join(pairs) + "}"


def _call(spec: Spec, tool: Tool) -> dict[str, Any]:
    """One call to `tool` as a tag: the template's text with the name written in, around
    JSON arguments."""
    call = spec.call
    codec, name = call.arguments, call.name
    template = call.template
    for piece in call.optional:  # written for a call with an id: a tag writes none
        template = template.replace(piece, "" if "{id}" in piece else piece)
    if isinstance(codec, NameAndArguments):  # written without an id (read optional)
        members = [
            (codec.name, json.dumps(tool.name, ensure_ascii=False)),
            (codec.keys[0], "{arguments}"),
        ]
        if codec.within is not None:
            members = [(codec.within, _object(members))]
        constants = [(key, json.dumps(value, ensure_ascii=False)) for key, value in codec.constants]
        template = template.replace("{call}", _object([*constants, *members]))
    elif not isinstance(codec, JsonObject):
        raise UsageError(
            f"no structural tag for {type(codec).__name__} arguments (only JSON ones): "
            f"{spec.name!r}"
        )
    written = tool.name if not isinstance(name, Attribute) else None
    if written is None:
        raise UsageError(f"no structural tag for an Attribute name: {spec.name!r}")
    before, after = template.split("{arguments}")
    content = _json(_parameters(tool))
    if isinstance(name, IdName):  # `functions.NAME:IDX`: the index is a number
        pre, post = before.split("{id}")
        digits = {"type": "regex", "pattern": "[0-9]{1,20}"}
        rest = [digits, _constant(post), content]
        return _tag(
            pre + name.prefix + tool.name + ":", {"type": "sequence", "elements": rest}, after
        )
    before = before.replace("{name}", written)
    pre, has_id, post = before.partition("{id}")  # the model's id: what its pattern allows
    if _HOLE.search(pre + post + after):
        raise UsageError(f"no structural tag for the call template {call.template!r}")
    if has_id:
        rest = [{"type": "regex", "pattern": call.id_pattern}, _constant(post), content]
        return _tag(pre, {"type": "sequence", "elements": rest}, after)
    return _tag(before, content, after)


def _constant(text: str) -> dict[str, Any]:
    return {"type": "const_string", "value": text}
