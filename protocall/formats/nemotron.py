"""NVIDIA Nemotron Nano v2 and Llama-3.3-Nemotron-Super-49B-v1.5 (FORMATS.md §6.14): a JSON
array of calls in `<TOOLCALL>` tags.

[<think>R</think>]content<TOOLCALL>[{"name": N, "arguments": {…}}, …]</TOOLCALL><SPECIAL_12>

- The array is the calls' envelope: they complete together once it closes. Members come
  in any order (`blocks.json_calls.call_object`); a missing `]` or `</TOOLCALL>` is tolerated; text
  after the tags is content. A lone call object without the brackets is a call too, and
  arguments written as a JSON string holding the object are decoded (vLLM's
  `nemotron_json` parser reads both).
- Reasoning `<think>…</think>` (toggled by `/think`, `/no_think`): Nano v2's prompt
  pre-opens it (`<SPECIAL_11>Assistant\\n<think>\\n\\n`; off: `<think></think>`), Super-49B's
  leaves it to the model (off: the prompt ends `<think>\\n\\n</think>\\n\\n`). `<TOOLCALL>`
  ends it implicitly. (Nemotron 3 Nano uses Qwen3-Coder XML: `qwen3-coder`.)
- `<SPECIAL_12>` (Nano v2) and `<|eot_id|>` (Super-49B) end the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="nemotron",
    summary="NVIDIA Nemotron Nano v2 / Super-49B-v1.5: <TOOLCALL>[{name, arguments}]</TOOLCALL>",
    turn=Think(opened_by="<think>\n\n", prompt="<SPECIAL_11>Assistant\n"),
    call=Call("{call}", NameAndArguments(keys=("arguments", "parameters")), between=", "),
    section=Section(("<TOOLCALL>",), ("</TOOLCALL>",), array=True, single=True),
    stops=("<SPECIAL_12>", "<|eot_id|>"),
    prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
)
FORMAT = build(SPEC)
