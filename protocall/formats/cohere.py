"""Cohere Command R7B / Command A / North (FORMATS.md §6.9): marker-delimited regions.

<|START_THINKING|>R<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": N,
"parameters": {…}}, …]<|END_ACTION|><|START_RESPONSE|>C<|END_RESPONSE|><|END_OF_TURN_TOKEN|>

- Regions come in any order and may repeat. Thinking is reasoning; the response (and the
  `<|START_TEXT|>…<|END_TEXT|>` spelling of Command A Vision, from a peer parser) is content,
  as is text outside every region. Inline citations (`<co>…</co: …>`) stay text.
- A region ends at its close, at any region's opener or close, at a genuine action, at
  `<|END_OF_TURN_TOKEN|>` or at end of input. A close with no open region, a repeated
  `<|END_ACTION|>` and a `<|` that begins no marker are dropped (the first two) or text.
- An action is one JSON array of call objects; `tool_call_id` (written first) is kept as
  the call id; members may come in any order (parameters before the name stream once it has
  arrived). Each call is complete when its object closes. A missing `]` or `<|END_ACTION|>`
  is tolerated.
- The prompt `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>` opens no region; one ending
  `<|START_THINKING|>` pre-opens the thinking (thinking off closes it right there).
- `<|END_OF_TURN_TOKEN|>` ends the turn; it is never content.
"""

from __future__ import annotations

import json
from itertools import count

from .. import ast
from ..tools import Tools
from .blocks import Calls, Channel, call_object, channel_format, json_call_list
from .turns import Turn

THINKING = Channel("<|START_THINKING|>", "<|END_THINKING|>", ast.REASONING)
RESPONSE = Channel("<|START_RESPONSE|>", "<|END_RESPONSE|>", ast.CONTENT)
TEXT = Channel("<|START_TEXT|>", "<|END_TEXT|>", ast.CONTENT)
CHANNELS = {"reasoning": THINKING, "content": RESPONSE, "text": TEXT}
ACTION, END_ACTION = "<|START_ACTION|>", "<|END_ACTION|>"
END_OF_TURN = "<|END_OF_TURN_TOKEN|>"


def calls(tools: Tools | None) -> Calls:
    call = call_object("tool_name", ("parameters",), "tool_call_id")
    return json_call_list((ACTION,), call, (END_ACTION, END_OF_TURN), END_ACTION)


def render(turn: Turn, start: str | None) -> str:
    """Thinking (when the turn has reasoning or the prompt opened it), then each content
    part as a response and each run of calls as one action, ids numbered from 0."""
    ids = count()
    out = []
    if turn.reasoning is not None or start == "reasoning":
        out += ["" if start == "reasoning" else THINKING.open, turn.reasoning or "", THINKING.close]
    for group in turn.groups():
        if isinstance(group, str):
            out += [RESPONSE.open, group, RESPONSE.close]
            continue
        calls = ",\n    ".join(json.dumps({"tool_call_id": use.id or str(next(ids)),
                                           "tool_name": use.name, "parameters": use.arguments},
                                          ensure_ascii=False) for use in group)  # fmt: skip
        out.append(f"{ACTION}[\n    {calls}\n]{END_ACTION}")
    return "".join([*out, END_OF_TURN])


FORMAT = channel_format(
    "cohere", calls, channels=CHANNELS, stops=(END_OF_TURN,), tokens=("<|",),
    dropped=(END_ACTION,), render=render, starts=("reasoning",), reserved=(ACTION, END_ACTION),
    prompt="<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    summary="Cohere Command R7B / A: <|START_ACTION|>[{tool_call_id, tool_name, parameters}]",
    call_marker='<|START_ACTION|>[{"tool_name": N, "parameters": {…}}]<|END_ACTION|>',
)  # fmt: skip
