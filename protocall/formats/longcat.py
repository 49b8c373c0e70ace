"""Meituan LongCat-Flash: Hermes-style JSON objects in `<longcat_tool_call>` tags.

[<think>R</think>]content<longcat_tool_call>{"name": N, "arguments": {…}}</longcat_tool_call></longcat_s>

- vLLM's `longcat_tool_parser.py` (Hermes' parser with the tags renamed) and its tests
  (`tests/tool_parsers/test_longcat_tool_parser.py`): one object per tag pair, whitespace
  or none around it and between calls. `"parameters"` is read as `"arguments"` too, as in
  `hermes` (vLLM's parser rejects it).
- Not confirmed by a peer: the `</longcat_s>` end of turn and the `<think>` block (vLLM
  pairs this tool parser with no reasoning parser of its own).
"""  # noqa: E501

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="longcat",
    summary="LongCat-Flash: JSON objects in <longcat_tool_call> tags",
    turn=Think(opened_by=""),
    call=Call(
        "<longcat_tool_call>{call}</longcat_tool_call>",
        NameAndArguments(keys=("arguments", "parameters")),
        between="\n",
    ),
    stops=("</longcat_s>",),
)
FORMAT = build(SPEC)
