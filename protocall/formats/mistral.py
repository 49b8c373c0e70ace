"""Mistral / Magistral / Ministral / Devstral (FORMATS.md §6.8): `[TOOL_CALLS]` calls.

v11+     [THINK]R[/THINK]content[TOOL_CALLS]NAME[ARGS]{…}[TOOL_CALLS]NAME[ARGS]{…}</s>
v11      [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}   (the id is kept as the call id)
pre-v11  [TOOL_CALLS] [{"name": N, "arguments": {…}, "id": ID}, …]</s>

- All bracket markers are special tokens. One grammar reads every tokenizer version:
  `[TOOL_CALLS]` followed by `[` (after optional whitespace) opens the pre-v11 JSON array;
  followed by a name it opens one v11+ call, whose `[ARGS]` may be missing
  (`[TOOL_CALLS]NAME{…}`, as vLLM reads it). A name is final once `[CALL_ID]`, `[ARGS]` or
  `{` follows it. An opener followed by neither is text.
- A pre-v11 `id` member is kept as the call id only before the arguments; mistral-common
  writes it after them, when the call has been announced with an id already.
- A v11+ call ends with its arguments object; one that fails after its name is skipped to
  the next `[TOOL_CALLS]` or `</s>`. Text between and after calls is content.
- Reasoning `[THINK]…[/THINK]` is written by the model (Magistral, Ministral-3 Reasoning)
  after the prompt `[/INST]`, or `<think>…</think>` (older Magistral templates); it ends
  only at its close, so a call quoted in it is reasoning. A prompt ending `[THINK]`
  pre-opens it; a genuine call then ends it too.
- `</s>` ends the turn; it is never content.
"""

from __future__ import annotations

import json
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    alt,
    cut,
    json_object,
    literal,
    optional,
    peek,
    recover,
    regex,
    seq,
    tag,
    until,
)
from ..combinators import whitespace as ws
from ..tools import Tools
from .base import Format
from .blocks import (
    Calls,
    Reasoning,
    arguments,
    assistant_turn,
    call_object,
    in_runs,
    json_call_list,
    markers,
    render_turn,
    tool_name,
    unfinished,
)
from .turns import ToolUse, Turn

THINK, END_THINK = "[THINK]", "[/THINK]"
REASONING = Reasoning(THINK, END_THINK, explicit=True, also=(("<think>", "</think>"),))
TOOL_CALLS, CALL_ID, ARGS = "[TOOL_CALLS]", "[CALL_ID]", "[ARGS]"
END_OF_TURN = "</s>"
PROMPT = "[/INST]"


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    resync = (TOOL_CALLS, END_OF_TURN)
    listed = json_call_list((TOOL_CALLS,), call_object("name", ("arguments",), "id"), resync)
    head = seq(literal(TOOL_CALLS), ws, tool_name(), peek(ws.then(markers(CALL_ID, ARGS, "{"))))
    call_id = tag(ast.TOOL_ID, regex(r"[^\s\[{]+").desc("a call id"))
    given_id = seq(ws, literal(CALL_ID), cut, call_id)
    args = seq(ws, peek(literal("[")), cut, literal(ARGS))
    body = seq(optional(given_id), optional(args), ws, arguments(json_object()))
    one = recover(tag(ast.TOOL_CALL, seq(head, cut, body)), until(*resync, emit=False))
    calls = Calls((TOOL_CALLS,), alt(listed.head, unfinished(head)),
                  alt(listed.call, unfinished(one)))  # fmt: skip
    return assistant_turn(calls=in_runs(calls), stops=(END_OF_TURN,), reasoning=REASONING,
                          start=start)  # fmt: skip


def render_call(use: ToolUse) -> str:
    call_id = f"{CALL_ID}{use.id}" if use.id else ""
    return f"{TOOL_CALLS}{use.name}{call_id}{ARGS}{json.dumps(use.arguments, ensure_ascii=False)}"


def render(turn: Turn, start: str | None) -> str:
    return render_turn(turn, start, reasoning=REASONING, call=render_call, stop=END_OF_TURN)


FORMAT = Format(
    "mistral",
    grammar,
    render,
    reserved=(*sum(REASONING.spellings, ()), TOOL_CALLS, CALL_ID, ARGS, END_OF_TURN),
    channels={"reasoning": (THINK, END_THINK)},
    default_start=None,
    prompts={None: PROMPT, "reasoning": PROMPT + THINK},
    summary="Mistral / Magistral / Devstral: [TOOL_CALLS]NAME[ARGS]{…}, or [TOOL_CALLS] [{…}]",
    markers={"reasoning": "[THINK]…[/THINK]", "call": "[TOOL_CALLS]NAME[ARGS]{…}"},
)
