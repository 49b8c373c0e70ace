"""The grammar export over real tool sets (tests/grammar/data/real_tools.json: tau-bench airline and
retail shaped tools, the MCP reference servers' filesystem, fetch, git, memory and time
tools, written for these tests from the public descriptions of those tools): every format
exports them in every dialect, the engines compile what it exports (llguidance the Lark,
xgrammar the GBNF and the structural tags), and on valid and violating arguments the
grammars accept every valid call and refuse every violation of a keyword they express;
a violation they accept is of a keyword the export reports as dropped."""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from gbnf_recognizer import Recognizer
from grammar_oracle import EXPORTABLE, check, completes, dialects, in_order
from sampled import every_format

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.grammar import Options, export, schemas, walk
from protocall.spec.codecs import JsonObject, NameAndArguments, NameKey, PythonKeywords
from protocall.tools import normalize_tools

REAL = json.loads((Path(__file__).parent / "data" / "real_tools.json").read_text())
TOOLS = normalize_tools(REAL)
assert TOOLS is not None
JSON_CODECS = (JsonObject, NameAndArguments, NameKey)


@functools.cache
def xgrammar() -> Any:
    """xgrammar (it imports torch and triton): a skip where the server wheels are absent,
    a failure where CI installs them (`servers_shim.require`, which lives with the server
    tests, which run beside these or not at all)."""
    harness = str(Path(__file__).resolve().parents[1] / "integrations")
    if harness not in sys.path:
        sys.path.append(harness)
    import servers_shim

    return servers_shim.require("xgrammar")


@functools.cache
def exported(name: str, dialect: str) -> Any:
    options = Options(tool_choice="required", parallel=False)
    fmt = formats.get(name)
    return export(fmt, TOOLS, dialect, start=fmt.start_state(fmt.prompt_for(None)), options=options)


@pytest.mark.parametrize("name", EXPORTABLE)
def test_the_real_tools_export_in_every_dialect_and_the_engines_compile_them(name: str) -> None:
    for dialect in dialects(name):
        result = exported(name, dialect)
        for line in result.dropped:  # `where: keyword value`, never an annotation
            keyword = line.rsplit(": ", 1)[1].split(" ")[0]
            assert keyword not in schemas.ANNOTATIONS, line
        if dialect == "lark":
            check(result.text, "")  # compiles (else an AssertionError with the error)
        elif dialect == "structural-tag":
            xgrammar().Grammar.from_structural_tag(result.text)
        else:
            gbnf = json.loads(result.text)["grammar"] if dialect == "gbnf-lazy" else result.text
            xgrammar().Grammar.from_ebnf(gbnf)


def test_what_each_dialect_drops_of_the_real_tools() -> None:
    lark, gbnf = exported("hermes", "lark").dropped, exported("hermes", "gbnf").dropped
    assert lark == ()  # llguidance's %json takes every keyword and format of the set
    keywords = {line.rsplit(": ", 1)[1].split(" ")[0] for line in gbnf}
    assert keywords == {"minimum", "maximum", "exclusiveMinimum", "format"}  # of numbers
    assert "the parameters of 'register_device'.owner: format \"email\"" in gbnf
    raw = exported("qwen3-coder", "lark").dropped  # raw-text strings: formats but four
    assert set(raw) == {"parameter 'url' of 'fetch': format \"uri\"",
                        "parameter 'owner' of 'register_device': format \"email\"",
                        "parameter 'address' of 'register_device': format \"ipv4\""}  # fmt: skip
    assert set(exported("qwen3-coder", "gbnf").dropped) - set(raw) == {  # and other numbers' bounds
        "parameter 'payment_methods' of 'book_reservation'[].amount: minimum 0",
        "parameter 'amount' of 'send_certificate': exclusiveMinimum 0",
        "parameter 'amount' of 'send_certificate': maximum 500",
    }
    literals = exported("pythonic", "lark").dropped  # Python literals: strings written too
    assert not any("total_baggages" in line or "origin" in line for line in literals)
    assert not any("'git_log'" in line for line in literals)  # a date, or null
    assert "parameter 'flights' of 'book_reservation': maxItems 4" in literals
    assert not any("$ref" in line for line in literals)  # a rule each, recursive ones too


def test_an_unknown_format_is_dropped_for_llguidance_not_refused() -> None:
    tool = {"name": "f", "parameters": {"type": "object", "properties": {
        "u": {"type": "string", "format": "uri-reference"}}}}  # fmt: skip
    result = export(formats.get("hermes"), normalize_tools([tool]), "lark")
    assert result.dropped == ("the parameters of 'f'.u: format \"uri-reference\"",)
    assert "uri-reference" not in result.text
    check(result.text, "")


@pytest.mark.parametrize("known", sorted(schemas.LARK_FORMATS))
def test_llguidance_knows_the_formats_lark_keeps(known: str) -> None:
    tool = {"name": "f", "parameters": {"type": "object", "properties": {
        "v": {"type": "string", "format": known}}}}  # fmt: skip
    result = export(formats.get("hermes"), normalize_tools([tool]), "lark")
    assert result.dropped == () and known in result.text
    check(result.text, "")


def test_a_relocated_schema_keeps_its_references_and_its_data() -> None:
    schema = {"properties": {"const": {"$ref": "#/$defs/a"}, "e": {"enum": ["#/x"]}},
              "$defs": {"a": {"items": [{"$ref": "#"}]}}}  # fmt: skip
    moved = schemas.relocated(schema, "#/$defs/t")
    assert moved["properties"]["const"] == {"$ref": "#/$defs/t/$defs/a"}
    assert moved["properties"]["e"] == {"enum": ["#/x"]}


# -- grammar and schema agree on valid and violating arguments -------------------------------

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_direct_flight", {"origin": "JFK", "destination": "LAX", "date": "2024-05-01"}),
    ("search_direct_flight", {"origin": "JFKX", "destination": "LAX", "date": "2024-05-01"}),
    ("search_direct_flight", {"origin": "JFK", "destination": "LAX", "date": "2024-13-01"}),
    ("update_reservation_baggages", {"reservation_id": "ZFA04Y", "total_baggages": 3,
                                     "nonfree_baggages": 0, "payment_id": "gift_card_1"}),
    ("update_reservation_baggages", {"reservation_id": "zfa04y", "total_baggages": 3,
                                     "nonfree_baggages": 0, "payment_id": "gift_card_1"}),
    ("update_reservation_baggages", {"reservation_id": "ZFA04Y", "total_baggages": 10,
                                     "nonfree_baggages": 0, "payment_id": "gift_card_1"}),
    ("send_certificate", {"user_id": "u1", "amount": 0}),
    ("send_certificate", {"user_id": "u1", "amount": 150.5}),
    ("modify_pending_order_address", {"order_id": "#W1", "address": {"address1": "1 Main St",
     "city": "Austin", "state": "TX", "country": "USA", "zip": "73301"}}),
    ("modify_pending_order_address", {"order_id": "#W1", "address": {"address1": "1 Main St",
     "city": "Austin", "state": "Texas", "country": "USA", "zip": "73301"}}),
    ("modify_pending_order_address", {"order_id": "#W1", "address": {"address1": "1 Main St",
     "city": "Austin", "state": "TX", "country": "US", "zip": "73301"}}),
    ("exchange_delivered_order_items", {"order_id": "#W0000001", "item_ids": [],
                                        "new_item_ids": ["2"], "payment_method_id": "p"}),
    ("read_text_file", {"path": "/tmp/a.txt", "head": 10}),
    ("read_text_file", {"path": "/tmp/a.txt", "head": 0}),
    ("edit_file", {"path": "a", "edits": [{"oldText": "x", "newText": "y"}], "dryRun": True}),
    ("edit_file", {"path": "a", "edits": [{"oldText": "x"}]}),
    ("fetch", {"url": "https://example.com/a", "max_length": 2000}),
    ("fetch", {"url": "", "raw": True}),
    ("git_log", {"repo_path": ".", "start_timestamp": "2024-05-01T10:00:00Z",
                 "end_timestamp": None}),
    ("git_log", {"repo_path": ".", "start_timestamp": "yesterday"}),
    ("create_entities", {"entities": [{"name": "a", "entityType": "person", "observations": [],
     "children": [{"name": "b", "entityType": "pet", "observations": ["cat"]}]}]}),
    ("create_entities", {"entities": [{"name": "a", "entityType": "person", "observations": [],
     "children": [{"name": "b", "entityType": "pet", "observations": "cat"}]}]}),
    ("get_current_time", {"timezone": "Europe/London", "at": "10:30:00+01:00"}),
    ("get_current_time", {"timezone": "Europe/London", "at": "25:30:00Z"}),
    ("register_device", {"device_id": "123e4567-e89b-12d3-a456-426614174000",
                         "owner": "a@example.com", "address": "10.0.0.1", "location": [1.5, 2],
                         "tags": ["x"], "limits": {"rate": 3}, "mode": "auto"}),
    ("register_device", {"device_id": "123e4567-e89b-12d3-a456"}),
    ("register_device", {"device_id": "123e4567-e89b-12d3-a456-426614174000",
                         "location": [1, 2, 3]}),
    ("register_device", {"device_id": "123e4567-e89b-12d3-a456-426614174000", "limits": {}}),
    ("register_device", {"device_id": "123e4567-e89b-12d3-a456-426614174000", "mode": 7}),
    ("register_device", {"device_id": "123e4567-e89b-12d3-a456-426614174000",
                         "owner": "nobody", "address": "999.1.1.1"}),
    ("register_device", {"device_id": "123e4567-e89b-12d3-a456-426614174000",
                         "tags": ["a-tag-longer-than-sixteen"]}),
]  # fmt: skip


_TIME = r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
_DATE = r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
FORMATS = jsonschema.FormatChecker()
"""jsonschema's format checks, RFC 3339 times added (it checks them only with an extra
package installed)."""
FORMATS.checks("time")(lambda value: re.fullmatch(_TIME, value) is not None)
FORMATS.checks("date-time")(lambda v: re.fullmatch(f"{_DATE}[Tt ]{_TIME}", v) is not None)


_EVERY_DIALECT = {"type", "const", "enum"}


def violations(name: str, arguments: dict[str, Any]) -> set[str]:
    """The keywords of the tool's schema that `arguments` violate (formats checked)."""
    schema = {"type": "object", **TOOLS[name].parameters}
    validator = jsonschema.Draft202012Validator(schema, format_checker=FORMATS)
    found = set()
    for error in validator.iter_errors(arguments):
        branches = {str(e.validator) for e in error.context or ()}  # anyOf: the branches
        found |= (branches - _EVERY_DIALECT or branches) or {str(error.validator)}  # it fits
    return found


def _accepts(name: str, dialect: str, text: str) -> bool:
    result = exported(name, dialect)
    if dialect == "lark":
        return check(result.text, text).accepted
    if dialect == "structural-tag":  # the calls alone: without the turn's stop
        stop = next(s for s in formats.get(name).spec.stops if text.endswith(s))
        tag = xgrammar().Grammar.from_structural_tag(result.text)
        return bool(xgrammar().testing._is_grammar_accept_string(tag, text.removesuffix(stop)))
    by_xgrammar = xgrammar().testing._is_grammar_accept_string(
        xgrammar().Grammar.from_ebnf(result.text), text
    )
    assert by_xgrammar == Recognizer(result.text).accepts(text), text
    return bool(by_xgrammar)


REFUSED = {("hermes", "lark"): 20, ("mistral", "lark"): 20, ("qwen3-coder", "lark"): 19,
           ("glm-4.5", "lark"): 19, ("pythonic", "lark"): 16, ("hermes", "gbnf"): 18,
           ("mistral", "gbnf"): 18, ("qwen3-coder", "gbnf"): 18, ("glm-4.5", "gbnf"): 18,
           ("pythonic", "gbnf"): 16, ("qwen3-coder", "structural-tag"): 18,
           ("glm-4.5", "structural-tag"): 18, ("pythonic", "structural-tag"): 16}  # fmt: skip
"""How many of the violating calls each grammar refuses: all in Lark's JSON (llguidance
expresses every keyword); raw-text strings and Python literals write a string's pattern,
lengths and four formats (Lark's raw text drops the others, `email` among them); Python
literals drop other numbers' bounds and array lengths; GBNF drops the bounds of other
numbers and formats but four; a structural tag of calls that are not JSON holds GBNF."""


@pytest.mark.parametrize(
    "name", every_format(["hermes", "qwen3-coder", "pythonic", "mistral", "glm-4.5"])
)
@pytest.mark.parametrize("dialect", ["lark", "gbnf", "structural-tag"])
def test_valid_calls_are_accepted_and_expressed_violations_refused(name: str, dialect: str) -> None:
    if dialect == "structural-tag" and name not in RAW_AND_LITERAL:
        pytest.skip("xgrammar reads the JSON schemas itself (its allOf support is partial)")
    fmt = formats.get(name)
    refused = 0
    in_gbnf = dialect == "gbnf" or (dialect == "structural-tag" and name in RAW_AND_LITERAL)
    for tool, arguments in CALLS:
        if in_gbnf or dialect == "structural-tag":  # one fixed order (GBNF: required first)
            schema = TOOLS[tool].parameters
            arguments = in_order(arguments, schema, required_first=in_gbnf)
        text = fmt.render(Turn(None, (ToolUse(tool, arguments),)), None)
        broken = violations(tool, arguments)
        accepted = _accepts(name, dialect, text)
        dropped = [line for line in exported(name, dialect).dropped if f"'{tool}'" in line]
        complete, shown = completes(fmt, TOOLS, text)
        problem = f"{name} {dialect} {tool} {arguments}: violates {broken}, parser {shown}"
        if not broken:
            assert accepted and complete, problem
            continue
        # the parser's validation reports it, `format` aside (an annotation to it, as JSON
        # Schema's default is; the engines enforce it, docs/grammar.md)
        assert not complete or broken == {"format"}, problem
        if accepted:  # looser there: each violated keyword is one the export dropped
            assert all(any(f": {k} " in line for line in dropped) for k in broken), problem
        refused += not accepted
    assert refused == REFUSED[name, dialect]  # of the 20 violating calls


@pytest.mark.parametrize("name", ["pythonic", "gemma-4"])
def test_integer_bounds_of_python_literals_are_written(name: str) -> None:
    """A bounded integer argument of a Python-literal (or bare-object) format: both
    grammars accept exactly the calls protocall reads with no validation error."""
    fmt = formats.get(name)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1,
              "exclusiveMaximum": 13}}, "required": ["n"]}  # fmt: skip
    tools = normalize_tools([{"name": "f", "parameters": schema}])
    options = Options(tool_choice="required", parallel=False)
    start = fmt.start_state(fmt.prompt_for(None))
    lark, gbnf = (export(fmt, tools, d, start=start, options=options) for d in ("lark", "gbnf"))
    assert lark.dropped == gbnf.dropped == ()
    for number in range(-15, 30):
        text = fmt.render(Turn(None, (ToolUse("f", {"n": number}),)), None)
        complete, shown = completes(fmt, tools, text)
        assert complete == (1 <= number < 13), shown
        accepted = check(lark.text, text).accepted, Recognizer(gbnf.text).accepts(text)
        assert accepted == (complete, complete), (text, accepted)


RAW_AND_LITERAL = ["pythonic", "lfm2", "llama-4", "gemma-4", "functiongemma", "qwen3-coder",
                   "glm-4.5", "minimax-m2", "deepseek-v3.2", "kimi-k3", "seed-oss",
                   "step-3"]  # fmt: skip
STRING_KEYWORDS = [
    {"pattern": "^[A-Z]{3}$"},
    {"minLength": 2, "maxLength": 4},
    {"pattern": "^#W[0-9]+$", "maxLength": 5},
    {"pattern": "[0-9]"},
    {"format": "date"},
]
STRING_VALUES = ["JFK", "JF", "JFKX", "jfk", "#W12", "#W123", "#W", "ab'c", 'a"b', "a\\b",
                 "a<b", "a\nb", "a\tb\x01", "2024-05-01", "2024-13-01", "", "é😀",
                 "x 7"]  # fmt: skip


@pytest.mark.parametrize("name", every_format(RAW_AND_LITERAL))
@pytest.mark.parametrize("keywords", STRING_KEYWORDS)
def test_strings_of_raw_text_and_python_literals_keep_their_keywords(
    name: str, keywords: dict[str, Any]
) -> None:
    """A string parameter's pattern, lengths and format in formats whose strings are raw
    text (XML layouts, bare objects) or Python literals: nothing dropped; over values as
    the format writes them, Lark (llguidance) accepts exactly the valid ones, GBNF (the
    recognizer) only valid ones, and every valid one but those holding a character that
    begins one of the format's markers in raw text (`<`: the GBNF leaves them out,
    narrower, as docs/grammar.md says)."""
    fmt = formats.get(name)
    schema = {"type": "object", "properties": {"s": {"type": "string", **keywords}},
              "required": ["s"]}  # fmt: skip
    tools = normalize_tools([{"name": "f", "parameters": schema}])
    options = Options(tool_choice="required", parallel=False)
    start = fmt.start_state(fmt.prompt_for(None))
    lark, gbnf = (export(fmt, tools, d, start=start, options=options) for d in ("lark", "gbnf"))
    assert lark.dropped == gbnf.dropped == ()
    raw = not isinstance(walk.spec_of(fmt).call.arguments, PythonKeywords)
    validator = jsonschema.Draft202012Validator(schema, format_checker=FORMATS)
    for value in STRING_VALUES:
        text = fmt.render(Turn(None, (ToolUse("f", {"s": value}),)), None)
        valid = validator.is_valid({"s": value})
        complete, shown = completes(fmt, tools, text)
        assert complete == (valid or "format" in keywords), (text, shown)  # format: see above
        assert check(lark.text, text).accepted == valid, (name, text)
        by_gbnf = Recognizer(gbnf.text).accepts(text)
        narrower = raw and "<" in value
        assert by_gbnf == (valid and not narrower), (name, text)
