"""rednote dots: MiniMax-style invokes in `<dots_function_call>` blocks.

[<think>R</think>]content<dots_function_call>\\n<invoke name="N">\\n<parameter name="K">V</parameter>\\n</invoke>\\n</dots_function_call>

- vLLM's `dots_tool_parser.py` and SGLang's `dots_detector.py`, with vLLM's tests
  (`tests/tool_parsers/test_dots_tool_parser.py`): one or more invokes a block, whitespace
  or none between the tags; more blocks may follow. Values are raw text typed by the
  tool's schema (MiniMax-M2's layout, `formats/minimax.py`).
- Reasoning in `<think>`: SGLang's reasoning parser list maps `dots` to its Qwen3 one.
- Not read: the peers' fallback of a JSON `{"name", "arguments"}` object as a block's
  whole body (text here), and their stripping of the whitespace around a string value
  (kept here). Not confirmed by a peer: the `<|endofresponse|>` end of turn.
"""  # noqa: E501

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from .minimax import INVOKE_END, LAYOUT

SPEC = Spec(
    name="dots",
    summary='dots: <invoke name="N"> with <parameter name="K"> in <dots_function_call>',
    turn=Think(opened_by=""),
    call=Call(
        f'<invoke name="{{name}}">\n{{arguments}}{INVOKE_END}',
        XmlArguments(LAYOUT, newline=True),
        between="\n",
    ),
    section=Section(("<dots_function_call>\n",), ("\n</dots_function_call>",)),
    stops=("<|endofresponse|>",),
)
FORMAT = build(SPEC)
