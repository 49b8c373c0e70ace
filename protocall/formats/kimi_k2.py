"""Kimi K2 / K2-Instruct / K2-Thinking / K2.5 / K2.6 (FORMATS.md §2): special-token tool
sections, each call named by the id the model writes, `functions.NAME:IDX`.

[<think>R</think>]content<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX
<|tool_call_argument_begin|>{...}<|tool_call_end|>…<|tool_calls_section_end|><|im_end|>

- The section is also spelled `<|tool_call_section_begin|>` … `<|tool_call_section_end|>`,
  and may be missing: a bare `<|tool_call_begin|>` opens a call. Whitespace around the
  markers is tolerated.
- `<|tool_call_begin|>ID<|tool_call_argument_begin|>` heads a call whatever the ID (a
  token without whitespace or `<`); the ID is kept as the call id and names the tool: the
  ID without a leading `functions.` and a trailing `:IDX` (1-20 digits), so the name is
  final only once the whole ID has arrived. An ID with no `:IDX` names a tool only when it
  is `functions.NAME` and NAME is declared; any other (`functions.invalid.0`, `get_weather`)
  makes the call malformed: an error, never a call named after a guess.
- Inside a section, text that is not a call (noise before, between or after the calls)
  belongs to the section, not to the content, where a call or the section end follows it;
  a section with no call (`<|tool_calls_section_begin|><|tool_calls_section_end|>`) is
  dropped. The closing and separating markers (`<|tool_calls_section_end|>`,
  `<|tool_call_argument_begin|>`, `<|tool_call_end|>`) outside a call are dropped: they
  open nothing. An opener that heads no call stays text.
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
from collections.abc import Callable
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    alt,
    emit,
    fail,
    json_object,
    literal,
    optional,
    peek,
    regex,
    seq,
    tag,
    until,
)
from ..combinators import whitespace as ws
from ..tools import Tools
from .blocks import Calls, arguments, closer, markers, section_calls, turn_format
from .turns import ToolUse

SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN, ARGUMENTS_BEGIN = "<|tool_call_begin|>", "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
STRAYS = (*SECTION_ENDS, ARGUMENTS_BEGIN, CALL_END)
STOPS = ("<|im_end|>", "<|im_middle|>", "<|im_system|>")
NO_CONTENT = "(no content)"
INDEXED_ID = re.compile(r"(?:functions\.)?(.+):\d{1,20}")
BAD_ID = "a call id `functions.NAME:IDX`"


def tool_of(tools: Tools | None) -> Callable[[str], Parser[str]]:
    """`call id -> the tool_name node`, or a failure for an id that names no tool."""

    def name_of(call_id: str) -> Parser[str]:
        indexed = INDEXED_ID.fullmatch(call_id)
        name = indexed[1] if indexed else call_id.removeprefix("functions.")
        if indexed or (tools is not None and name != call_id and name in tools):
            return emit(ast.TOOL_NAME, name)
        return fail(f"{BAD_ID}, not `{call_id}` (without `:IDX` it must name a declared tool)")

    return name_of


def calls(tools: Tools | None) -> Calls:
    placeholder = optional(seq(literal(NO_CONTENT), ws, peek(markers(*SECTION_BEGINS, CALL_BEGIN))))
    call_id = tag(ast.TOOL_ID, regex(r"[^\s<]+").desc("a call id"))
    head = seq(placeholder, literal(CALL_BEGIN), ws, call_id, ws, literal(ARGUMENTS_BEGIN))
    name_of = tool_of(tools)

    def body(call_id: str) -> Parser[Any]:
        return seq(name_of(call_id), ws, arguments(json_object()), ws, literal(CALL_END))

    # Noise in a section runs to a call or the section end; another begin or a stop ends
    # the search, so each character is scanned once however many begins the prose holds.
    noise = until(CALL_BEGIN, *SECTION_ENDS, *SECTION_BEGINS, *STOPS, emit=False)
    end = closer(*SECTION_ENDS)  # at end of input, also a cut-off one
    gap = alt(noise.skip(peek(markers(CALL_BEGIN, *SECTION_ENDS))), ws)
    section = section_calls((*SECTION_BEGINS, CALL_BEGIN, NO_CONTENT),
                            seq(placeholder, markers(*SECTION_BEGINS)), head.map(lambda p: p[3]),
                            body, (CALL_END, CALL_BEGIN, *SECTION_ENDS, *STOPS),
                            end, bare=True, gap=gap)  # fmt: skip
    empty = seq(markers(*SECTION_BEGINS), gap, markers(*SECTION_ENDS))
    return Calls((*section.openers, *STRAYS), section.head,
                 alt(section.call, empty, markers(*STRAYS)))  # fmt: skip


def render_call(use: ToolUse, index: int) -> str:
    call_id = use.id or f"functions.{use.name}:{index}"
    payload = json.dumps(use.arguments, ensure_ascii=False)
    return f"{CALL_BEGIN}{call_id}{ARGUMENTS_BEGIN}{payload}{CALL_END}"


FORMAT = turn_format(
    "kimi-k2", calls, stops=STOPS, render_call=render_call,
    section=(SECTION_BEGINS[0], SECTION_ENDS[0]),
    reserved=(*SECTION_BEGINS, *SECTION_ENDS, CALL_BEGIN, ARGUMENTS_BEGIN, CALL_END, NO_CONTENT),
    prompts={None: "<|im_assistant|>assistant<|im_middle|>",
             "reasoning": "<|im_assistant|>assistant<|im_middle|><think>"},
    summary="Kimi K2 / K2-Thinking / K2.5 / K2.6: special-token tool sections, functions.NAME:IDX",
    call_marker="<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}",
)  # fmt: skip
