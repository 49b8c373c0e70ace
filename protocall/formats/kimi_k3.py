"""Kimi K3 "XTML" channels (FORMATS.md §3) over four special tokens.

R<|close|>think<|sep|><|open|>response<|sep|>C<|close|>response<|sep|><|open|>tools<|sep|>
<|open|>call tool="N" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V
<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
The think channel is pre-opened by default; a response or tools opener ends it implicitly.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Channel, Channels, Section, Spec, Tags
from ..spec.codecs import JsonBlock, XmlArguments
from ..values.xmlargs import Layout

LAYOUT = Layout(
    "<|open|>argument",
    "<|sep|>",
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    key_attribute="key",
    decode_entities=True,
    type_attribute="type",
    committed_opener=True,
)
"""Kimi K3: `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`, values raw,
typed by `type` (string, number, boolean, null, object, array), ends at
`<|close|>call<|sep|>`. The markers are special tokens, so `<|close|>argument<|sep|>` then
`<|open|>argument` always ends a value: a malformed next argument is an error, never
value text."""

SPEC = Spec(
    name="kimi-k3",
    summary="Kimi K3: XTML channels over <|open|>, <|close|>, <|sep|>, <|end_of_msg|>",
    tags=Tags("<|open|>", "<|close|>", "<|sep|>"),
    turn=Channels((Channel("reasoning", "<think>", ""), Channel("content", "<response>", ""))),
    call=Call(
        '<call tool="{name}" index="{index}">{arguments}</call>',
        arguments=XmlArguments(LAYOUT, block=JsonBlock("<|open|>json", "<|sep|>", "</json>")),
    ),
    section=Section(("<tools>",), ("</tools>",), stray_ends=True, opens_at="marker"),
    stops=("</message>", "<|end_of_msg|>"),
    prompt='<message role="assistant">',
    default_start="reasoning",
)
FORMAT = build(SPEC)
