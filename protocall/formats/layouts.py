"""The tag-delimited argument layouts (`values.xmlargs.Layout`) of Qwen3-Coder, GLM and
Ling 3.0, and Kimi K3: their family files are held to a spec of at most 15 lines (issue #16),
which a layout would overflow. Every other family's layout stands in its own file."""

from __future__ import annotations

from dataclasses import replace

from ..values.xmlargs import Layout

QWEN3_CODER = Layout(
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

GLM = Layout(
    "<arg_key>",
    "</arg_key>",
    "</arg_value>",
    "</tool_call>",
    value_open="<arg_value>",
    committed_opener=True,
)
"""GLM-4.5/4.6 and Ling 3.0: `<arg_key>K</arg_key>` `<arg_value>V</arg_value>`, any
whitespace (or none) between tags, values verbatim, ends at `</tool_call>`, typed by the
schema. `</arg_value>` then `<arg_key>` always ends a value. No missing-tag tolerance."""


def glm_47(after_end: tuple[str, ...]) -> Layout:
    """GLM-4.7: `GLM`, and a missing last `</arg_value>` is tolerated (as a missing
    `</parameter>` is for Qwen3-Coder) at `</tool_call>` followed, after optional
    whitespace, by one of `after_end` (the next call, the end of turn) or the end of input."""
    return replace(GLM, unclosed_at_end=after_end)


KIMI_K3 = Layout(
    "<|open|>argument",
    "<|sep|>",
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    key_attribute="key",
    decode_entities=True,
    type_attribute="type",
)
"""Kimi K3: `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`, values raw,
typed by `type` (string, number, boolean, null, object, array), ends at
`<|close|>call<|sep|>`."""
