"""Kimi K2 / K2-Instruct / K2-Thinking / K2.5 / K2.6 (FORMATS.md §2): special-token tool
sections, each call named by the id the model writes, `functions.NAME:IDX`.

[<think>R</think>]content<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX
<|tool_call_argument_begin|>{...}<|tool_call_end|>…<|tool_calls_section_end|><|im_end|>

- The section is also spelled `<|tool_call_section_begin|>` … `<|tool_call_section_end|>`,
  and may be missing: a bare `<|tool_call_begin|>` opens a call. Whitespace around the
  markers is tolerated.
- The id is kept as the call id; the name is the id without a leading `functions.` and a
  trailing `:IDX` (1-20 digits), so it is final only once the whole id has arrived. An id
  with neither is no call id: the opener is then text.
- Reasoning: K2-Thinking writes `<think>…</think>` itself; K2.5/K2.6 pre-open it (prompt
  ending `<|im_middle|><think>`; thinking off ends `<think></think>`). A call or section
  opener ends it implicitly. Without a generation prompt no block is open (K2-Instruct).
- `<|im_end|>` ends the turn; `<|im_middle|>` and `<|im_system|>` (a next turn's header)
  are stop tokens too: never content.
- The placeholder `(no content)` right before a call is dropped (vLLM removes it);
  anywhere else it is text.
"""

from __future__ import annotations

import json
import re
from itertools import count
from typing import Any

from .. import ast
from ..combinators import Parser, emit, fail, json_object, literal, optional, peek, regex, seq, tag
from ..combinators import whitespace as ws
from ..tools import Tools
from .base import Format
from .blocks import (
    Reasoning,
    arguments,
    assistant_turn,
    closer,
    markers,
    render_turn,
    section_calls,
)
from .turns import ToolUse, Turn

THINK, END_THINK = "<think>", "</think>"
REASONING = Reasoning(THINK, END_THINK)
SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN, ARGUMENTS_BEGIN = "<|tool_call_begin|>", "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
STOPS = ("<|im_end|>", "<|im_middle|>", "<|im_system|>")
NO_CONTENT = "(no content)"
CALL_ID = re.compile(r"functions\.(.+?)(?::\d{1,20})?|(.+):\d{1,20}")


def name_of(call_id: str) -> Parser[str]:
    """The `tool_name` node derived from a complete call id, or a failure there."""
    match = CALL_ID.fullmatch(call_id)
    if match is None:
        return fail("a call id `functions.NAME:IDX`")
    return emit(ast.TOOL_NAME, match.group(1) or match.group(2))


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    placeholder = optional(seq(literal(NO_CONTENT), ws, peek(markers(*SECTION_BEGINS, CALL_BEGIN))))
    call_id = tag(ast.TOOL_ID, regex(r"[^\s<]+").desc("a call id")).bind(name_of)
    head = seq(placeholder, literal(CALL_BEGIN), ws, call_id, ws, literal(ARGUMENTS_BEGIN))
    body = seq(ws, arguments(json_object()), ws, literal(CALL_END))
    calls = section_calls((*SECTION_BEGINS, CALL_BEGIN, NO_CONTENT),
                          seq(placeholder, markers(*SECTION_BEGINS)), head.map(lambda p: p[3]),
                          lambda _: body, (CALL_END, CALL_BEGIN, *SECTION_ENDS, *STOPS),
                          closer(*SECTION_ENDS), bare=True)  # fmt: skip
    return assistant_turn(calls=calls, stops=STOPS, reasoning=REASONING, start=start)


def render(turn: Turn, start: str | None) -> str:
    index = count()

    def call(use: ToolUse) -> str:
        call_id = use.id or f"functions.{use.name}:{next(index)}"
        payload = json.dumps(use.arguments, ensure_ascii=False)
        return f"{CALL_BEGIN}{call_id}{ARGUMENTS_BEGIN}{payload}{CALL_END}"

    return render_turn(turn, start, reasoning=REASONING, call=call,
                       section=(SECTION_BEGINS[0], SECTION_ENDS[0]), stop=STOPS[0])  # fmt: skip


FORMAT = Format(
    "kimi-k2",
    grammar,
    render,
    reserved=(THINK, END_THINK, *SECTION_BEGINS, *SECTION_ENDS, CALL_BEGIN, ARGUMENTS_BEGIN,
              CALL_END, *STOPS, NO_CONTENT),
    channels={"reasoning": (THINK, END_THINK)},
    default_start=None,
    prompts={None: "<|im_assistant|>assistant<|im_middle|>",
             "reasoning": "<|im_assistant|>assistant<|im_middle|><think>"},
    summary="Kimi K2 / K2-Thinking / K2.5 / K2.6: special-token tool sections, functions.NAME:IDX",
    markers={"reasoning": "<think>…</think>",
             "call": "<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}"},
)  # fmt: skip
