"""MeetKai Functionary v3.1 (on Llama 3.1): `<function=NAME>{…}</function>` calls.

content<function=NAME>{…}</function><function=…>…</function><|eom_id|>

- llama.cpp's `FUNCTIONARY_V3_1_LLAMA_3_1` chat format (its tests,
  `tests/test-chat.cpp`, and the model's chat template, meetkai/functionary-medium-v3.1):
  each call a name in `<function=…>` and one JSON object of arguments, calls back to back
  after the content; the generation prompt is Llama 3.1's assistant header; `<|eom_id|>`
  ends a turn with calls, `<|eot_id|>` one without.
- The template's `<|python_tag|>` code calls (the code interpreter's): the rest of the turn
  is a call of a declared `python` tool, `{"code": …}` (`Section.code`, as llama.cpp takes
  it); with no `python` tool declared it is content. A `<function=…>` call may follow the
  tag too.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec

SPEC = Spec(
    name="functionary-v3.1",
    summary="Functionary v3.1 (Llama 3.1): <function=NAME>{…}</function>",
    turn=None,
    call=Call("<function={name}>{arguments}</function>"),
    section=Section(("<|python_tag|>",), (), bare=True, written_bare=True, code=("python", "code")),
    stops=("<|eot_id|>", "<|eom_id|>"),
    call_stop="<|eom_id|>",
    prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
)
FORMAT = build(SPEC)
