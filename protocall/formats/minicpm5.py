"""OpenBMB MiniCPM5: `<function name="N">` calls, `<param name="K">` values, CDATA quotes.

[<think>\\nR\\n</think>\\n\\n]content\\n<function name="NAME"><param name="K">V</param></function>\\n<function …>…</function><|im_end|>

- vLLM's `minicpm5xml_tool_parser.py` (vLLM's tests:
  `tests/tool_parsers/test_minicpm5xml_tool_parser.py`), SGLang's `minicpm5_detector.py`
  and the model's chat template (openbmb/MiniCPM5-1B): calls one a line, anywhere in the
  content; each argument a `<param>` named by its attribute.
- A value is raw text, typed by the tool's schema; one holding `<`, `&` or a newline is
  written in `<![CDATA[…]]>`, read verbatim up to the `]]>` that `</param>` follows.
- Reasoning in `<think>`, written by the model (hybrid); `enable_thinking` pre-opens it
  (the prompt ends `<think>\\n`) or closes it empty (`<think>\\n\\n</think>\\n\\n`).
- Not read as the peers read them: tags collapsed or spelled with a tokenizer's `Ġ`
  (`<functionname=`, `<param\\u0120name=`; vLLM normalises them), vLLM's renaming of
  calls to undeclared tools, and arguments wrapped in a `properties` or `arguments`
  parameter.
"""  # noqa: E501

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import Attribute, XmlArguments
from ..values.xmlargs import Layout

LAYOUT = Layout(
    "<param",
    ">",
    "</param>",
    "</function>",
    key_attribute="name",
    quote=("<![CDATA[", "]]>"),
    quote_when="<&\n",
)
"""`<param name="K">V</param>`, V raw or in `<![CDATA[…]]>`, ends at `</function>`."""

SPEC = Spec(
    name="minicpm5",
    summary='MiniCPM5: <function name="N"><param name="K">V</param>, CDATA-quoted values',
    turn=Think(opened_by="<think>\n", off="<think>\n\n</think>\n\n"),
    call=Call(
        '<function name="{name}">{arguments}</function>',
        XmlArguments(LAYOUT),
        name=Attribute(),
        between="\n",
    ),
    stops=("<|im_end|>",),
    prompt="<|im_start|>assistant\n",
)
FORMAT = build(SPEC)
