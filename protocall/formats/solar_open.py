"""Upstage Solar Open (Solar-Open-100B): a turn of several assistant messages, each after
the header `<|begin|>assistant`, the reasoning, the answer and the calls each a message.

<|begin|>assistant<|think|>R<|end|><|begin|>assistant<|content|>C<|end|>
<|begin|>assistant<|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>NAME
<|tool_call:args|>{…}<|tool_call:end|>…<|calls|>

- The model's chat template writes a reasoning message (`<|think|>R<|end|>`), then either
  the calls (`<|tool_calls|>` … `<|calls|>`) or the answer (`<|content|>C<|end|>`), each
  after `<|begin|>assistant`, the generation prompt. With `reasoning_effort` low or
  minimal the prompt closes an empty reasoning message first
  (`<|begin|>assistant<|think|><|end|><|begin|>assistant`).
- The reasoning ends at `<|end|><|begin|>assistant` (the next message's header), or at
  `<|tool_calls|>`; `<|content|>` is dropped. A reasoning message cut by the end of the
  output is reasoning (vLLM's parser does the same).
- An answer and calls in one turn: `<|end|><|begin|>assistant` between them (llama.cpp's
  Solar Open handler reads the answer so, its test output ending the content with `\\n`),
  and `<|flush|>` (which some variants write right before `<|tool_calls|>`) are dropped,
  never content. `<|end|>` alone ends the turn: text after it is no part of the answer.
- Each call's id (any text up to the next token, possibly empty) is kept as its id; an
  empty one gets a new id. The calls complete as each closes; a turn cut before
  `<|calls|>` (the peers' test outputs end so: a server may stop on it) keeps them.
- Where protocall differs from vLLM's Solar Open reasoning parser: text between
  `<|end|>` and the next `<|begin|>assistant` after the reasoning (no shape the template
  writes) is read up to the stop `<|end|>` only, as every format reads its stop tokens,
  where vLLM drops the header and keeps the text after it.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import JsonObject

HEADER = "<|begin|>assistant"
NEXT_MESSAGE = "<|end|>" + HEADER

SPEC = Spec(
    name="solar-open",
    summary="Upstage Solar Open: <|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{…}",
    turn=Think("<|think|>", NEXT_MESSAGE, off="<|think|>" + NEXT_MESSAGE),
    call=Call(
        "<|tool_call:begin|>{id}<|tool_call:name|>{name}<|tool_call:args|>{arguments}"
        "<|tool_call:end|>",
        JsonObject(),
        id_pattern=r"[^\s<]*",
    ),
    section=Section(("<|tool_calls|>",), ("<|calls|>",)),
    dropped=("<|content|>", "<|flush|>", NEXT_MESSAGE),
    stops=("<|end|>",),
    prompt=HEADER,
)
FORMAT = build(SPEC)
