"""Qwen3-Coder, and the thinking Qwen3.5+ / Nemotron 3 templates (FORMATS.md §1).

[<think>R</think>]content<tool_call>\\n<function=N>\\n<parameter=K>\\nV\\n</parameter>\\n</function>\\n</tool_call><|im_end|>
A bare `<function=N>` (no `<tool_call>`) is a call only for a declared tool followed by a
parameter or `</function>`; a genuine call also ends an open reasoning block. A missing
`</parameter>` is tolerated (see `QWEN3_CODER`), and so is a missing `</tool_call>` before
`<|im_end|>` or the next `<tool_call>`.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import XmlArguments
from .layouts import QWEN3_CODER

SPEC = Spec(
    name="qwen3-coder",
    summary="Qwen3-Coder / Qwen3.5+ / Nemotron 3: <function=…> and <parameter=…> in <tool_call>",
    turn=Think(opened_by="<think>\n"),
    call=Call(
        "<tool_call>\n<function={name}>\n{arguments}</function>\n</tool_call>",
        XmlArguments(QWEN3_CODER, newline=True),
        between="\n",
        unclosed=True,
        bare=True,
    ),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMAT = build(SPEC)
