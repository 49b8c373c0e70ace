"""Sber GigaChat 3: a JSON call object after `function call<|role_sep|>`.

content<|message_sep|>function call<|role_sep|>\\n{"name": N, "arguments": {…}}</s>

- vLLM's `gigachat3_tool_parser.py` and SGLang's `gigachat3_detector.py`: the content
  message ends at `<|message_sep|>` (dropped where it stands); the call is one object after
  `function call<|role_sep|>\\n`, or after `<|function_call|>`. `</s>` ends the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="gigachat-3",
    summary="GigaChat 3: function call<|role_sep|> then a {name, arguments} object",
    turn=None,
    call=Call("{call}", NameAndArguments()),
    section=Section(("function call<|role_sep|>\n", "<|function_call|>"), ()),
    stops=("</s>",),
    dropped=("<|message_sep|>",),
)
FORMAT = build(SPEC)
