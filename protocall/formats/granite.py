"""IBM Granite 3.x (FORMATS.md §6.10): a JSON array of calls after `<|tool_call|>`.

[<think>R</think>]content<|tool_call|>[{"name": N, "arguments": {…}}, …]content<|end_of_text|>

- The opener may also be spelled `<tool_call>` (Granite 3.1, from vLLM; then `[` must
  follow, so a Hermes-style `<tool_call>{…}` stays text). The list has no closing marker:
  it ends at its `]`, and text after it is content. Each call is complete when its object
  closes; members may come in any order (see `call_object`).
- Reasoning: Granite 3.3 writes `<think>…</think>` and wraps its answer in
  `<response>…</response>` (SECONDARY; the two tags are dropped like end-of-turn tokens).
  Granite 3.2 writes text phrases instead: an output that starts with `Here is my thought
  process:` is reasoning up to `Here is my response:` (also spelled `Here's`, as vLLM
  accepts). The opening phrase counts only at the very start, held back until decided.
  A genuine call ends either kind of reasoning.
- `<|end_of_text|>` ends the turn. Granite 4 uses Hermes (`hermes`).
"""

from __future__ import annotations

import json
from typing import Any

from .. import ast
from ..combinators import Parser, alt, cut, optional, seq, whitespace
from ..tools import Tools
from .base import Format
from .blocks import (
    Reasoning,
    assistant_turn,
    call_object,
    json_call_list,
    markers,
    prose,
    reasoning_block,
    render_turn,
)
from .turns import ToolUse, Turn

THINK = Reasoning("<think>", "</think>")
THOUGHT = ("Here is my thought process:", "Here's my thought process:")
RESPONSE = ("Here is my response:", "Here's my response:")
TOOL_CALLS = ("<|tool_call|>", "<tool_call>")
END_OF_TEXT = "<|end_of_text|>"
STOPS = (END_OF_TEXT, "<response>", "</response>")
PROMPT = "<|start_of_role|>assistant<|end_of_role|>"


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    calls = json_call_list(TOOL_CALLS, call_object(arguments_keys=("arguments", "parameters")),
                           (*STOPS, *TOOL_CALLS))  # fmt: skip
    think = reasoning_block(THINK, calls, STOPS, pre_opened=start == "reasoning")
    thought = seq(whitespace, markers(*THOUGHT), cut, prose(ast.REASONING, (*RESPONSE, *STOPS),
                  calls), optional(markers(*RESPONSE)))  # fmt: skip
    lead = think if start == "reasoning" else alt(thought, think)
    return seq(lead, assistant_turn(calls=calls, stops=STOPS))


def render_call(use: ToolUse) -> str:
    return json.dumps({"name": use.name, "arguments": use.arguments}, ensure_ascii=False)


def render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=THINK, call=render_call, between_calls=", ",
                       section=(TOOL_CALLS[0] + "[", "]"), stop=END_OF_TEXT)  # fmt: skip


FORMAT = Format(
    "granite",
    grammar,
    render,
    reserved=(THINK.open, THINK.close, *THOUGHT, *RESPONSE, *TOOL_CALLS, *STOPS),
    channels={"reasoning": (THINK.open, THINK.close)},
    prompts={None: PROMPT},
    summary="IBM Granite 3.x: <|tool_call|>[{name, arguments}], <think> or thought phrases",
    markers={"reasoning": "<think>…</think> or Here is my thought process: …",
             "call": '<|tool_call|>[{"name": N, "arguments": {…}}]'},
)  # fmt: skip
