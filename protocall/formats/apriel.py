"""ServiceNow Apriel 1.5 / 1.6 Thinker: reasoning after `Here are my reasoning steps:`, the
answer between `[BEGIN FINAL RESPONSE]` and `[END FINAL RESPONSE]`, calls as a JSON array
in `<tool_calls>`.

Here are my reasoning steps:\\nR\\n[BEGIN FINAL RESPONSE]\\ncontent<tool_calls>[{"name": N,
"arguments": {…}}]</tool_calls>\\n[END FINAL RESPONSE]<|end|>

- The model's template ends its generation prompt with `Here are my reasoning steps:\\n`,
  so reasoning is open from the start; `[BEGIN FINAL RESPONSE]` (or a genuine call) ends
  it, as llama.cpp's reasoning ends list it. `[END FINAL RESPONSE]` is dropped.
- The array is the calls' envelope: they complete together once it closes. `<|end|>` ends
  the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="apriel",
    summary="Apriel Thinker: reasoning steps, [BEGIN FINAL RESPONSE], <tool_calls>[…]",
    turn=Think(
        "Here are my reasoning steps:",
        "[BEGIN FINAL RESPONSE]",
        opened_by="Here are my reasoning steps:\n",
    ),
    call=Call("{call}", NameAndArguments(), between=", "),
    section=Section(("<tool_calls>",), ("</tool_calls>",), array=True),
    stops=("<|end|>",),
    dropped=("[END FINAL RESPONSE]",),
    default_start="reasoning",
)
FORMAT = build(SPEC)
