"""Kimi K3 "XTML" channels (FORMATS.md §3) over four special tokens.

R<|close|>think<|sep|><|open|>response<|sep|>C<|close|>response<|sep|><|open|>tools<|sep|>
<|open|>call tool="N" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V
<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
The think channel is pre-opened by default; a response or tools opener ends it implicitly.
"""

from __future__ import annotations

from .codecs import Attribute, JsonBlock, XmlArguments
from .layouts import KIMI_K3
from .spec import Call, Channel, Channels, Section, Spec, build

SPEC = Spec(
    name="kimi-k3",
    summary="Kimi K3: XTML channels over <|open|>, <|close|>, <|sep|>, <|end_of_msg|>",
    turn=Channels(
        channels=(
            Channel("reasoning", "<|open|>think<|sep|>", "<|close|>think<|sep|>"),
            Channel("content", "<|open|>response<|sep|>", "<|close|>response<|sep|>"),
        ),
        tokens=("<|open|>", "<|close|>", "<|end_of_msg|>"),
    ),
    call=Call(
        '<|open|>call tool="{name}" index="{index}"<|sep|>{arguments}<|close|>call<|sep|>',
        arguments=XmlArguments(
            KIMI_K3, block=JsonBlock("<|open|>json", "<|sep|>", "<|close|>json<|sep|>")
        ),
        name=Attribute(),
    ),
    section=Section(
        ("<|open|>tools<|sep|>",), ("<|close|>tools<|sep|>",), stray_ends=True, opens_at="marker"
    ),
    stops=("<|close|>message<|sep|>", "<|end_of_msg|>"),
    prompt='<|open|>message role="assistant"<|sep|>',
    default_start="reasoning",
)
FORMAT = build(SPEC)
