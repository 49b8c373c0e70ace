"""poolside Laguna (the `poolside_v1` series): GLM-4.5's calls, `<assistant>` turns.

[<think>R</think>]content<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call></assistant>

- vLLM's `poolside_v1_tool_parser.py` and `poolside_v1_reasoning_parser.py`, SGLang's
  `poolside_v1_detector.py`: GLM-4's wire format (Ling 3.0's spec, `formats/ling3.py`),
  values raw text typed by the tool's schema; the assistant turn opens with `<assistant>`.
- Reasoning in `<think>`, off by default in the template (SGLang's reasoning parser waits
  for `enable_thinking`): a prompt ending `<think>` pre-opens it.
- Not confirmed by a peer: the `</assistant>` end of turn.
"""

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec import Think
from . import ling3

SPEC = replace(
    ling3.SPEC,
    name="poolside-v1",
    summary="poolside Laguna: <tool_call>NAME with <arg_key>/<arg_value> pairs, <assistant>",
    turn=Think(),
    stops=("</assistant>",),
    prompt="<assistant>",
    default_start=None,
)
FORMAT = build(SPEC)
