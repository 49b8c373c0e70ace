"""`protocall.compile.templates`: a family's loose calls described by a template, for any spec.

Two toy families no model writes — JSON arguments, and XML-style arguments with an
alternative spelling — pass the whole testing kit, so the block is not DeepSeek's alone.
"""

from __future__ import annotations

import pytest

from protocall.blocks.turns import ToolUse, Turn
from protocall.compile.factory import build
from protocall.compile.format import Format
from protocall.compile.templates import Template
from protocall.spec import Call, Section, Spec
from protocall.spec.codecs import XmlArguments
from protocall.testing import assert_format, verify
from protocall.values.xmlargs import Layout

TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "properties": {
    "location": {"type": "string"}, "days": {"type": "integer"}}}}]  # fmt: skip
PROMPT = "<|assistant|>"
JSON_CALLS = Template("<|call|>{name}<|args|>{arguments}<|end|>", ("<|calls|>", "<|/calls|>"),
                      bare=True)  # fmt: skip
LAYOUT = Layout("<arg", ">", "</arg>", "</invoke>", key_attribute="name")  # typed by the schema
XML_CALLS = Template('<invoke name="{name}">\n{arguments}\n</invoke>',
                     ("\n<calls>\n", "\n</calls>"), "\n", layout=LAYOUT)  # fmt: skip
# the same two families as specs: a `loose` call is read by a Template
JSON_SPEC = Spec(
    "toy-json",
    "toy",
    Call(JSON_CALLS.call, loose=True),
    ("<|eot|>",),
    section=Section(("<|calls|>",), ("<|/calls|>",), bare=True),
    prompt=PROMPT,
)
XML_SPEC = Spec(
    "toy-xml",
    "toy",
    Call(XML_CALLS.call, XmlArguments(LAYOUT, "\n"), between="\n", loose=True),
    ("<|eot|>",),
    section=Section(("\n<calls>\n",), ("\n</calls>",)),
    prompt=PROMPT,
    respelled=(("invoke", "call"),),
)
JSON_FORMAT, XML_FORMAT = build(JSON_SPEC), build(XML_SPEC)


def test_markers_and_openers_follow_from_the_template() -> None:
    assert JSON_CALLS.openers == ("<|calls|>", "<|call|>")  # bare: the call's own opener too
    assert JSON_CALLS.markers == ("<|calls|>", "<|/calls|>", "<|call|>", "<|args|>", "<|end|>")
    assert XML_CALLS.markers == ("<calls>", "</calls>", "<invoke", "</invoke>", "<arg", "</arg>")


@pytest.mark.parametrize("fmt", [JSON_FORMAT, XML_FORMAT], ids=["json", "xml"])
def test_a_rendered_call_parses_back(fmt: Format) -> None:
    use = ToolUse("get_weather", {"location": "Paris", "days": 3})
    output = fmt.render(Turn(None, ("Sure.", use)), None)
    template = JSON_CALLS if fmt is JSON_FORMAT else XML_CALLS
    assert output.startswith(f"Sure.{template.section[0]}") and output.endswith("<|eot|>")
    message = verify(fmt, output, PROMPT, tools=TOOLS)
    assert message.content == "Sure."
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("get_weather", use.arguments)]


def test_a_respelling_is_accepted_and_a_bare_call_counts() -> None:
    respelled = (
        '\n<calls>\n<call name="get_weather">\n<arg name="location">Paris</arg>\n</call>\n</calls>'
    )
    message = verify(XML_FORMAT, respelled + "<|eot|>", PROMPT, tools=TOOLS)
    assert message.tool_calls[0].arguments == {"location": "Paris"}
    bare = '<|call|>get_weather<|args|>{"days": 2}<|end|><|eot|>'
    message = verify(JSON_FORMAT, bare, PROMPT, tools=TOOLS)
    assert message.tool_calls[0].arguments == {"days": 2}


@pytest.mark.parametrize("fmt", [JSON_FORMAT, XML_FORMAT], ids=["json", "xml"])
def test_the_testing_kit_holds(fmt: Format) -> None:
    assert_format(fmt, max_examples=10, seed=0)
