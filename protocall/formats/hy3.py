"""Tencent Hy3 (Hunyuan 3): `<think>` reasoning, calls in `<tool_calls>` with GLM-style
`<arg_key>`/`<arg_value>` arguments after `<tool_sep>`.

<｜hy_Assistant｜><think>R</think>content<tool_calls>\\n<tool_call>NAME<tool_sep>\\n
<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call>\\n</tool_calls><｜hy_eos｜>

- The released tokenizer (tencent/Hy3) suffixes every special token (`token_suffix`
  `:opensource`: `<tool_call:opensource>`, `</arg_key:opensource>`,
  `<｜hy_eos:opensource｜>`), the preview's (tencent/Hy3-preview) does not: `hy3` reads the
  first, `hy3-preview` the second (vLLM's `hy_v3` parsers take the suffix from the
  tokenizer's config, SGLang's `hunyuan` detector from its vocabulary).
- Values verbatim, typed by the tool's schema; a call may have no arguments.
- The prompt pre-opens the block with reasoning on (`reasoning_effort` low or high; the
  prompt ends `<think>`), and closes it empty with it off (`no_think`, the default:
  `<think></think>`). `<tool_calls>` ends an open block. `<｜hy_eos｜>` ends the turn.
"""

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from .glm import LAYOUT as GLM

PREVIEW = Spec(
    name="hy3-preview",
    summary="Tencent Hy3-preview: <tool_call>NAME<tool_sep><arg_key>/<arg_value>",
    turn=Think(off="<think></think>"),
    call=Call(
        "<tool_call>{name}<tool_sep>\n{arguments}</tool_call>",
        XmlArguments(GLM, newline=True),
        between="\n",
    ),
    section=Section(("<tool_calls>\n",), ("\n</tool_calls>",)),
    stops=("<｜hy_eos｜>",),
    prompt="<｜hy_Assistant｜>",
)
HY3 = replace(
    PREVIEW,
    name="hy3",
    summary="Tencent Hy3: the same with every token suffixed, <tool_call:opensource>…",
    token_suffix=":opensource",
)
FORMATS = (build(HY3), build(PREVIEW))
