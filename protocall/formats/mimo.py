"""Xiaomi MiMo (MiMo-V2-Flash): Qwen3-Coder's calls with compact, verbatim values.

[<think>R</think>]content<tool_call>\\n<function=N>\\n<parameter=K>V</parameter>\\n</function>\\n</tool_call><|im_end|>

- vLLM's `mimo` parser (`vllm/parser/mimo.py`: Qwen3's grammar, its values kept as
  written) and SGLang's `mimo_detector.py`, with vLLM's tests
  (`tests/tool_parsers/test_mimov2_flash_tool_parser.py`): a value is the text between
  `>` and `</parameter>` exactly, its newlines included (Qwen3-Coder drops one on each
  side), typed by the tool's schema as SGLang does. Qwen3-Coder's tolerances of a missing
  `</parameter>` and `</tool_call>` hold too.
- Reasoning in `<think>`; vLLM starts in it unless thinking is off, SGLang only when it is
  on: here a session starts where its generation prompt leaves it (a prompt ending
  `<think>\\n` pre-opens it). `<|im_end|>` ends the turn (ChatML, vLLM's turn boundaries).
"""

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec.codecs import XmlArguments
from . import qwen3_coder

LAYOUT = replace(qwen3_coder.LAYOUT, framing_newlines=False)
"""`<parameter=K>V</parameter>`, V verbatim; otherwise Qwen3-Coder's layout."""

SPEC = replace(
    qwen3_coder.SPEC,
    name="mimo",
    summary="MiMo: <function=…> and verbatim <parameter=…> values in <tool_call>",
    call=replace(qwen3_coder.SPEC.call, arguments=XmlArguments(LAYOUT, newline=True)),
)
FORMAT = build(SPEC)
