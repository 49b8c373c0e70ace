"""Kimi K2 / K2-Instruct / K2-Thinking / K2.5 / K2.6 (FORMATS.md §2): special-token tool
sections, each call named by the id the model writes, `functions.NAME:IDX`.

[<think>R</think>]content<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX
<|tool_call_argument_begin|>{...}<|tool_call_end|>…<|tool_calls_section_end|><|im_end|>

- The section is also spelled `<|tool_call_section_begin|>` … `<|tool_call_section_end|>`,
  and may be missing: a bare `<|tool_call_begin|>` opens a call. Whitespace around the
  markers is tolerated.
- `<|tool_call_begin|>ID<|tool_call_argument_begin|>` heads a call whatever the ID (text on
  one line without `<`, up to 256 characters, spaces inside kept: an undeclared or
  ill-formed ID is then reported with the call's raw text whole); the ID is kept as the call
  id and names the tool: the ID without a leading `functions.` and a trailing `:IDX` (1-20
  digits), so the name is final only once the whole ID has arrived. An ID with no `:IDX`
  names a tool only when it is `functions.NAME` and NAME is declared; any other
  (`functions.invalid.0`, `get_weather`) makes the call malformed: an error, never a call
  named after a guess. A call cut short by `<|tool_call_end|>` right after its ID is
  malformed too, its raw text whole.
- Inside a section, text that is not a call (noise before, between or after the calls)
  belongs to the section, not to the content, where a call or the section end follows it;
  a section with no call (`<|tool_calls_section_begin|><|tool_calls_section_end|>`) is
  dropped. The closing and separating markers (`<|tool_calls_section_end|>`,
  `<|tool_call_argument_begin|>`, `<|tool_call_end|>`) outside a call are dropped: they
  open nothing. An opener that heads no call stays text.
- Reasoning: K2-Thinking writes `<think>…</think>` itself; K2.5/K2.6 pre-open it (prompt
  ending `<|im_middle|><think>`; thinking off ends `<think></think>`). A call or section
  opener ends it implicitly, whatever follows it, unless the block closes after it (a
  quoted marker). Without a generation prompt no block is open (K2-Instruct).
- `<|im_end|>` ends the turn; `<|im_middle|>` and `<|im_system|>` (a next turn's header)
  are stop tokens too: never content.
- The placeholder `(no content)` right before a call is dropped (vLLM removes it);
  anywhere else it is text.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import IdName

SPEC = Spec(
    name="kimi-k2",
    summary="Kimi K2 / K2-Thinking / K2.5 / K2.6: special-token tool sections, functions.NAME:IDX",
    turn=Think(ends_at=("<|tool_calls_section_begin|>", "<|tool_call_begin|>")),
    call=Call(
        "<|tool_call_begin|>{id}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>",
        name=IdName("functions.", chars=r"[^<\n]"),
        spaced=True,
        closer_proves=True,
    ),
    section=Section(("<|tool_calls_section_begin|>",), ("<|tool_calls_section_end|>",), loose=True),
    respelled=(("<|tool_calls_section", "<|tool_call_section"),),
    placeholder="(no content)",
    stops=("<|im_end|>", "<|im_middle|>", "<|im_system|>"),
    prompt="<|im_assistant|>assistant<|im_middle|>",
)
FORMAT = build(SPEC)
