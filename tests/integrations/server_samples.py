"""What the server adapter tests share: the declared tool, one sample turn per format,
the normal form they compare messages in, the chunkings they stream with, and tool
entries as requests declare them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from protocall.blocks.turns import ToolUse, Turn

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "lines": {"type": "integer"}},
                "required": ["path"],
            },
        },
    }
]
CALL = ToolUse("write_file", {"path": 'a <b> "c".py', "lines": 3})

TURNS: dict[str, tuple[str | None, Turn]] = {
    "qwen3-coder": ("reasoning", Turn("Plan it.", ("Writing.", CALL, "Done."))),
    "kimi-k2": (None, Turn(None, ("Sure.", CALL))),
    "deepseek-v3.2": ("reasoning", Turn("Think.", ("Ok.", CALL))),
    "glm-4.7": ("reasoning", Turn("Hmm.", (CALL, "After."))),
}
"""Format name: (the channel the generation prompt leaves open, the turn rendered)."""

LING3_IN_REASONING = (
    "I should write.\n<tool_call>write_file\n<arg_key>path</arg_key>\n"
    "<arg_value>x.py</arg_value>\n</tool_call><|role_end|>"
)
"""Ling 3.0 output after a template that pre-opened `<think>`: a call inside reasoning."""
LING3_READ = ("I should write.", [("write_file", {"path": "x.py"})])
"""Its reasoning and calls (in `normal` form): the call is a call."""


def normal(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI message as compared: empty fields None, calls as (name, arguments)."""
    calls = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or ()
    ]
    return {
        "content": message.get("content") or None,
        "reasoning_content": message.get("reasoning_content") or None,
        "tool_calls": calls,
    }


def chunkings(n: int, seed: int) -> list[list[int]]:
    """Chunk sizes covering `n` characters: one-shot, per character, random."""
    rng = random.Random(seed)
    return [[n], [1] * n, [rng.randint(1, 6) for _ in range(n)]]


def cover(sizes: list[int], n: int) -> list[int]:
    """`sizes` repeated to cover `n` characters."""
    return (sizes * (n // len(sizes) + 1))[:n]


TOOL_ENTRIES = [
    *(
        {"type": "function", "function": tool}
        for tool in json.loads(
            (Path(__file__).parent.parent / "grammar" / "data" / "real_tools.json").read_text()
        )
    ),
    {"type": "function", "function": {"name": "f", "strict": True, "parameters": {
        "type": "object", "properties": {"a": {"type": ["string", "null"], "default": None}}}}},
    {"type": "function", "function": {"name": "g", "description": None}},
]  # fmt: skip
"""Tool entries as requests declare them: the real tool set, a strict one whose schema
holds a None default, one whose description is None (see the plug-ins' `tool_dicts`)."""
