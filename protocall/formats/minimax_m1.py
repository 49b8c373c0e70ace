"""MiniMax-M1: JSON call objects, one a line, in `<tool_calls>`.

<think>R</think>content <tool_calls>\\n{"name": N, "arguments": {…}}\\n{…}\\n</tool_calls>
<end_of_sentence>

- vLLM's `minimax` tool parser (`MinimaxToolParser`, since replaced by MiniMax-M2's): the
  section's begin heads the calls, each an object on its own line, its name first as the
  model writes it (vLLM takes the members in any order); a call in the reasoning block is
  quoted text of it. Everything in the section is its own
  (`blocks.json_calls.json_call_lines`): a line that is no call, or a call that fails, is
  a `malformed` error of its own text and the section goes on (vLLM skips such a line
  silently), so `</tool_calls>` never reaches the content. A missing `</tool_calls>` is
  tolerated: the section then runs to the turn's end, text after the calls an error.
- `<end_of_sentence>` ends the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="minimax-m1",
    summary="MiniMax-M1: {name, arguments} objects, one a line, in <tool_calls>",
    turn=Think(opened_by="", explicit=True),
    call=Call("{call}", NameAndArguments(), between="\n"),
    section=Section(("<tool_calls>\n",), ("\n</tool_calls>",)),
    stops=("<end_of_sentence>",),
)
FORMAT = build(SPEC)
