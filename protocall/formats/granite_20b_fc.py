"""IBM Granite-20B-FunctionCalling: each call a JSON object after `<function_call>`.

content<function_call> {"name": N, "arguments": {…}}<function_call> {…}<|endoftext|>

- vLLM's `granite_20b_fc_tool_parser.py`: calls have no closing marker, each ends with
  its object; whitespace after the opener is read. `<|endoftext|>` ends the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="granite-20b-fc",
    summary="Granite-20B-FunctionCalling: <function_call> {name, arguments} objects",
    turn=None,
    call=Call("<function_call> {call}", NameAndArguments(keys=("arguments", "parameters"))),
    stops=("<|endoftext|>",),
)
FORMAT = build(SPEC)
