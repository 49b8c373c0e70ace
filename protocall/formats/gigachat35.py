"""Sber GigaChat 3.5: DeepSeek V3.2's DSML calls spelled with a `｜GCML｜` token.

R</think>content<｜GCML｜tool_calls>\\n<｜GCML｜invoke name="N">\\n<｜GCML｜parameter name="K" string="true">V</｜GCML｜parameter>\\n</｜GCML｜invoke>\\n</｜GCML｜tool_calls></s>

- SGLang's `gigachat35_detector.py` and vLLM's tests of its `gigachat35` parser
  (`tests/tool_parsers/test_gigachat35_tool_parser.py`; not in vLLM 0.33): one block of
  invokes; a `string="true"` value is the
  raw text, a `string="false"` one JSON (DSML's layout, `formats/deepseek.py`); whitespace
  or none between the tags. `<|message_sep|>` is dropped where it stands; `</s>` ends
  the turn.
- Reasoning: SGLang's reasoning parser list maps `gigachat35` to its DeepSeek-R1 one, open
  from the start and ended by `</think>` (a `<think>` written first is read too) or a
  genuine call block.
- Not confirmed by a peer (no template seen): that the model writes reasoning, as the
  reasoning parser assumes.
"""  # noqa: E501

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from .deepseek import dsml_layout

LAYOUT = dsml_layout("｜GCML｜")
"""`<｜GCML｜parameter name="K" string="true|false">V</｜GCML｜parameter>`."""

SPEC = Spec(
    name="gigachat-3.5",
    summary="GigaChat 3.5: GCML <｜GCML｜invoke name=…> blocks, DSML's parameters",
    turn=Think(),
    call=Call(
        '<｜GCML｜invoke name="{name}">\n{arguments}\n</｜GCML｜invoke>',
        XmlArguments(LAYOUT, separator="\n"),
        between="\n",
        loose=True,
    ),
    section=Section(("<｜GCML｜tool_calls>\n",), ("\n</｜GCML｜tool_calls>",)),
    stops=("</s>",),
    dropped=("<|message_sep|>",),
    default_start="reasoning",
)
FORMAT = build(SPEC)
