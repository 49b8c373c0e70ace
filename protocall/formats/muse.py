"""Muse (Muse Spark) and Muse Glimmer: messages whose header names their recipient.

 to=self<|message|>R<|eom|><|start|>assistant to=NAME<|message|><atem:function_calls>
<atem:invoke name="NAME">\\n<atem:parameter name="K">V</atem:parameter>\\n</atem:invoke>
</atem:function_calls><|eom|><|start|>assistant to=user<|message|>C<|eot|>

- vLLM's `muse_tool_parser.py` and `muse_reasoning_parser.py` (Glimmer: the subclasses in
  `muse_glimmer_*_parser.py`), SGLang's `muse_glimmer_detector.py` (parser `muse`) and the
  model's chat template (vLLM's
  `examples/tool_chat_template_muse_glimmer.jinja`, llama.cpp's
  `models/templates/muse-glimmer.jinja`): a message is `<|start|>assistant`, ` to=` its
  recipient, `<|message|>`, its body and `<|eom|>` (`<|eot|>` ends the turn). The
  recipient decides what the message is: `self` reasoning, `user` content, any other a
  call, one ATEM invoke a message, its parameters verbatim, typed by the tool's schema
  (a header's label that names no channel, dropped with the header, as `Channels.label`
  says). Muse (Spark) reads a header with no recipient as reasoning and `commentary` as
  content too; Glimmer reads the recipient-less header as content.
- The generation prompt ends with `<|start|>assistant`, so the output begins with the
  first header's recipient (` to=self<|message|>`); a prompt ending with
  ` to=self<|message|>` pre-opens the reasoning.
- The template offers a tool `N` as the recipients `N.*`, so (vLLM's parser notes) the
  model writes `get_weather.get_weather` for a declared `get_weather`: read as
  `get_weather` (`Plain(doubled=".")`), as both peers read it.
- Not read as vLLM reads it: a message to another recipient whose body is no ATEM block
  (Spark's `to=developer` note, which vLLM drops) is a malformed call, its raw text kept
  (as the first message after the prompt, content as written); an invoke quoted
  in a `to=user` answer stays content (vLLM's reasoning parser drops that answer); two
  invokes in one block (the template writes one call a message) are a malformed call,
  where vLLM reads both.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Channel, Channels, Spec
from ..spec.codecs import Plain, XmlArguments
from ..values.xmlargs import Layout

HEADER, MESSAGE, EOM, EOT = "<|start|>assistant", "<|message|>", "<|eom|>", "<|eot|>"
LAYOUT = Layout("<atem:parameter", ">", "</atem:parameter>", "</atem:invoke>", key_attribute="name")
"""`<atem:parameter name="K">V</atem:parameter>`, values verbatim, typed by the schema."""


def to(recipient: str) -> str:
    """The header of a message to `recipient`."""
    return f"{HEADER} to={recipient}{MESSAGE}"


def spec(name: str, summary: str, *channels: Channel) -> Spec:
    """A Muse spec whose messages are `channels` (the first content one written)."""
    return Spec(
        name=name,
        summary=summary,
        turn=Channels(
            channels, tokens=("<|",), interleaved=True, header=HEADER, label=" to={name}"
        ),
        call=Call(
            f'{MESSAGE}<atem:function_calls>\n<atem:invoke name="{{name}}">\n'
            "{arguments}</atem:invoke>\n</atem:function_calls>",
            XmlArguments(LAYOUT, newline=True),
            name=Plain(doubled="."),
            between=EOM,
        ),
        stops=(EOT,),
        prompt=HEADER,
    )


MUSE = build(
    spec(
        "muse",
        "Muse: <|start|>assistant to=R<|message|> messages, self reasoning, ATEM calls",
        Channel("reasoning", to("self"), EOM, also=(HEADER + MESSAGE,)),
        Channel("content", to("user"), EOM),
        Channel("commentary", to("commentary"), EOM),
    )
)
GLIMMER = build(
    spec(
        "muse-glimmer",
        "Muse Glimmer: <|start|>assistant to=R<|message|> messages, self reasoning, ATEM calls",
        Channel("reasoning", to("self"), EOM),
        Channel("content", to("user"), EOM, also=(HEADER + MESSAGE,)),
    )
)
FORMATS = (MUSE, GLIMMER)
