"""Llama 3.1 / 3.2 / 3.3 JSON calls (FORMATS.md §6.6): call objects with no section marker.

[<|python_tag|>]{"name": N, "parameters": {…}}[; {"name": M, "parameters": {…}}]<|eot_id|>

- `arguments` is accepted for `parameters`. Members may come in any order (see
  `call_object`); several calls are separated by `;`.
- Without `<|python_tag|>` nothing marks a call, so an object counts as one only once it is
  proven one (`blocks.bare_calls`, the proof `declared-call`): once it shows `{"name": "<a
  declared tool>", "parameters":` (any name when none are declared; a `"type"` member may
  come first), or, in another layout, once it has closed holding such a name and arguments
  (within `LOOKAHEAD` characters and `LOOKAHEAD_DEPTH` levels). Until then its `{` is held
  back; an object that turns out otherwise (`{"answer": 42}`, an undeclared name, one beyond
  those bounds or the stream ended inside) is content. When no tools are declared, `{"name":
  "` followed by a name that runs past `NAME_LIMIT` characters heads a call too, which is
  then malformed, as after a marker (with tools declared, such a name is no declared one:
  content).
- FORMATS.md reads calls only when the whole output is JSON; here a call object may also
  follow content and be followed by content (as vLLM's complete-output parser finds them).
  After `<|python_tag|>` any name makes a call (the session reports an undeclared one).
- Built-in tool calls (Llama 3.1's `builtin_tools`): `<|python_tag|>NAME.call(k=v, …)`,
  Python-literal keyword arguments (`Section.method`), are calls of the tool NAME (the
  session reports an undeclared one), read but never written (the renderer writes JSON
  calls). Raw code after `<|python_tag|>` (the code interpreter's, `Environment: ipython`)
  is a call of a declared `python` tool, `{"code": …}` (`Section.code`, as llama.cpp takes
  it), the rest of the turn being its code; with no `python` tool declared it is content.
  After the tag a built-in call comes first, then a JSON object, then code.
- `<|eot_id|>` ends the turn, `<|eom_id|>` too (after a built-in tool call).
- Written as the template writes it: `{"name": N, "parameters": {…}}` objects joined by
  `; `, without `<|python_tag|>`.
"""

from __future__ import annotations

from ..blocks.bare_calls import ARGUMENTS
from ..compile.factory import build
from ..spec import Call, Section, Spec
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="llama-3",
    summary="Llama 3.1 / 3.2 / 3.3: bare JSON {name, parameters} objects, ; between calls",
    turn=None,
    call=Call("{call}", NameAndArguments(ARGUMENTS), between="; ", proof="declared-call"),
    section=Section(
        ("<|python_tag|>",),
        (),
        bare=True,
        written_bare=True,
        method=".call",
        code=("python", "code"),
    ),
    stops=("<|eot_id|>", "<|eom_id|>"),
    prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
)
FORMAT = build(SPEC)
