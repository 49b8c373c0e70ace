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

from ..combinators import json_object, literal, optional, peek, seq
from ..combinators import whitespace as ws
from ..tools import Tools
from .blocks import Calls, arguments, closer, id_with_name, markers, section_calls, turn_format
from .turns import ToolUse

SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN, ARGUMENTS_BEGIN = "<|tool_call_begin|>", "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
STOPS = ("<|im_end|>", "<|im_middle|>", "<|im_system|>")
NO_CONTENT = "(no content)"
CALL_ID = r"functions\.(.+?)(?::\d{1,20})?|(.+):\d{1,20}"  # the name: group 1 or 2


def calls(tools: Tools | None) -> Calls:
    placeholder = optional(seq(literal(NO_CONTENT), ws, peek(markers(*SECTION_BEGINS, CALL_BEGIN))))
    call_id = id_with_name(r"[^\s<]+", CALL_ID, "a call id `functions.NAME:IDX`")
    head = seq(placeholder, literal(CALL_BEGIN), ws, call_id, ws, literal(ARGUMENTS_BEGIN))
    body = seq(ws, arguments(json_object()), ws, literal(CALL_END))
    return section_calls((*SECTION_BEGINS, CALL_BEGIN, NO_CONTENT),
                         seq(placeholder, markers(*SECTION_BEGINS)), head.map(lambda p: p[3]),
                         lambda _: body, (CALL_END, CALL_BEGIN, *SECTION_ENDS, *STOPS),
                         closer(*SECTION_ENDS), bare=True)  # fmt: skip


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
