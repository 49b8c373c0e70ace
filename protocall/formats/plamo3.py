"""Preferred Networks PLaMo 3: a name and JSON arguments in `<|plamo:…:plamo|>` markers.

R<|plamo:end_think:plamo|>content<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>
<|plamo:begin_tool_name:plamo|>N<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>
<|plamo:constrain|>json<|plamo:msg|>{…}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>
…<|plamo:end_tool_requests:plamo|><|plamo:tag|>

- vLLM's `plamo3` parser (`vllm/parser/plamo3.py`) and its tests
  (`tests/tool_parsers/test_plamo3_tool_parser.py`): the requests one after another in
  one block, no text between the markers; the arguments are the JSON object as written.
- Reasoning is open from the start with thinking on (vLLM's default) and ends at
  `<|plamo:end_think:plamo|>` or the requests block; `<|plamo:tag|>` ends the turn.
- Not confirmed by a peer: the generation prompt (no template seen). A session given none
  starts in reasoning, as vLLM does; one given a prompt starts in reasoning where it ends
  with `<|plamo:begin_think:plamo|>`.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think


def marker(name: str) -> str:
    """PLaMo's marker spelling: `<|plamo:NAME:plamo|>`."""
    return f"<|plamo:{name}:plamo|>"


SPEC = Spec(
    name="plamo-3",
    summary="PLaMo 3: <|plamo:begin_tool_name:plamo|>N and JSON arguments in tool requests",
    turn=Think(marker("begin_think"), marker("end_think")),
    call=Call(
        f"{marker('begin_tool_request')}{marker('begin_tool_name')}{{name}}"
        f"{marker('end_tool_name')}{marker('begin_tool_arguments')}<|plamo:constrain|>json"
        f"<|plamo:msg|>{{arguments}}{marker('end_tool_arguments')}{marker('end_tool_request')}"
    ),
    section=Section((marker("begin_tool_requests"),), (marker("end_tool_requests"),)),
    stops=("<|plamo:tag|>",),
    default_start="reasoning",
)
FORMAT = build(SPEC)
