"""Tencent Hy v4 (Hunyuan 4): Hy3's calls without `<tool_sep>`, tokens suffixed.

R</think>content<tool_calls><tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call><tool_call>…</tool_call></tool_calls>

- vLLM's `hy_v4_tool_parser.py`, `hy_v4_reasoning_parser.py` and its `hy_v4` structural
  tag, with vLLM's tests (`tests/tool_parsers/test_hy_v4_tool_parser.py`); SGLang's
  `hunyuan_detector.py`, which reads Hy v4 where the vocabulary has no `<tool_sep>`.
- The name runs up to the first `<arg_key>` (or `</tool_call>`: a call without
  arguments); values verbatim, typed by the tool's schema; calls back to back.
- Every token carries the checkpoint's suffix before its closing bracket, read by both
  peers from the vocabulary: `hy-v4` reads `:opensource` (`<tool_calls:opensource>`), the
  suffix of vLLM's tests and of Hy3's released tokenizer. A checkpoint with another
  suffix is `dataclasses.replace(SPEC, name=…, token_suffix=":…")` of this spec.
- Reasoning on by default (`reasoning_effort` high): the prompt pre-opens `<think>`,
  so the turn starts in reasoning; `<tool_calls>` ends an open block.
- Not confirmed by a peer: the generation prompt and an end-of-turn marker (no template
  seen; Hy3's are `<｜hy_Assistant｜>` and `<｜hy_eos｜>`), so the turn runs to the end
  of the output.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from .glm import LAYOUT as GLM

SPEC = Spec(
    name="hy-v4",
    summary="Tencent Hy v4: <tool_call:opensource>NAME<arg_key:opensource>…, no <tool_sep>",
    turn=Think(),
    call=Call("<tool_call>{name}{arguments}</tool_call>", XmlArguments(GLM)),
    section=Section(("<tool_calls>",), ("</tool_calls>",)),
    stops=(),
    default_start="reasoning",
    token_suffix=":opensource",
)
FORMAT = build(SPEC)
