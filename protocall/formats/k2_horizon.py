"""K2 Horizon: GLM-style arguments in `<ifm|…>` tokens, calls in `<ifm|tool_calls>`.

[<ifm|think>R</ifm|think>]content<ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key><ifm|arg_value>V</ifm|arg_value></ifm|tool_call>\\n…</ifm|tool_calls>

- vLLM's `k2_horizon_tool_parser.py` and `k2_horizon_reasoning_parser.py`, with vLLM's
  tests (`tests/tool_parsers/test_k2_horizon_tool_parser.py`); SGLang's `k2_v3_detector.py`.
  The default `xml` call format: the name, then key/value pairs, values raw text typed by
  the tool's schema; calls separated by a newline or nothing.
- Reasoning in `<ifm|think>` (effort high), `<ifm|think_fast>` (medium) or
  `<ifm|think_faster>` (low); the calls section ends it too, as vLLM's reasoning parser
  has it (SGLang's detector keeps a block never closed whole as reasoning, calls and all).
- Not read: the request-selected `json` (`{"name", "arguments"}` in the call tags) and
  `xml_typed` (an `<ifm|arg_type>` per argument) call formats. No end-of-turn marker:
  neither peer names one (no template seen), so the turn runs to the end of the output.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

LAYOUT = Layout(
    "<ifm|arg_key>",
    "</ifm|arg_key>",
    "</ifm|arg_value>",
    "</ifm|tool_call>",
    value_open="<ifm|arg_value>",
    committed_opener=True,
)
"""`<ifm|arg_key>K</ifm|arg_key><ifm|arg_value>V</ifm|arg_value>`, ends at `</ifm|tool_call>`."""

EFFORTS = (("<ifm|think_fast>", "</ifm|think_fast>"), ("<ifm|think_faster>", "</ifm|think_faster>"))

SPEC = Spec(
    name="k2-horizon",
    summary="K2 Horizon: <ifm|tool_call>NAME with <ifm|arg_key>/<ifm|arg_value> pairs",
    turn=Think("<ifm|think>", "</ifm|think>", opened_by="", also=EFFORTS),
    call=Call(
        "<ifm|tool_call>{name}{arguments}</ifm|tool_call>", XmlArguments(LAYOUT), between="\n"
    ),
    section=Section(("<ifm|tool_calls>",), ("</ifm|tool_calls>",)),
    stops=(),
)
FORMAT = build(SPEC)
