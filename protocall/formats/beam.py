"""Beam: Harmony-like messages whose calls, addressed ` to=NAME` on the analysis channel,
hold `<rfl:parameter>` elements, as SGLang's and vLLM's `beam` parsers read them.

<|channel|>analysis<|message|>R<|end|><|start|>assistant to=NAME<|channel|>analysis
 <|constrain|>xml<|message|><rfl:parameter name="K">\\nV\\n</rfl:parameter>…<|call|>
<|start|>assistant to=NAME<|channel|>analysis <|constrain|>xml<|message|>…<|end|>
<|start|>assistant<|channel|>final<|message|>C<|return|>

- The parsers read the output with a response template: vLLM's `vllm/parser/beam.py`
  (`BeamParser`) the checkpoint's own (tokenizer_config.json metadata), SGLang's
  `sglang/srt/parser/beam.py` the one it ships (`BEAM_RESPONSE_TEMPLATE`), which this
  family follows. The generation prompt ends with `<|start|>assistant`, which also heads
  later messages (dropped wherever it stands). Reasoning is `<|channel|>analysis<|message|>`
  … `<|end|>`, the answer `<|channel|>final<|message|>` … `<|return|>` (the end of the
  turn) or `<|end|>`, in any number of messages, in any order.
- A call is `to=NAME` (after the header and a space, or alone), `<|channel|>analysis`,
  the content type ` <|constrain|>xml` or none, `<|message|>`, its parameters, then
  `<|call|>` or `<|end|>` (`Call.other_closers`): calls follow one another either way.
  A value is framed by a newline after the parameter's `>` and one before its closer
  (SGLang's template; where present, not value text: a value written without them, as a
  gateway test's Beam-like template has it, reads the same), typed by the tool's schema;
  a missing `</rfl:parameter>` is tolerated before the next parameter of the tool that
  opens a line. Written: the header is left out before a call (` to=NAME…`, as right
  after the prompt), the content type, the framing newlines and `<|call|>` written, an
  answer closed by `<|end|>` before the turn's `<|return|>`.
- Where protocall reads otherwise (tests/integrations/test_beam_sglang.py and
  test_beam_vllm.py run the peers' parsers on the same strings): a call cut off by the end
  of the output is a truncated error, never a call (vLLM completes it with the parameters
  that closed; SGLang sends no call); a parameter value holding `<|end|>` or `<|call|>` is
  text up to its own closing tag (vLLM ends the call there and loses the parameter); a whole
  call header inside the reasoning ends the reasoning, as a genuine call does in every
  family (vLLM's reasoning ends only at `<|end|>`); text outside every message, after
  `<|return|>` too, is content, nothing the model wrote being lost (vLLM drops it; a server
  stops at `<|return|>`); with tools declared, a call to another name is an `unknown_tool`
  error (vLLM takes any name).
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Channel, Channels, Spec
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

HEADER, END = "<|start|>assistant", "<|end|>"
LAYOUT = Layout(
    "<rfl:parameter",
    ">",
    "</rfl:parameter>",
    "<|call|>",
    key_attribute="name",
    framing_newlines=True,
    unclosed_at_opener=True,
)
"""`<rfl:parameter name="K">\\nV\\n</rfl:parameter>`, typed by the schema (see above)."""

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
