"""The value parsers' shortcuts change no outcome: with them on and inside `disabled()`, the
same statuses after every delta, emitted items, partial values, values, ends and errors
(position, expectation, context), for valid inputs, their prefixes and mutations, fed in one
piece, per character and in random chunks."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sampled import sample

from protocall.blocks.schema_typing import schema_typing
from protocall.combinators import NEED_MORE, Parser, Text
from protocall.formats.deepseek import DSML, DSML_SPELLINGS, DSML_V41
from protocall.formats.deepseek import dsml_layout as dsml
from protocall.formats.glm import LAYOUT as GLM
from protocall.formats.kimi_k3 import LAYOUT as KIMI_K3
from protocall.formats.minimax import LAYOUT as MINIMAX
from protocall.formats.qwen3_coder import LAYOUT as QWEN3_CODER
from protocall.formats.seed_oss import LAYOUT as SEED_OSS
from protocall.shortcuts import disabled, enabled
from protocall.testing import chunkings
from protocall.values import (
    Layout,
    json_object,
    json_string,
    json_value,
    partial_json,
    python_call,
    python_calls,
    xml_arguments,
)
from protocall.values.json import JsonValue, NestedObjects
from protocall.values.xmlargs import XmlArguments

Trace = tuple[Any, ...]


def trace(parser: Parser[Any], chunks: Sequence[str], json_text: bool) -> Trace:
    """Everything a run of `parser` over `chunks` shows: per delta its status, items and
    (`json_text`: the parser streams JSON text) partial value; then the outcome."""
    run = parser.run()
    steps = []
    streamed = ""
    for chunk in chunks:
        if run.status is not NEED_MORE:
            break
        status = run.feed(chunk)
        items = run.take()
        streamed += "".join(item.text for item in items if isinstance(item, Text))
        partial = partial_json(streamed) if json_text and status is NEED_MORE else None
        steps.append((status, items, partial))
    if run.status is NEED_MORE:
        run.finish()
    error = run.error
    failure = None if error is None else (str(error), error.position, error.context)
    return steps, run.status, run.value, run.end, failure, run.take()


def assert_same(make: Callable[[], Parser[Any]], chunks: Sequence[str], json_text: bool) -> None:
    fast = trace(make(), chunks, json_text)
    with disabled():
        plain = trace(make(), chunks, json_text)
    assert repr(fast) == repr(plain)  # repr: 1, 1.0 and True differ


@st.composite
def variants(draw: st.DrawFn, text: str, alphabet: str) -> str:
    """`text`, a prefix of it, or it with one character inserted, deleted or replaced."""
    kind = draw(st.sampled_from(["whole", "prefix", "insert", "delete", "replace"]))
    if kind == "whole" or not text:
        return text
    at = draw(st.integers(0, len(text) - 1))
    if kind == "prefix":
        return text[:at]
    if kind == "delete":
        return text[:at] + text[at + 1 :]
    char = draw(st.sampled_from(alphabet))
    return text[:at] + char + text[at + (kind == "replace") :]


# -- JSON ----------------------------------------------------------------------------------

JSON_CHARS = '{}[]":,.-+eE0123456789 \n\\/ubtnrfaslxé\U0001f600\ud83d'
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**25), 10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.sampled_from('ab "\\/\n\t\x01é\U0001f600<>'), max_size=12)
)
json_data = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.sampled_from('ab"\\é'), max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    data = draw(json_data)
    indent = draw(st.sampled_from([None, 0, 2]))
    text = json.dumps(data, indent=indent, ensure_ascii=draw(st.booleans()))
    return draw(variants(text, JSON_CHARS))


JSON_PARSERS: dict[str, Callable[[], Parser[Any]]] = {
    "json_value": json_value,
    "json_object": json_object,
    "json_string": json_string,
    "json_value bounded": lambda: json_value(max_depth=2, max_size=40),
    "nested_objects": lambda: NestedObjects(max_depth=2, max_size=60),
}


@pytest.mark.parametrize("name", sample(JSON_PARSERS, ["json_value", "nested_objects"]))
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_json_parsers_are_the_same_with_and_without_shortcuts(
    name: str, data: st.DataObject
) -> None:
    text = data.draw(json_texts())
    chunks = data.draw(chunkings(text))
    assert_same(JSON_PARSERS[name], chunks, name != "nested_objects")


# -- Python calls ---------------------------------------------------------------------------

PYTHON_CHARS = "()[]{},:=.'\"\\ \n0123456789xeE_-+abcfTN"
python_data = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.sampled_from("ab'\"\\\n\té\U0001f600"), max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text("ab", max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
names = st.sampled_from(["f", "get_weather", "a.b", "_x1"])


@st.composite
def calls(draw: st.DrawFn) -> str:
    keys = draw(st.lists(st.sampled_from(["a", "city", "n_2", "from"]), unique=True, max_size=3))
    space = draw(st.sampled_from(["", " ", "\n  "]))
    arguments = [f"{key}{space}={space}{draw(python_data)!r}" for key in keys]
    return f"{draw(names)}({space}{(',' + space).join(arguments)}{space})"


@st.composite
def python_texts(draw: st.DrawFn, many: bool) -> str:
    text = f"[{', '.join(draw(st.lists(calls(), max_size=3)))}]" if many else draw(calls())
    return draw(variants(text, PYTHON_CHARS))


@pytest.mark.parametrize("many", sample([False, True], [True]), ids=["python_call", "python_calls"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_python_calls_are_the_same_with_and_without_shortcuts(
    many: bool, data: st.DataObject
) -> None:
    text = data.draw(python_texts(many))
    chunks = data.draw(chunkings(text))
    assert_same(python_calls if many else python_call, chunks, False)


# -- XML-style arguments ----------------------------------------------------------------------

LAYOUTS = {
    "qwen3_coder": QWEN3_CODER,
    "seed_oss": SEED_OSS,
    "glm": GLM,
    "glm_47": replace(GLM, unclosed_at_end=("<tool_call>", "<|user|>")),
    "minimax": MINIMAX,
    "dsml": DSML,
    "dsml_v41": DSML_V41,
    **{f"dsml {spelling}": dsml(spelling) for spelling in DSML_SPELLINGS},
    "kimi_k3": KIMI_K3,
}
SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "hourly": {"type": "boolean"},
        "tags": {"type": "array"},
        "code": {"type": "string"},
    },
}
VALUE_PIECES = ["a", "Z", " ", "\n", "<", ">", "/", "=", '"', "\\", "&quot;", "|", "｜", "é"]


@st.composite
def xml_texts(draw: st.DrawFn, layout: Layout) -> str:
    keys = draw(st.lists(st.sampled_from([*SCHEMA["properties"], "other"]), unique=True))
    markers = [layout.opener, layout.value_close, layout.end, layout.key_close]
    parts = []
    for key in keys[:4]:
        if key in ("days", "hourly", "tags"):
            raw, kind = json.dumps(draw(json_data)), "false"
        else:
            pieces = st.sampled_from(VALUE_PIECES + markers)
            raw, kind = "".join(draw(st.lists(pieces, max_size=6))), "true"
        if layout.key_attribute is None:
            head = f"{layout.opener}{key}{layout.key_close}"
        else:
            typed = f' {layout.type_attribute}="{kind}"' if layout.type_attribute else ""
            head = f'{layout.opener} {layout.key_attribute}="{key}"{typed}{layout.key_close}'
        if layout.framing_newlines:
            raw = f"\n{raw}\n"
        parts.append(f"{head}{layout.value_open}{raw}{layout.value_close}")
    gap = draw(st.sampled_from(["\n", "", " \n "]))
    text = gap + gap.join(parts) + gap + layout.end
    return draw(variants(text, "".join({*"".join(markers), *"".join(VALUE_PIECES)})))


@pytest.mark.parametrize("name", sample(LAYOUTS, ["qwen3_coder", "glm_47", "dsml", "kimi_k3"]))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_xml_arguments_are_the_same_with_and_without_shortcuts(
    name: str, data: st.DataObject
) -> None:
    layout = LAYOUTS[name]
    text = data.draw(xml_texts(layout))
    markers = (layout.opener, layout.key_close, layout.value_close, layout.end, "\n")
    chunks = data.draw(chunkings(text, markers))
    assert_same(lambda: xml_arguments(layout, schema_typing(SCHEMA)), chunks, True)


def test_disabled_runs_the_plain_steps() -> None:
    """Inside `disabled()` the value parsers run their plain steps, and the shortcuts' while
    they are on, so the tests above compare two different implementations."""
    parsers = (JsonValue, NestedObjects, XmlArguments)
    with disabled():
        plain = {cls.step.__module__ for cls in parsers}
        assert plain == {"protocall.values.json", "protocall.values.xmlargs"}
        assert XmlArguments.wait_value.__module__ == "protocall.values.xmlargs"
    if enabled():
        assert {JsonValue.step.__module__, NestedObjects.step.__module__} == {
            "protocall.shortcuts.json"
        }
        assert XmlArguments.wait_value.__module__ == "protocall.shortcuts.xmlargs"
