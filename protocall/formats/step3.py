"""StepFun Step-3: steptml invocations in full-width-bar special tokens.

R</think>content<｜tool_calls_begin｜>\\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke
name="N">\\n<steptml:parameter name="K">V</steptml:parameter>\\n</steptml:invoke><｜tool_call_end｜>
\\n<｜tool_calls_end｜><|EOT|>

- vLLM's `step3_tool_parser.py` and SGLang's `step3_detector.py`: each call is typed
  `function` before `<｜tool_sep｜>`; values are raw text typed by the tool's schema.
- The prompt `<|BOT|>assistant\\n<think>\\n` pre-opens reasoning, which ends at `</think>`
  (vLLM's `step3_reasoning_parser.py`) or at a genuine call. `<|EOT|>` ends the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import Attribute, XmlArguments
from ..values.xmlargs import Layout

LAYOUT = Layout(
    "<steptml:parameter", ">", "</steptml:parameter>", "</steptml:invoke>", key_attribute="name"
)
"""Step-3: `<steptml:parameter name="K">V</steptml:parameter>`, ends at `</steptml:invoke>`."""

SPEC = Spec(
    name="step-3",
    summary="Step-3: <steptml:invoke> calls in <｜tool_calls_begin｜>",
    turn=Think(opened_by="<think>\n"),
    call=Call(
        "<｜tool_call_begin｜>function<｜tool_sep｜>"
        '<steptml:invoke name="{name}">\n{arguments}</steptml:invoke><｜tool_call_end｜>',
        XmlArguments(LAYOUT, newline=True),
        name=Attribute(),
        between="\n",
    ),
    section=Section(("<｜tool_calls_begin｜>\n",), ("\n<｜tool_calls_end｜>",)),
    stops=("<|EOT|>",),
    prompt="<|BOT|>assistant\n",
    default_start="reasoning",
)
FORMAT = build(SPEC)
