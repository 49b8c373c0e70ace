"""AI21 Jamba 1.5 / 1.6 / 1.7: a JSON array of calls in `<tool_calls>`.

content <tool_calls>[{"name": N, "arguments": {…}}, …]</tool_calls><|eom|>

- vLLM's `jamba_tool_parser.py`; the model's template writes the calls after a space and
  ends each message with `<|eom|>`, the prompt being `<|bom|><|assistant|>`. Jamba
  tiny-dev's writes the space before the content, so calls after content follow it
  without one: the section begins either way.
- The array is the calls' envelope: they complete together once it closes.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="jamba",
    summary="AI21 Jamba 1.5+: a JSON array of {name, arguments} in <tool_calls>",
    turn=None,
    call=Call("{call}", NameAndArguments(), between=", "),
    section=Section((" <tool_calls>", "<tool_calls>"), ("</tool_calls>",), array=True),
    stops=("<|eom|>",),
    prompt="<|bom|><|assistant|>",
)
FORMAT = build(SPEC)
