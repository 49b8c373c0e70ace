"""IQuest Q1: GLM-style arguments in `<iquest_tool_call>` tags, reasoning open from the start.

R</think>content<iquest_tool_call>NAME\\n<arg_key>K</arg_key><arg_value>V</arg_value>\\n</iquest_tool_call><|im_end|>

- SGLang's `iquest_q1_detector.py` (GLM-4.7's detector with its own tags): the name, then
  key/value pairs, whitespace or none around the name and between the tags; values raw
  text typed by the tool's schema (GLM's layout, `formats/glm.py`); calls follow one
  another, whitespace or none between them.
- Reasoning in `<think>`: SGLang's `iquest_q1` reasoning parser starts in it unless
  thinking is turned off; it ends at `</think>` or a genuine call.
- Not read: vLLM's tests of an iQuest Coder V2 parser spell the tags
  `<iquestcoder_tool_call>` (`tests/tool_parsers/test_iquest_coder_v2_tool_parser.py`; not
  in vLLM 0.33). Assumed, confirmed by no peer (no template seen): the `<|im_end|>` end
  of turn (ChatML; that vLLM's tests build the parser on a Qwen3 tokenizer is all it rests
  on). A spec without one would leave a turn ending in a prefix of the call opener (`<`)
  undecided between text and a cut call.
"""

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import XmlArguments
from .glm import LAYOUT as GLM

LAYOUT = replace(GLM, end="</iquest_tool_call>")
"""GLM's `<arg_key>K</arg_key><arg_value>V</arg_value>`, ends at `</iquest_tool_call>`."""

SPEC = Spec(
    name="iquest-q1",
    summary="IQuest Q1: <iquest_tool_call>NAME with <arg_key>/<arg_value> pairs",
    turn=Think(),
    call=Call(
        "<iquest_tool_call>{name}\n{arguments}</iquest_tool_call>",
        XmlArguments(LAYOUT, newline=True),
        between="\n",
    ),
    stops=("<|im_end|>",),
    default_start="reasoning",
)
FORMAT = build(SPEC)
