"""Inkling: typed content blocks, each headed `<|message_model|>`, in any order.

<|content_thinking|>R<|end_message|><|message_model|><|content_text|>C<|end_message|>
<|message_model|>NAME<|content_invoke_tool_json|>{"name": N, "args": {…}}<|end_message|>
<|content_model_end_sampling|>

- vLLM's `inkling_tool_parser.py` and `inkling_reasoning_parser.py` (one engine,
  `vllm/parser/inkling.py`) and SGLang's `inkling_detector.py` (calls) and its Inkling
  reasoning detector: every marker is a special token; a block is a header
  `<|message_model|>`, its kind, a body and `<|end_message|>`.
- A thinking block is reasoning; a text block content, and so are the raw-text tool block
  `<|content_invoke_tool_text|>` and the error block `<|content_tool_error|>` (vLLM's
  reading; SGLang makes the raw-text block a call without a name). A tool block is one
  JSON object, whitespace around it allowed (both peers strip it), its arguments under
  `args` (or `arguments`, `parameters`) before or after the name (both peers read either
  order); anything else after the token is a malformed call; the name a
  tool block's header may carry (`<|message_model|>get_weather<|content_invoke_tool_json|>`,
  as SGLang's constrained decoding writes it) is dropped with the header, as both peers
  drop it. Blocks repeat in any order; `<|content_model_end_sampling|>` ends the turn.
- The generation prompt ends with `<|message_model|>` (vLLM's reading of the prompt's
  tail), so the first block comes without it; one ending `<|content_thinking|>` pre-opens
  the reasoning. Not confirmed by a chat template (none seen).
- Not read as the peers read it: a tool block cut off by `<|content_model_end_sampling|>`
  instead of `<|end_message|>` (both peers take the call; here it is a truncated call).
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Channel, Channels, Spec
from ..spec.codecs import NameAndArguments

END = "<|end_message|>"

SPEC = Spec(
    name="inkling",
    summary="Inkling: <|message_model|>-headed blocks, JSON calls in <|content_invoke_tool_json|>",
    turn=Channels(
        (
            Channel("reasoning", "<|content_thinking|>", END),
            Channel("content", "<|content_text|>", END),
            Channel("tool_text", "<|content_invoke_tool_text|>", END),
            Channel("tool_error", "<|content_tool_error|>", END),
        ),
        tokens=("<|",),
        starts=("reasoning", "content"),
        interleaved=True,
        header="<|message_model|>",
    ),
    call=Call(
        "<|content_invoke_tool_json|>{call}<|end_message|>",
        NameAndArguments(keys=("args", "arguments", "parameters"), anywhere=True),
        spaced=True,
    ),
    stops=("<|content_model_end_sampling|>",),
    prompt="<|message_model|>",
)
FORMAT = build(SPEC)
