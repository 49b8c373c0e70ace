"""Olmo 3 (Instruct and Think, allenai): pythonic calls, one per line, in `<function_calls>`.

[<think>R</think>]content<function_calls>get_weather(location="Paris", days=3)
get_time(zone="UTC")</function_calls><|im_end|>

From the chat templates (allenai/Olmo-3-7B-Instruct, the system prompt asks for calls
"within <function_calls></function_calls> XML tags"; history calls are written
`name(key=JSON value, …)`, joined by a line break) and peers (vLLM `olmo3_tool_parser.py`,
Ollama's olmo3 renderer and parser). The markers are plain text, not special tokens.

- Calls are keyword-argument pseudo-function calls, one per line, with Python or JSON
  literal values (`true`, `false`, `null` as the template writes them); their arguments
  stream as JSON text. Whitespace may surround the calls inside the section.
- `<function_calls>` heads a call list only where a call (its name and `(`) follows;
  otherwise it is text. What the call holds then (a positional argument, a key with a
  marker in it) makes it malformed, never text. Any name counts inside it (the session
  reports an undeclared one). A missing `</function_calls>` is tolerated.
- Reasoning (Think models) is `<think>…</think>`, written by the model or pre-opened by a
  prompt ending `<think>`; a genuine `<function_calls>` ends it. `<|im_end|>` ends the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import PythonKeywords

SPEC = Spec(
    name="olmo-3",
    summary="Olmo 3: pythonic calls, one per line, in <function_calls>…</function_calls>",
    turn=Think("<think>", "</think>"),
    call=Call("{name}({arguments})", arguments=PythonKeywords(), between="\n"),
    section=Section(("<function_calls>",), ("</function_calls>",)),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMAT = build(SPEC)
