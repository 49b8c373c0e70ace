"""Baidu ERNIE 4.5 (and its Thinking models): JSON objects in `<tool_call>` tags.

<think>R</think><response>content</response>
<tool_call>\\n{"name": N, "arguments": {…}}\\n</tool_call></s>

- vLLM's `ernie45_tool_parser.py` and `ernie45_reasoning_parser.py`: a call is `{…}` in
  `<tool_call>` … `</tool_call>`, whitespace around the object; the `<response>` …
  `</response>` wrapper around the answer is no content (dropped where it stands).
- The prompt is `Assistant: `; `</s>` and `<|end_of_sentence|>` end the turn.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec, Think
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="ernie-4.5",
    summary="ERNIE 4.5: JSON objects in <tool_call> tags, <think>, <response>",
    turn=Think(opened_by=""),
    call=Call("<tool_call>\n{call}\n</tool_call>", NameAndArguments(), between="\n"),
    stops=("</s>", "<|end_of_sentence|>"),
    dropped=("<response>", "</response>"),
    prompt="Assistant: ",
)
FORMAT = build(SPEC)
