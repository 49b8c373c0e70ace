"""Phi-4-mini: a JSON array of calls after the word `functools`.

content functools[{"name": N, "arguments": {…}}, …]<|end|>

- vLLM's `phi4mini_tool_parser.py` (`phi4_mini_json`): the list has no closing marker, it
  ends at its `]`; `"parameters"` is read as `"arguments"`. `functools` followed by
  anything but `[{` or `[]` stays text.
- `<|end|>` ends the turn; the prompt is `<|assistant|>`.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="phi-4-mini",
    summary="Phi-4-mini: functools[{name, arguments}, …]",
    turn=None,
    call=Call("{call}", NameAndArguments(keys=("arguments", "parameters")), between=", "),
    section=Section(("functools",), (), array=True),
    stops=("<|end|>",),
    prompt="<|assistant|>",
)
FORMAT = build(SPEC)
