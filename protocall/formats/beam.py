"""Beam: Harmony-like messages whose calls, addressed ` to=NAME` on the analysis channel,
hold `<rfl:parameter>` elements, as vLLM's `beam` parser reads them.

<|channel|>analysis<|message|>R<|end|><|start|>assistant to=NAME<|channel|>analysis
 <|constrain|>xml<|message|><rfl:parameter name="K">V</rfl:parameter>…<|call|>
<|start|>assistant to=NAME<|channel|>analysis<|message|>…<|end|>
<|channel|>final<|message|>C<|return|>

- vLLM's `vllm/parser/beam.py` (`BeamParser`) reads the output with the checkpoint's own
  `response_template` (tokenizer_config.json metadata, not public); the shape here is the
  Beam-like template of a public test of SGLang's model gateway. The generation prompt
  ends with `<|start|>assistant`, which also heads later messages (dropped wherever it
  stands). Reasoning is `<|channel|>analysis<|message|>` … `<|end|>`, the answer
  `<|channel|>final<|message|>` … `<|return|>` (the end of the turn) or `<|end|>`, in any
  number of messages, in any order.
- A call is `to=NAME` (after the header and a space, or alone), `<|channel|>analysis`,
  the content type ` <|constrain|>xml` or none, `<|message|>`, its parameters, then
  `<|call|>` or `<|end|>` (`Call.other_closers`): calls follow one another either way.
  Values are verbatim (the gateway test's template strips them in one test, not in
  another), typed by the tool's schema. Written: the header is left out before a call
  (` to=NAME…`, as right after the prompt), the content type and `<|call|>` written, an
  answer closed by `<|end|>` before the turn's `<|return|>`.
- Where protocall reads otherwise (tests/integrations/test_beam_vllm.py runs vLLM's parser
  on the same strings): a call cut off by the end of the output is a truncated error,
  never a call (vLLM completes it with the parameters that closed); a parameter value
  holding `<|end|>` or `<|call|>` is text up to its own closing tag (vLLM ends the call
  there and loses the parameter); a whole call header inside the reasoning ends the
  reasoning, as a genuine call does in every family (vLLM's reasoning ends only at
  `<|end|>`); text outside every message, after `<|return|>` too, is content, nothing the
  model wrote being lost (vLLM drops it; a server stops at `<|return|>`); with tools
  declared, a call to another name is an `unknown_tool` error (vLLM takes any name).
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Channel, Channels, Spec
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

HEADER, END = "<|start|>assistant", "<|end|>"
LAYOUT = Layout("<rfl:parameter", ">", "</rfl:parameter>", "<|call|>", key_attribute="name")
"""`<rfl:parameter name="K">V</rfl:parameter>`, values verbatim, typed by the schema."""

SPEC = Spec(
    name="beam",
    summary="Beam: to=NAME<|channel|>analysis messages of <rfl:parameter> calls",
    turn=Channels(
        (
            Channel("reasoning", "<|channel|>analysis<|message|>", END),
            Channel("content", "<|channel|>final<|message|>", END),
        ),
        tokens=("<|", " to=", "to="),  # `to=` heads a call with or without the header
        interleaved=True,
    ),
    call=Call(
        " to={name}<|channel|>analysis <|constrain|>xml<|message|>{arguments}<|call|>",
        XmlArguments(LAYOUT),
        optional=(" <|constrain|>xml",),
        other_closers=(END,),
    ),
    dropped=(HEADER,),
    stops=("<|return|>",),
    prompt=HEADER,
)
FORMAT = build(SPEC)
