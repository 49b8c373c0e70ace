"""MeetKai Functionary v3.1 (on Llama 3.1): `<function=NAME>{…}</function>` calls.

content<function=NAME>{…}</function><function=…>…</function><|eom_id|>

- llama.cpp's `FUNCTIONARY_V3_1_LLAMA_3_1` chat format (its tests,
  `tests/test-chat.cpp`, and the model's chat template, meetkai/functionary-medium-v3.1):
  each call a name in `<function=…>` and one JSON object of arguments, calls back to back
  after the content; the generation prompt is Llama 3.1's assistant header; `<|eom_id|>`
  ends a turn with calls, `<|eot_id|>` one without.
- Not read: the template's `<|python_tag|>` code calls (the code interpreter's, which
  llama.cpp takes as a `python` call of the rest of the turn): here they stay text.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec

SPEC = Spec(
    name="functionary-v3.1",
    summary="Functionary v3.1 (Llama 3.1): <function=NAME>{…}</function>",
    turn=None,
    call=Call("<function={name}>{arguments}</function>"),
    stops=("<|eot_id|>", "<|eom_id|>"),
    call_stop="<|eom_id|>",
    prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
)
FORMAT = build(SPEC)
