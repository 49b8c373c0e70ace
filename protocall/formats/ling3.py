"""Ling 3.0 / Ling 3.0 Flash, Bailing V3 (FORMATS.md §4): GLM-style arguments, no section.

[R</think>]content<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call><|role_end|>
The template pre-opens `<think>`; a genuine `<tool_call>` ends the open reasoning block.
The name ends where an argument or `</tool_call>` follows it.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import XmlArguments
from .glm import LAYOUT as GLM

SPEC = Spec(
    name="ling-3",
    summary="Ling 3.0 / Bailing V3: <tool_call>NAME with <arg_key>/<arg_value> pairs",
    turn=Think(off="<think></think>"),
    call=Call(
        "<tool_call>{name}\n{arguments}</tool_call>",
        arguments=XmlArguments(GLM, newline=True),
        between="\n",
    ),
    stops=("<|role_end|>",),
    prompt="<role>ASSISTANT</role>\n",
    default_start="reasoning",
)
FORMAT = build(SPEC)
