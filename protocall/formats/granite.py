"""IBM Granite 3.x (FORMATS.md §6.10): a JSON array of calls after `<|tool_call|>`.

[<think>R</think>]content<|tool_call|>[{"name": N, "arguments": {…}}, …]content<|end_of_text|>

- The opener may also be spelled `<tool_call>` (Granite 3.1, from vLLM; then `[` must
  follow, so a Hermes-style `<tool_call>{…}` stays text). The list has no closing marker:
  it ends at its `]`, and text after it is content. The array is the calls' envelope: they
  complete together once it closes; members may come in any order (`blocks.json_calls.call_object`).
- Reasoning: Granite 3.3 writes `<think>…</think>` and wraps its answer in
  `<response>…</response>` (SECONDARY; the two tags are dropped like end-of-turn tokens).
  Granite 3.2 writes text phrases instead: an output that starts with `Here is my thought
  process:` is reasoning up to `Here is my response:` (also spelled `Here's`, as vLLM
  accepts). The opening phrase counts only at the very start, held back until decided.
  A genuine call ends either kind of reasoning.
- `<|end_of_text|>` ends the turn. Granite 4 uses Hermes (`hermes`).
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameAndArguments

THOUGHT = ("Here is my thought process:", "Here's my thought process:")
RESPONSE = ("Here is my response:", "Here's my response:")

SPEC = Spec(
    name="granite",
    summary="IBM Granite 3.x: <|tool_call|>[{name, arguments}], <think> or thought phrases",
    turn=Think(opened_by="", phrases=(THOUGHT, RESPONSE)),
    call=Call("{call}", NameAndArguments(keys=("arguments", "parameters")), between=", "),
    section=Section(("<|tool_call|>", "<tool_call>"), (), array=True),
    stops=("<|end_of_text|>", "<response>", "</response>"),
    prompt="<|start_of_role|>assistant<|end_of_role|>",
)
FORMAT = build(SPEC)
