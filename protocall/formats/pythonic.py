"""Pythonic calls (FORMATS.md §6.7): Llama 3.2 / Llama 4 pythonic and LFM2 / LFM2.5, one
spec and variants that differ only in data — the section around the list, whether a bare
list counts, reasoning, and the end-of-turn tokens.

pythonic  content[get_weather(location="Paris", days=3), get_time(zone="UTC")]<|eot_id|>
llama-4   the same, the list optionally in <|python_start|>…<|python_end|>; <|eot|>
lfm2      [<think>R</think>]content<|tool_call_start|>[f(a='x')]<|tool_call_end|>content<|im_end|>

- Arguments are keyword arguments with Python (or JSON) literal values, typed by the
  literals; a call's arguments stream as JSON text. Names may contain `-` (MCP tools).
  Written with Python literals (`repr`), the list bare where a bare list counts.
- A bare list is a call list only where `[` is followed by a declared tool's name, `(` and
  `)` or a first `key=` (vLLM reads one only at the very start of the output; here it may
  follow content, and text may follow it). Until that is decided its `[` is held back; a
  bare list cut off before it is text. LFM2 calls count only inside the section, where
  `[`, a name and `(` make a call list: what a call holds then makes it malformed, not text.
- Reasoning (LFM2.5) is `<think>…</think>`, written by the model: only `</think>` ends it.
"""

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import PythonKeywords

PYTHONIC = Spec(
    name="pythonic",
    summary="Llama 3.2 pythonic: a bare list [f(a=1), g(b='x')]",
    turn=None,
    call=Call("{name}({arguments})", PythonKeywords(literals="python"), between=", "),
    stops=("<|eot_id|>", "<|eom_id|>"),
    prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
)
LLAMA_4 = replace(
    PYTHONIC,
    name="llama-4",
    summary="Llama 4 pythonic: [f(a=1)], optionally in <|python_start|>…<|python_end|>",
    section=Section(("<|python_start|>",), ("<|python_end|>",), bare=True, written_bare=True),
    stops=("<|eot|>", "<|eom|>"),
    prompt="<|header_start|>assistant<|header_end|>\n\n",
)
LFM2 = replace(
    PYTHONIC,
    name="lfm2",
    summary="LFM2 / LFM2.5: [f(a=1)] in <|tool_call_start|>…<|tool_call_end|>",
    turn=Think(explicit=True, opened_by=""),
    section=Section(("<|tool_call_start|>",), ("<|tool_call_end|>",)),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMATS = tuple(map(build, (PYTHONIC, LLAMA_4, LFM2)))
