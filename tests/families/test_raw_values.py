"""Raw argument values typed by the tool's schema in every family whose values are text
between tags: Python's `None` / `True` / `False` and escaped JSON (one-shot and streamed)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.testing import verify

RAW_VALUE_FAMILIES = [
    "qwen3-coder", "glm-4.5", "glm-4.7", "ling-3", "seed-oss", "minimax-m2", "step-3",
    "kimi-k3", "deepseek-v3.2", "deepseek-v4",
]  # fmt: skip
HOLE = "HOLE"
TYPE_ATTRIBUTE = re.compile(r' (?:type|string)="[^"]*"(?=(?:<\|sep\|>|>)HOLE)')
"""The type attribute Kimi K3 and DSML write for the string `HOLE` (removed: the schema
then types the value, as it does for a value written without one)."""


def tools(schema: dict[str, Any]) -> list[dict[str, Any]]:
    parameters = {"type": "object", "properties": {"v": schema, "s": {"type": "string"}}}
    return [{"type": "function", "function": {"name": "f", "parameters": parameters}}]


def written(name: str, raw: str) -> str:
    """A call of `f` as the family renders it, `v` written as the raw text `raw` with no
    type attribute (the schema given to the parser then types it)."""
    fmt = formats.get(name)
    turn = Turn(None, ("Ok.", ToolUse("f", {"v": HOLE, "s": "None"})))
    text = TYPE_ATTRIBUTE.sub("", fmt.render(turn, None))
    assert text.count(HOLE) == 1, text
    return text.replace(HOLE, raw)


CASES = [
    ("True", {"type": "boolean"}, True),
    ("False", {"type": "boolean"}, False),
    ("None", {"type": ["integer", "null"]}, None),
    ("None", {"type": "object"}, None),
    ("[1, None, True]", {"type": "array"}, [1, None, True]),
    ("{'on': False}", {"type": "object"}, {"on": False}),
    ('[\\"a\\", 2]', {"type": "array"}, ["a", 2]),
    ('"[\\"a\\", 2]"', {"type": "array"}, ["a", 2]),
]


@pytest.mark.parametrize("name", RAW_VALUE_FAMILIES)
@pytest.mark.parametrize(("raw", "schema", "expected"), CASES)
def test_raw_values_are_typed_by_the_schema(
    name: str, raw: str, schema: Any, expected: Any
) -> None:
    fmt = formats.get(name)
    message = verify(fmt, written(name, raw), fmt.prompt_for(None), tools=tools(schema))
    assert not message.errors
    (call,) = message.tool_calls
    assert call.arguments == {"v": expected, "s": "None"}


@pytest.mark.parametrize("name", ["deepseek-v3.2", "deepseek-v4"])
@pytest.mark.parametrize(("raw", "expected"), [("True", True), ("None", None), ("[None]", [None])])
def test_dsml_json_values_in_python_spelling(name: str, raw: str, expected: Any) -> None:
    fmt = formats.get(name)
    text = written(name, raw).replace('"v">', '"v" string="false">')
    message = verify(fmt, text, fmt.prompt_for(None), tools=tools({}))
    assert not message.errors
    assert message.tool_calls[0].arguments["v"] == expected
