"""Tencent Hunyuan-A13B: `<think>` reasoning, the answer in `<answer>`, calls as a JSON
array in `<tool_calls>`.

<think>\\nR\\n</think>\\n<answer>\\ncontent
<tool_calls>[{"name": N, "arguments": {…}}]</tool_calls>\\n</answer>

- vLLM's `hunyuan_a13b_tool_parser.py` and `hunyuan_a13b_reasoning_parser.py`: the
  `<answer>` … `</answer>` wrapper is no content (dropped where it stands); a quick
  answer writes the reasoning block empty.
- The array is the calls' envelope: they complete together once it closes.
- `<|eos|>` ends the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="hunyuan-a13b",
    summary="Hunyuan-A13B: <think>, <answer>, a JSON array in <tool_calls>",
    turn=Think(opened_by=""),
    call=Call("{call}", NameAndArguments(), between=", "),
    section=Section(("<tool_calls>",), ("</tool_calls>",), array=True),
    stops=("<|eos|>",),
    dropped=("<answer>", "</answer>"),
)
FORMAT = build(SPEC)
