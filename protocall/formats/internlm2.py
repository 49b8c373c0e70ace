"""InternLM2 / InternLM2.5 / Intern-S1: a JSON object after `<|action_start|><|plugin|>`.

content<|action_start|><|plugin|>\\n{"name": N, "parameters": {…}}<|action_end|><|im_end|>

- vLLM's `internlm2_tool_parser.py` reads `<|action_start|><|plugin|>`, SGLang's
  `internlm_detector.py` `<|action_start|> <|plugin|>` (with a space): whitespace between
  the two tokens, or none, is read. `"arguments"` is read as `"parameters"`.
- Calls follow each other, whitespace between them. Intern-S1 reasons in `<think>`.
- `<|im_end|>` ends the turn (ChatML).
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="internlm2",
    summary="InternLM2 / Intern-S1: JSON objects after <|action_start|><|plugin|>",
    turn=Think(),
    call=Call(
        "<|action_start|> <|plugin|>\n{call}<|action_end|>",
        NameAndArguments(keys=("parameters", "arguments")),
        between="\n",
    ),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMAT = build(SPEC)
