"""Salesforce xLAM-2: a JSON array of calls, bare or in `<tool_call>` … `</tool_call>`.

[<think>R</think>]content[{"name": N, "arguments": {…}}, …]<|im_end|>

- vLLM's `xlam_tool_parser.py`: the calls are a JSON array of `{"name", "arguments"}`
  objects, the whole output or after `<tool_call>` or `[TOOL_CALLS]`. A bare `[` heads the
  array only once its first object shows `{"name": "<a declared tool>", "arguments":` (the
  proof `declared-call`, Llama 3's, `blocks/bare_calls.py`; any name when no tools are
  declared), so a list in prose stays text. The array is the calls' envelope: they complete
  together when it closes. (vLLM also reads the array in a ```` ```json ```` fence; here
  such a fence is text.)
- Written in `<tool_call>` tags; `<|im_end|>` ends the turn (ChatML).
"""

from __future__ import annotations

from ..blocks.bare_calls import ARGUMENTS
from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="xlam",
    summary="xLAM-2: a JSON array of {name, arguments}, bare or in <tool_call>",
    turn=Think(opened_by=""),
    call=Call(
        "{call}", NameAndArguments(keys=ARGUMENTS[::-1]), between=", ", proof="declared-call"
    ),
    section=Section(("<tool_call>", "[TOOL_CALLS]"), ("</tool_call>",), array=True),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMAT = build(SPEC)
