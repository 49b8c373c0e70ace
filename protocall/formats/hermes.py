"""Hermes / Qwen2.5 / Qwen3 / Granite 4 (FORMATS.md §6.1): JSON objects in `<tool_call>` tags.

<think>R</think>content<tool_call>\n{"name": N, "arguments": {...}}\n</tool_call><|im_end|>

The name comes first; `"parameters"` is read as `"arguments"`, and an object without
either is a call with empty arguments (`{}`), as in the other JSON formats.
"""

from __future__ import annotations

import json
from typing import Any

from ..combinators import Parser, cut, json_object, literal, optional, seq, whitespace
from ..tools import Tools
from .base import Format
from .blocks import (
    Reasoning,
    arguments,
    assistant_turn,
    in_runs,
    json_name,
    markers,
    render_turn,
    tool_calls,
)
from .turns import ToolUse, Turn

THINK, END_THINK = "<think>", "</think>"
REASONING = Reasoning(THINK, END_THINK)
TOOL_CALL, END_TOOL_CALL = "<tool_call>", "</tool_call>"
END_OF_TURN = "<|im_end|>"


def key(*names: str) -> Parser[Any]:
    return seq(whitespace, markers(*(f'"{name}"' for name in names)), whitespace, literal(":"))


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    head = seq(literal(TOOL_CALL), whitespace, literal("{"), key("name"), whitespace,
               json_name())  # fmt: skip
    with_arguments = seq(literal(","), cut, key("arguments", "parameters"), whitespace,
                         arguments(json_object()), whitespace)  # fmt: skip
    body = seq(whitespace, optional(with_arguments), literal("}"), whitespace,
               literal(END_TOOL_CALL))  # fmt: skip
    calls = tool_calls((TOOL_CALL,), head.map(lambda parts: parts[-1]), lambda _: body,
                       (END_TOOL_CALL, TOOL_CALL, END_OF_TURN))  # fmt: skip
    return assistant_turn(calls=in_runs(calls), stops=(END_OF_TURN,), reasoning=REASONING,
                          start=start)  # fmt: skip


def render_call(call: ToolUse) -> str:
    payload = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
    return f"{TOOL_CALL}\n{payload}\n{END_TOOL_CALL}"


def render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=REASONING, call=render_call, between_calls="\n",
                       stop=END_OF_TURN)  # fmt: skip


FORMAT = Format(
    "hermes",
    grammar,
    render,
    reserved=(THINK, END_THINK, TOOL_CALL, END_TOOL_CALL, END_OF_TURN),
    prompts={None: "<|im_start|>assistant\n", "reasoning": "<|im_start|>assistant\n<think>\n"},
    channels={"reasoning": (THINK, END_THINK)},
    summary="Hermes / Qwen2.5 / Qwen3 / Granite 4: JSON objects in <tool_call> tags",
    markers={"reasoning": "<think>…</think>", "call": '<tool_call>{"name", "arguments"}'},
)
