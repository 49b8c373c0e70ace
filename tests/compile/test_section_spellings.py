"""Every spelling of a section's begin and end reads the same calls, whatever reads the
calls inside: a JSON array, Python calls, an XML layout, a template with `opens_at="marker"`.
(A JSON array section used to read its first end only: `</b>` stayed in the content.)"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from protocall.compile.factory import build
from protocall.spec import Call, Section, Spec
from protocall.spec.codecs import Attribute, NameAndArguments, PythonKeywords, XmlArguments
from protocall.testing import verify
from protocall.values.xmlargs import Layout

BEGINS, ENDS = ("<a>", "<b>"), ("</a>", "</b>")
EXPECTED = {"reasoning_content": None, "content": "XY", "tool_calls": [
    {"name": "f", "arguments": {"k": "v"}}]}  # fmt: skip
TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"k": {"type": "string"}}}}]
KINDS: dict[str, tuple[Call, dict[str, Any], str]] = {
    "json array": (
        Call("{call}", NameAndArguments(), between=", "),
        {"array": True},
        '[{"name": "f", "arguments": {"k": "v"}}]',
    ),
    "python calls": (
        Call("{name}({arguments})", PythonKeywords(), between=", "),
        {},
        '[f(k="v")]',
    ),
    "xml layout": (
        Call(
            '<tool name="{name}">{arguments}</tool>',
            XmlArguments(Layout("<arg", ">", "</arg>", "</tool>", key_attribute="name")),
            name=Attribute(),
        ),
        {},
        '<tool name="f"><arg name="k">v</arg></tool>',
    ),
    "opens at a marker": (
        Call('<call name="{name}">{arguments}</call>', name=Attribute()),
        {"opens_at": "marker"},
        '<call name="f">{"k": "v"}</call>',
    ),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("begin", "end"), list(itertools.product(BEGINS, ENDS)))
def test_every_spelling_of_a_section_reads_its_calls(kind: str, begin: str, end: str) -> None:
    call, options, calls = KINDS[kind]
    spec = Spec(
        name="spellings",
        summary="a section of two spellings",
        call=call,
        section=Section(BEGINS, ENDS, **options),
        stops=("<|end|>",),
    )
    verify(build(spec), f"X{begin}{calls}{end}Y", tools=TOOLS, expected=EXPECTED)
