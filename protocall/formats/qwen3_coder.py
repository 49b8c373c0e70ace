"""Qwen3-Coder, and the thinking Qwen3.5+ / Nemotron 3 templates (FORMATS.md §1).

[<think>R</think>]content<tool_call>\\n<function=N>\\n<parameter=K>\\nV\\n</parameter>\\n</function>\\n</tool_call><|im_end|>
A bare `<function=N>` (no `<tool_call>`) is a call only for a declared tool followed by a
parameter or `</function>`; a genuine call also ends an open reasoning block. A missing
`</parameter>` is tolerated (see `LAYOUT`), and so is a missing `</tool_call>` before
`<|im_end|>` or the next `<tool_call>`.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

LAYOUT = Layout(
    "<parameter=",
    ">",
    "</parameter>",
    "</function>",
    framing_newlines=True,
    unclosed_at_opener=True,
    unclosed_at_end=("</tool_call>", "<|im_end|>"),
)
"""Qwen3-Coder / Qwen3.5 / Nemotron 3: `<parameter=K>\\nV\\n</parameter>`, ends at
`</function>`, typed by the schema. A missing `</parameter>` is tolerated (as vLLM does)
before `<parameter=` of a declared, not yet given key at the start of a line, and before
`</function>` followed by `</tool_call>`, `<|im_end|>` or the end of input."""

SPEC = Spec(
    name="qwen3-coder",
    summary="Qwen3-Coder / Qwen3.5+ / Nemotron 3: <function=…> and <parameter=…> in <tool_call>",
    turn=Think(opened_by="<think>\n"),
    call=Call(
        "<tool_call>\n<function={name}>\n{arguments}</function>\n</tool_call>",
        XmlArguments(LAYOUT, newline=True),
        between="\n",
        unclosed=True,
        bare=True,
    ),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMAT = build(SPEC)
