"""GLM-4.5 / 4.6 / 4.5-Air / 4.6V and GLM-4.7 / 4.7-Flash (FORMATS.md §6.2, §6.3): one
spec, two variants that differ only in data — the newlines of the layout, and whether the
generation prompt pre-opens `<think>`.

4.5  \\n<think>R</think>\\ncontent\\n<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call><|observation|>
4.7  R</think>content<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>

- GLM-4.5 writes `<think>` itself after the prompt `<|assistant|>` (thinking off: the prompt
  ends `<|assistant|>\\n<think></think>`); GLM-4.7 pre-opens it (`<|assistant|><think>`;
  off: `<|assistant|></think>`). A genuine call ends an open reasoning block.
- Any whitespace, or none, between the tags; values verbatim, typed by the tool's schema;
  a call may have no arguments (the name ends where an argument or `</tool_call>` follows
  it). GLM-4.5's newline before `<tool_call>` belongs to the call.
  `</arg_value>` then `<arg_key>` always ends a value, so a malformed key is an error, never
  value text. GLM-4.7 tolerates a missing last `</arg_value>` before `</tool_call>`.
- `<|observation|>` (after calls), `<|user|>` and `<|endoftext|>` end the turn.
"""  # noqa: E501

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

LAYOUT = Layout(
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


GLM_45 = Spec(
    name="glm-4.5",
    summary="GLM-4.5 / 4.6 / 4.5-Air / 4.6V: <tool_call>NAME\\n<arg_key>/<arg_value>",
    turn=Think(opened_by="", written=("\n<think>", "</think>")),
    call=Call("\n<tool_call>{name}\n{arguments}</tool_call>", XmlArguments(LAYOUT, newline=True)),
    stops=("<|observation|>", "<|user|>", "<|endoftext|>"),
    prompt="<|assistant|>",
)
GLM_47 = replace(
    GLM_45,
    name="glm-4.7",
    summary="GLM-4.7 / 4.7-Flash: <tool_call>NAME<arg_key>/<arg_value>, no newlines",
    turn=Think(off="</think>"),
    call=Call(
        "<tool_call>{name}{arguments}</tool_call>", XmlArguments(LAYOUT), unclosed_value=True
    ),
    default_start="reasoning",
)
FORMATS = (build(GLM_45), build(GLM_47))
