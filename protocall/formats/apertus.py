"""Swiss AI Apertus (FORMATS.md §6.13): single-key call objects in one JSON array.

<|inner_prefix|>R<|inner_suffix|>content<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>
<|assistant_end|>

- Every marker is a special token. The model writes the reasoning block itself after the
  prompt `<|assistant_start|>`; a prompt ending `<|inner_prefix|>` pre-opens it (thinking
  off closes it: `<|inner_prefix|><|inner_suffix|>`). A genuine tool section ends it.
- Each element is `{"NAME": {ARGS}}`: the key is the tool name (final once its closing quote
  has arrived), the value the arguments object, streamed as it arrives. The array is the
  calls' envelope: they complete together once it closes. Text before and after the
  section is content; a missing `<|tools_suffix|>` is tolerated.
- `<|assistant_end|>` ends the turn; it is never content.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import NameKey

SPEC = Spec(
    name="apertus",
    summary="Swiss AI Apertus: [{NAME: {ARGS}}] in <|tools_prefix|>…<|tools_suffix|>",
    turn=Think("<|inner_prefix|>", "<|inner_suffix|>"),
    call=Call("{call}", NameKey(), between=", "),
    section=Section(("<|tools_prefix|>",), ("<|tools_suffix|>",), array=True),
    stops=("<|assistant_end|>",),
    prompt="<|assistant_start|>",
)
FORMAT = build(SPEC)
