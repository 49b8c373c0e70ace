"""Hermes / Qwen2.5 / Qwen3 / Granite 4 (FORMATS.md §6.1): JSON objects in `<tool_call>` tags.

<think>R</think>content<tool_call>\n{"name": N, "arguments": {...}}\n</tool_call><|im_end|>

The name comes first; `"parameters"` is read as `"arguments"`, and an object without
either is a call with empty arguments (`{}`), as in the other JSON formats.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="hermes",
    summary="Hermes / Qwen2.5 / Qwen3 / Granite 4: JSON objects in <tool_call> tags",
    turn=Think("<think>", "</think>", opened_by="<think>\n"),
    call=Call(
        "<tool_call>\n{call}\n</tool_call>",
        arguments=NameAndArguments(keys=("arguments", "parameters")),
        between="\n",
    ),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMAT = build(SPEC)
