"""The `minimax-m3` format, from the shapes of vLLM's MiniMax-M3 tool parser tests
(vllm-project/vllm, tests/tool_parsers/test_minimax_m3_tool_parser.py: a nested call with
an object, a list of objects and a free-form object; several invokes in one block; plain
text; a damaged block), SGLang's MinimaxM3Detector and MiniMax-M3's chat template, our
own strings, one-shot and streamed in every test."""

from __future__ import annotations

from typing import Any

import peer_tools
import pytest

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import UsageError
from protocall.message import Message
from protocall.testing import assert_format, example_tests, verify

FMT = formats.get("minimax-m3")
P = "]<]minimax[>["
ADAPTIVE, THINKING, THINKING_OFF = "]~b]ai\n", "]~b]ai\n<mm:think>", "]~b]ai\n</mm:think>"

INTEGER, STRING = {"type": "integer"}, {"type": "string"}
BOOKING = peer_tools.tool(
    "book_trip",
    travellers=INTEGER,
    express={"type": "boolean"},
    remark=STRING,
    destination={"type": "object", "properties": {"city": STRING, "postcode": INTEGER}},
    legs={
        "type": "array",
        "items": {"type": "object", "properties": {"stop": STRING, "nights": INTEGER}},
    },
    extras={"type": "object", "additionalProperties": STRING},
    seats={"type": "array", "items": STRING},
    options={"type": "object"},
    either={"anyOf": [STRING, {"type": "object", "properties": {"k": {"type": "number"}}}]},
)
TOOLS = [*peer_tools.TOOLS, BOOKING]
"""The peers' weather and search tools, and one whose arguments nest (vLLM's test declares
an order tool of this shape)."""


def el(name: str, body: object) -> str:
    return f"{P}<{name}>{body}{P}</{name}>"


def invoke(name: str, *arguments: str) -> str:
    return f'{P}<invoke name="{name}">{"".join(arguments)}{P}</invoke>'


def block(*invokes: str) -> str:
    """A tool-call block as the template writes it: one invoke a line."""
    return f"{P}<tool_call>\n" + "".join(f"{i}\n" for i in invokes) + f"{P}</tool_call>"


TRIP = invoke(
    "book_trip",
    el("travellers", 2),
    el("express", "true"),
    el("remark", "Window seats, please."),
    el("destination", el("city", "Porto") + el("postcode", "04000")),
    el(
        "legs", el("item", el("stop", "Lisbon") + el("nights", 3)) + el("item", el("stop", "Porto"))
    ),
    el("extras", el("meal", "vegan") + el("bike", "yes")),
    el("seats", el("item", "12A") + el("item", "12B")),
)
TRIP_ARGUMENTS = {
    "travellers": 2,
    "express": True,
    "remark": "Window seats, please.",
    "destination": {"city": "Porto", "postcode": 4000},
    "legs": [{"stop": "Lisbon", "nights": 3}, {"stop": "Porto"}],
    "extras": {"meal": "vegan", "bike": "yes"},
    "seats": ["12A", "12B"],
}


def weather(location: str, days: int) -> str:
    return invoke("get_weather", el("location", location), el("days", days))


EXAMPLES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("Just text, no tools.[e~[", ADAPTIVE, {
        "reasoning_content": None, "content": "Just text, no tools.", "tool_calls": []}),
    (f"I will book it.\n{block(TRIP)}[e~[", ADAPTIVE, {
        "reasoning_content": None, "content": "I will book it.", "tool_calls": [
            {"name": "book_trip", "arguments": TRIP_ARGUMENTS}]}),
    (f"{block(weather('Oslo', 1), weather('Bergen', 2))}[e~[", ADAPTIVE, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "get_weather", "arguments": {"location": "Oslo", "days": 1}},
            {"name": "get_weather", "arguments": {"location": "Bergen", "days": 2}}]}),
    (f"<mm:think>Two cities.</mm:think>{block(weather('Oslo', 1))}[e~[", ADAPTIVE, {
        "reasoning_content": "Two cities.", "content": None, "tool_calls": [
            {"name": "get_weather", "arguments": {"location": "Oslo", "days": 1}}]}),
    (f"Need the time.</mm:think>On it.{block(invoke('get_time', el('zone', 'UTC')))}", THINKING, {
        "reasoning_content": "Need the time.", "content": "On it.", "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "UTC"}}]}),
    (f"</mm:think>{block(invoke('web_search'))}[e~[", ADAPTIVE, {
        "reasoning_content": None, "content": None, "tool_calls": [
            {"name": "web_search", "arguments": {}}]}),
    (f"Sure.{block(invoke('web_search', el('query', ' a <b> & c '), el('topn', 5)))}",
     THINKING_OFF, {
        "reasoning_content": None, "content": "Sure.", "tool_calls": [
            {"name": "web_search", "arguments": {"query": " a <b> & c ", "topn": 5}}]}),
]  # fmt: skip

test_peer_shapes = example_tests(FMT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def verified(text: str, prompt: str | None = ADAPTIVE) -> Message:
    """The message `text` reads as, the same however it arrives (`verify`)."""
    return verify(FMT, text, prompt, tools=TOOLS)


def test_a_call_renders_as_the_template_writes_it() -> None:
    turn = Turn(None, ("I will book it.", ToolUse("book_trip", TRIP_ARGUMENTS)))
    written = FMT.render(turn, None)
    assert written == f"I will book it.{block(TRIP.replace('04000', '4000'))}[e~["


def test_a_block_opener_without_a_call_after_it_is_text() -> None:
    text = f"{P}<tool_call>\n{P}</travellers> after"  # as vLLM reads it, no call begun
    message = verified(text)
    assert not message.tool_calls
    assert not message.errors
    assert message.content == text


def test_a_cut_second_invoke_leaves_the_first_call_complete() -> None:
    text = f"Plain {P}<tool_call>\n{weather('Oslo', 1)}\n{invoke('get_weather')[:-20]}"
    message = verified(text)
    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("get_weather", {"location": "Oslo", "days": 1})
    ]
    assert message.content == "Plain"
    assert len(message.errors) == 1


def test_a_repeated_key_is_an_error_where_vllm_collects_a_list() -> None:
    text = block(invoke("book_trip", el("extras", el("tag", "a") + el("tag", "b"))))
    message = verified(text)
    assert not message.tool_calls
    assert "repeated element `tag`" in message.errors[0].message
    assert message.errors[0].raw == text.removesuffix(f"\n{P}</tool_call>")


def test_the_grammar_exporter_refuses_it_by_name() -> None:
    with pytest.raises(UsageError, match="no grammar for a spec part of kind XmlElements"):
        FMT.decoding_export(TOOLS)
    assert "minimax-m3" not in formats.exportable()


def test_the_kit_s_properties_hold_with_nested_arguments() -> None:
    """Drawn turns calling a tool whose arguments nest (objects, lists of objects, a
    free-form object, a union of a string and an object), as the template writes them."""
    assert_format(FMT, tools=[BOOKING], max_examples=60, seed=3)
