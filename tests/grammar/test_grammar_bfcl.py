"""The grammar export over BFCL's functions (the Berkeley Function-Calling Leaderboard's
tool sets, from the `bfcl-eval` wheel, which CI installs without its dependencies:
requirements/bfcl.txt): their schemas as JSON Schema, then every exportable format's grammar
in every dialect for all of them at once, and llguidance and xgrammar compile a few.

BFCL writes its parameter schemas in its own dialect: `dict`, `float`, `tuple`, `any` and
Java's `String`, `long`, `HashMap`, … as types, and a non-standard `optional` flag. `to_schema`
turns them into JSON Schema (the JSON type each stands for; `any` or an empty type: no type
constraint; `optional` left out, as `required` says the same), and a dotted name
(`math.factorial`) has its dots written `_`, as BFCL does for OpenAI-style tools. The data
is read from the installed wheel, never copied into the repository."""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from grammar_oracle import EXPORTABLE, check, dialects

from protocall import formats
from protocall.grammar import Options, export, schemas, structural_tag, walk
from protocall.tools import Tools, normalize_tools

ONE = {"name": "f", "parameters": {"type": "object"}}

TYPES = {"dict": "object", "float": "number", "tuple": "array", "double": "number",
         "long": "integer", "String": "string", "char": "string", "Boolean": "boolean",
         "Array": "array", "ArrayList": "array", "HashMap": "object"}  # fmt: skip
"""BFCL's types that are not JSON Schema's, as the JSON type each stands for."""


def to_schema(schema: Any) -> Any:
    """A BFCL parameter schema as JSON Schema (see the module docstring)."""
    if not isinstance(schema, dict):
        return schema
    converted: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "optional" or (key == "type" and value in ("any", "")):
            continue
        if key == "type":
            value = TYPES.get(value, value)
        elif key == "properties":
            value = {name: to_schema(item) for name, item in value.items()}
        elif key in ("items", "additionalProperties"):
            value = to_schema(value)
        converted[key] = value
    return converted


def _entries(text: str) -> list[Any]:
    """A data file's entries: one JSON document, or one per line."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return whole if isinstance(whole, list) else [whole]


@functools.cache
def bfcl_functions() -> list[dict[str, Any]]:
    """Every function of BFCL's question files and multi-turn function docs, one per name
    as a tool writes it (the first), in BFCL's own dialect."""
    try:
        dist = importlib.metadata.distribution("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        if os.environ.get("PROTOCALL_REQUIRE_BFCL") == "1":
            raise
        pytest.skip("bfcl-eval is not installed (requirements/bfcl.txt)")
    found: dict[str, dict[str, Any]] = {}
    for file in dist.files or ():
        path = str(file)
        if not path.startswith("bfcl_eval/data/") or not path.endswith(".json"):
            continue
        if any(part in path for part in ("possible_answer", "unused_datasets", "prereq")):
            continue
        for entry in _entries(Path(str(dist.locate_file(file))).read_text(encoding="utf-8")):
            functions = entry.get("function", [entry]) if isinstance(entry, dict) else []
            for function in functions if isinstance(functions, list) else [functions]:
                if isinstance(function, dict) and "parameters" in function:
                    found.setdefault(function["name"].replace(".", "_"), function)
    return list(found.values())


def unsatisfiable(schema: Any) -> bool:
    """Whether some schema within `schema` has an `enum` none of whose values is of its
    `type` (BFCL has booleans whose enum holds the strings `"True"`, `"False"`), so that no
    value satisfies it."""
    if not isinstance(schema, dict):
        return False
    kinds = schema.get("type")
    if isinstance(kinds, str) and isinstance(schema.get("enum"), list):
        validator = jsonschema.Draft202012Validator({"type": kinds})
        if not any(validator.is_valid(value) for value in schema["enum"]):
            return True
    nested = [schema.get("items"), schema.get("additionalProperties")]
    return any(map(unsatisfiable, [*nested, *(schema.get("properties") or {}).values()]))


@functools.cache
def bfcl_tools() -> Tools:
    """BFCL's functions as tools with JSON Schema parameters, those no call can satisfy
    left out (`unsatisfiable`: llguidance refuses to compile such a schema, so a grammar
    holding one does not compile; protocall does not look for them)."""
    tools = normalize_tools(
        [
            {
                "name": f["name"].replace(".", "_"),
                "description": f.get("description", ""),
                "parameters": to_schema(f["parameters"]),
            }
            for f in bfcl_functions()
            if not unsatisfiable(to_schema(f["parameters"]))
        ]
    )
    assert tools is not None
    return tools


def test_bfcl_schemas_become_json_schema() -> None:
    """Every BFCL type is converted (none left that JSON Schema lacks), and every converted
    schema is a valid JSON Schema; the set is a large one."""
    functions = bfcl_functions()
    assert len(functions) > 1500
    json_types = {"object", "array", "string", "number", "integer", "boolean", "null"}

    def types(schema: Any) -> set[str]:
        if not isinstance(schema, dict):
            return set()
        found = {schema["type"]} if isinstance(schema.get("type"), str) else set()
        for key in ("items", "additionalProperties"):
            found |= types(schema.get(key))
        for item in (schema.get("properties") or {}).values():
            found |= types(item)
        return found

    for function in functions:
        schema = to_schema(function["parameters"])
        assert types(schema) <= json_types, (function["name"], types(schema))
        jsonschema.Draft202012Validator.check_schema(schema)
    left_out = [f["name"] for f in functions if unsatisfiable(to_schema(f["parameters"]))]
    assert len(bfcl_tools()) == len(functions) - len(left_out) and len(left_out) < 20, left_out


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPORTABLE)
def test_every_format_exports_bfcl_functions_in_every_dialect(name: str) -> None:
    """All of BFCL's functions at once, in every dialect: an export, never a refusal; what
    it drops is a constraining keyword, never an annotation. (Free text that may hold no
    call head, `[ NAME (` or `{"name": "NAME"` in Llama 3, Llama 4 and pythonic, is an
    automaton over all the names.) A structural tag whose calls only their own beginning
    marks (pythonic, Llama 4, Muse) is a tag per tool, each holding every call that may
    follow in its run: with parallel calls its size grows as the square of the tools
    (1,000 of them: 500 MB, docs/grammar.md), so there it is exported with one call per
    run (`runs_per_tool`)."""
    fmt = formats.get(name)
    tools = bfcl_tools()
    for dialect in dialects(name):
        options = Options()
        if dialect == "structural-tag" and runs_per_tool(fmt):
            options = Options(parallel=False)
        result = export(fmt, tools, dialect, options=options)
        assert result.text
        for line in result.dropped:
            keyword = line.rsplit(": ", 1)[1].split(" ")[0]
            assert keyword not in schemas.ANNOTATIONS, line


def runs_per_tool(fmt: formats.Format) -> bool:
    """Whether `fmt`'s structural tag is a tag per tool, each holding the calls that may
    follow in its run (calls of XML-style or Python arguments that only their own
    beginning marks: pythonic's `[get(`, Muse's header naming the tool)."""
    if structural_tag.json_arguments(fmt):
        return False
    two = normalize_tools([ONE, {**ONE, "name": "g"}])
    return len(walk.build_runs(fmt, two, Options())[1]) > 1


@functools.cache
def _xgrammar() -> Any:
    harness = str(Path(__file__).resolve().parents[1] / "integrations")
    if harness not in sys.path:
        sys.path.append(harness)
    import servers_shim

    return servers_shim.require("xgrammar")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hermes", "qwen3-coder", "gemma-4"])
def test_the_engines_compile_bfcl_grammars(name: str) -> None:
    """llguidance compiles the Lark of 500 of BFCL's functions, xgrammar the GBNF and the
    structural tag (JSON arguments, XML-style, bare objects; not pythonic, whose GBNF
    xgrammar takes tens of seconds to compile, benchmarks/README.md). (The Lark of all of
    them at once, about 2,000, passes llguidance 1.x's limit of 65,525 grammar symbols: it
    panics.)"""
    fmt = formats.get(name)
    tools = normalize_tools(list(bfcl_tools().values())[:500])
    check(export(fmt, tools, "lark").text, "")  # compiles, else an AssertionError
    xgrammar = _xgrammar()
    xgrammar.Grammar.from_ebnf(export(fmt, tools, "gbnf").text)
    xgrammar.Grammar.from_structural_tag(export(fmt, tools, "structural-tag").text)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama-3", "llama-4", "pythonic"])
def test_the_engines_read_free_text_over_bfcl_names(name: str) -> None:
    """Where free text may hold no call head, xgrammar reads the GBNF of all of BFCL's
    functions (compiling it for a vocabulary takes minutes: benchmarks/README.md), and
    llguidance compiles the Lark of 100 (Llama 3's of 300 passes its symbol limit, as all
    formats' of 2,000 do): prose is viable there, a head spaced out in it is refused."""
    tools = bfcl_tools()
    fmt = formats.get(name)
    _xgrammar().Grammar.from_ebnf(export(fmt, tools, "gbnf").text)
    some = normalize_tools(list(tools.values())[:100])
    lark = export(fmt, some, "lark").text
    head = " ".join(walk.build(fmt, some, None, Options(), ()).heads[-1])
    prose = 'Call it [like this], or {"name": 1}: '
    viable = check(lark, prose)
    assert viable.viable == viable.tokens, viable
    refused = check(lark, prose + head)
    assert refused.viable < refused.tokens, (head, refused)
