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
  arrived). The array is the calls' envelope: they complete together once it closes. A
  missing `]` or `<|END_ACTION|>` is tolerated.
- Written as the template writes it: the thinking, then each content part as a response
  and each run of calls as one action, one object a line, ids counted from 0.
- The prompt `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>` opens no region; one ending
  `<|START_THINKING|>` pre-opens the thinking (thinking off closes it right there).
- `<|END_OF_TURN_TOKEN|>` ends the turn; it is never content.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Channel, Channels, Section, Spec
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="cohere",
    summary="Cohere Command R7B / A: <|START_ACTION|>[{tool_call_id, tool_name, parameters}]",
    turn=Channels(
        channels=(
            Channel("reasoning", "<|START_THINKING|>", "<|END_THINKING|>"),
            Channel("content", "<|START_RESPONSE|>", "<|END_RESPONSE|>"),
            Channel("text", "<|START_TEXT|>", "<|END_TEXT|>"),
        ),
        tokens=("<|",),
        starts=("reasoning",),
        interleaved=True,
    ),
    call=Call(
        "{call}",
        NameAndArguments(keys=("parameters",), name="tool_name", id="tool_call_id"),
        between=",\n    ",
    ),
    section=Section(
        ("<|START_ACTION|>",),
        ("<|END_ACTION|>",),
        stray_ends=True,
        array=True,
        framing=("[\n    ", "\n]"),
    ),
    stops=("<|END_OF_TURN_TOKEN|>",),
    prompt="<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
)
FORMAT = build(SPEC)
