"""The semantic tree of any output, a damaged one too: nodes nest, in order, each offset
of the output in one place at most, every text span the output's own text there."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sampled import every_format

from protocall import ast, formats
from protocall.ast import Node, TextSpan
from protocall.spec import JsonTurn
from protocall.testing import cases, chunkings


def well_formed(node: Node, text: str, arguments: bool = False, decoded: bool = False) -> None:
    """`node` spans its children, which follow one another without overlapping; a text
    span is the output's text at its offsets (but in a call's arguments, whose text is
    their JSON, written by the format where its arguments are not JSON; and, where the
    turn is one JSON object (`decoded`), the answer's text from its offsets on as the
    inside of a JSON string spells it: an escape stands for its character)."""
    assert node.end is not None and node.start <= node.end, node
    at = node.start
    arguments = arguments or node.tag == ast.TOOL_ARGUMENTS
    for child in node.children:
        if isinstance(child, TextSpan):
            if not arguments:
                assert at <= child.start and child.end <= node.end, (node, child)
                written = text[child.start : child.end] == child.text
                assert written or (decoded and json_spelled(text, child)), child
                at = child.end
            continue
        assert at <= child.start and child.end is not None and child.end <= node.end, (
            node,
            child,
        )
        well_formed(child, text, arguments, decoded)
        at = child.end


def json_spelled(text: str, span: TextSpan) -> bool:
    """Whether the output from the span's start on spells its text as the inside of a JSON
    string (an escape is at most 6 characters for one it stands for)."""
    for end in range(span.start + len(span.text), span.start + 6 * len(span.text) + 1):
        try:
            if json.loads(f'"{text[span.start : end]}"') == span.text:
                return True
        except ValueError:
            continue
    return False


@st.composite
def damaged(draw: st.DrawFn, fmt: formats.Format) -> tuple[Any, str, str | None]:
    """A rendered turn of `fmt` with a few characters deleted or doubled, maybe cut."""
    case = draw(cases(fmt))
    text = case.text
    for _ in range(draw(st.integers(1, 3))):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + text[at + 1 :] if draw(st.booleans()) else text[:at] + text[at:]
        text = text[:at] + (text[at] if at < len(text) and draw(st.booleans()) else "") + text[at:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return case.tools, text, case.generation_prompt


@pytest.mark.parametrize("name", every_format())
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_tree_of_a_damaged_turn_is_well_formed(name: str, data: st.DataObject) -> None:
    """A malformed call's region is one `error` node holding its text: what the call had
    opened before it failed is not in the tree beside it (its text would be there twice)."""
    fmt = formats.get(name)
    tools, text, prompt = data.draw(damaged(fmt))
    for chunks in ([text], data.draw(chunkings(text))):
        session = fmt.parser(tools, prompt)
        for chunk in chunks:
            session.feed(chunk)
        session.finish()
        well_formed(
            session.ast, text, decoded=isinstance(getattr(fmt.spec, "turn", None), JsonTurn)
        )


def test_a_malformed_call_is_one_error_node() -> None:
    tools = [{"name": "get_weather", "parameters": {"type": "object"}}]
    text = 'Hi <tool_call>{"name": "get_weather", "arguments": {"city": }}</tool_call> bye'
    session = formats.get("hermes").parser(tools)
    session.feed(text)
    session.finish()
    tags = [(node.tag, node.start, node.end) for node in session.ast.walk()]
    assert tags == [("turn", 0, 78), ("content", 0, 3), ("error", 3, 74), ("content", 74, 78)]
