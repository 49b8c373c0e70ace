"""MiniMax-M3: invokes whose arguments are elements named after their keys, every tag led by
`]<]minimax[>[` (`P` below), objects and lists nesting as elements.

<mm:think>R</mm:think>content P<tool_call>\\nP<invoke name="N">P<K>V P</K>P</invoke>\\nP</tool_call>[e~[

- The generation prompt (`]~b]ai\\n`) opens nothing by default ("adaptive": the model may
  write `<mm:think>…</mm:think>`, or `</mm:think>` alone, which closes nothing and is
  dropped); `thinking_mode="enabled"` pre-opens `<mm:think>`, `"disabled"` ends with
  `</mm:think>`.
- One `P<tool_call>` block holds the calls, one invoke a line; the content runs right up
  to it. Arguments are `values.elements`: an object's members and a list's `P<item>`s
  nest as elements, typed by the tool's schema level by level (a member whose value is
  null is not written).
- `[e~[` ends the turn; it is never content.
"""  # noqa: E501

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlElements
from ..values.elements import Elements

PREFIX = "]<]minimax[>["
ELEMENTS = Elements(PREFIX)
"""The argument elements: `P<K>V P</K>`, a list's children `P<item>`."""

SPEC = Spec(
    name="minimax-m3",
    summary=f"MiniMax-M3: {PREFIX}<invoke name=N> with nested {PREFIX}<K> elements",
    turn=Think("<mm:think>", "</mm:think>", explicit=True, off="</mm:think>"),
    call=Call(
        f'{PREFIX}<invoke name="{{name}}">{{arguments}}{PREFIX}</invoke>',
        XmlElements(ELEMENTS),
        between="\n",
    ),
    section=Section((f"{PREFIX}<tool_call>\n",), (f"\n{PREFIX}</tool_call>",)),
    stops=("[e~[",),
    prompt="]~b]ai\n",
)
FORMAT = build(SPEC)
