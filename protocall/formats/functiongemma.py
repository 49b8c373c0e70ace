"""Google FunctionGemma: `call:NAME{key:<escape>text<escape>}` in function-call tokens.

content<start_function_call>call:NAME{key:<escape>text<escape>,n:3}<end_function_call><end_of_turn>

- vLLM's `functiongemma_tool_parser.py`: strings are raw text between `<escape>` marks,
  other values JSON (Gemma 4's bare-key object, `codecs.BareObject`, with its quote
  `<escape>`). The prompt is `<start_of_turn>model\\n`; `<end_of_turn>` (or the
  `<start_function_response>` generation stops at after calls) ends the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec
from ..spec.codecs import BareObject, Plain

SPEC = Spec(
    name="functiongemma",
    summary="FunctionGemma: <start_function_call>call:NAME{key:<escape>text<escape>}",
    turn=None,
    call=Call(
        "<start_function_call>{name}{arguments}<end_function_call>",
        BareObject(quote="<escape>"),
        name=Plain(prefix="call:"),
    ),
    stops=("<end_of_turn>", "<start_function_response>"),
    call_stop="<start_function_response>",
    prompt="<start_of_turn>model\n",
)
FORMAT = build(SPEC)
