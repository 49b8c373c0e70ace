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
  output is reasoning (as the Solar Open reasoning parser of a vLLM fork, oesni/vllm, reads
  it).
- An answer and calls in one turn: a Dart port of llama.cpp's Solar Open handler reads the
  answer, then `<|end|><|begin|>assistant` and the calls (its test output ends the answer
  with `\\n`, stripped here as all content is); some parsers expect `<|flush|>` between
  the answer and `<|tool_calls|>` instead. Both are read: `<|end|>` is the stop, and the
  header `<|begin|>assistant`, like `<|content|>` and `<|flush|>`, is dropped wherever it
  stands, never content (text between `<|end|>` and a header joins the answer, as that
  vLLM fork reads it).
- Each call's id (text without whitespace or `<`, possibly empty) is kept as its id; an
  empty one gets a new id. The calls complete as each closes; a turn cut before
  `<|calls|>` (the peers' test outputs end so: a server may stop on it) keeps them.
- A call without the section (`<|tool_call:begin|>` with no `<|tool_calls|>` before it,
  which the template never writes) is a call too, as mlx-openai-server's Solar Open parser
  reads it; it ends the reasoning, as `<|tool_calls|>` does.
- Where protocall differs from the peers: mlx-openai-server drops the model's call id
  (its parser skips to the name); here the id is kept. Arguments that are no JSON object
  make the call an error with its raw text, never a guess (passed through as content, as
  every family's malformed call is).
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import JsonObject

HEADER = "<|begin|>assistant"

SPEC = Spec(
    name="solar-open",
    summary="Upstage Solar Open: <|tool_call:begin|>ID<|tool_call:name|>N<|tool_call:args|>{…}",
    turn=Think("<|think|>", "<|end|>" + HEADER, off="<|think|><|end|>" + HEADER),
    call=Call(
        "<|tool_call:begin|>{id}<|tool_call:name|>{name}<|tool_call:args|>{arguments}"
        "<|tool_call:end|>",
        JsonObject(),
        id_pattern=r"[^\s<]*",
    ),
    section=Section(("<|tool_calls|>",), ("<|calls|>",), bare=True),
    dropped=("<|content|>", "<|flush|>", HEADER),
    stops=("<|end|>",),
    prompt=HEADER,
)
FORMAT = build(SPEC)
