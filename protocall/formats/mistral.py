"""Mistral / Magistral / Ministral / Devstral (FORMATS.md §6.8): `[TOOL_CALLS]` calls.

v11+     [THINK]R[/THINK]content[TOOL_CALLS]NAME[ARGS]{…}[TOOL_CALLS]NAME[ARGS]{…}</s>
v11      [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}   (the id is kept as the call id)
pre-v11  [TOOL_CALLS] [{"name": N, "arguments": {…}, "id": ID}, …]</s>

- All bracket markers are special tokens. One grammar reads every tokenizer version:
  `[TOOL_CALLS]` followed by `[` (after optional whitespace) opens the pre-v11 JSON array;
  followed by a name it opens one v11+ call, whose `[ARGS]` may be missing
  (`[TOOL_CALLS]NAME{…}`, as vLLM reads it). A name is final once `[CALL_ID]`, `[ARGS]` or
  `{` follows it. An opener followed by neither is text.
- A pre-v11 `id` member is kept as the call id only before the arguments; mistral-common
  writes it after them, when the call has been announced with an id already.
- A v11+ call ends with its arguments object; one that fails after its name is skipped to
  the next `[TOOL_CALLS]` or `</s>`. Text between and after calls is content. Calls are
  written as v11+ calls, `[CALL_ID]` only for a call with an id.
- Reasoning `[THINK]…[/THINK]` is written by the model (Magistral, Ministral-3 Reasoning)
  after the prompt `[/INST]`, or `<think>…</think>` (older Magistral templates); it ends
  at its close, so a call quoted in it is reasoning, or at a call with no close after it
  (Magistral calling without closing its thought). A prompt ending `[THINK]` pre-opens
  it; a genuine call then ends it too.
- `</s>` ends the turn; it is never content.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="mistral",
    summary="Mistral / Magistral / Devstral: [TOOL_CALLS]NAME[ARGS]{…}, or [TOOL_CALLS] [{…}]",
    turn=Think("[THINK]", "[/THINK]", explicit=True, also=(("<think>", "</think>"),)),
    call=Call(
        "[TOOL_CALLS]{name}[CALL_ID]{id}[ARGS]{arguments}",
        spaced=True,
        optional=("[CALL_ID]{id}", "[ARGS]"),
    ),
    section=Section(
        ("[TOOL_CALLS]",),
        (),
        bare=True,
        array=True,
        written_bare=True,
        element=NameAndArguments(id="id"),
    ),
    stops=("</s>",),
    prompt="[/INST]",
)
FORMAT = build(SPEC)
