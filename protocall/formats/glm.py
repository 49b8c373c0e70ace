"""GLM-4.5 / 4.6 / 4.5-Air / 4.6V and GLM-4.7 / 4.7-Flash (FORMATS.md §6.2, §6.3): one
grammar, two variants that differ only in data — the newlines of the layout, and whether the
generation prompt pre-opens `<think>`.

4.5  \\n<think>R</think>\\ncontent\\n<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call><|observation|>
4.7  R</think>content<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>

- GLM-4.5 writes `<think>` itself after the prompt `<|assistant|>` (thinking off: the prompt
  ends `<|assistant|>\\n<think></think>`); GLM-4.7 pre-opens it (`<|assistant|><think>`;
  off: `<|assistant|></think>`). A genuine call ends an open reasoning block.
- Any whitespace, or none, between the tags; values verbatim, typed by the tool's schema;
  a call may have no arguments. GLM-4.5's newline before `<tool_call>` belongs to the call.
  `</arg_value>` then `<arg_key>` always ends a value, so a malformed key is an error, never
  value text. GLM-4.7 tolerates a missing last `</arg_value>` before `</tool_call>`.
- `<|observation|>` (after calls), `<|user|>` and `<|endoftext|>` end the turn.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from ..combinators import Parser
from ..combinators.xmlargs import GLM, Layout, glm_47
from ..tools import Tools
from .base import Format
from .blocks import Reasoning, assistant_turn, render_turn, render_xml_call, xml_calls
from .turns import ToolUse, Turn

THINK, END_THINK = "<think>", "</think>"
REASONING = Reasoning(THINK, END_THINK)
TOOL_CALL = "<tool_call>"
OBSERVATION, USER, END_OF_TEXT = "<|observation|>", "<|user|>", "<|endoftext|>"
STOPS = (OBSERVATION, USER, END_OF_TEXT)
ASSISTANT = "<|assistant|>"
RESERVED = (THINK, END_THINK, TOOL_CALL, GLM.opener, GLM.key_close, GLM.value_open,
            GLM.value_close, GLM.end, *STOPS)  # fmt: skip


def grammar(newline: str, layout: Layout, tools: Tools | None, start: str | None) -> Parser[Any]:
    calls = xml_calls(tools, layout, TOOL_CALL, stops=STOPS, lead=newline)
    return assistant_turn(calls=calls, stops=STOPS, reasoning=REASONING, start=start)


def render(newline: str, turn: Turn, start: str | None) -> str:
    def call(use: ToolUse) -> str:
        return newline + render_xml_call(GLM, TOOL_CALL, "", use, bool(newline))

    model_opens = turn.reasoning is not None and start is None
    return (newline if model_opens else "") + render_turn(
        turn, start, reasoning=REASONING, call=call, stop=OBSERVATION if turn.calls else USER
    )


def variant(
    name: str,
    summary: str,
    newline: str,
    default: str | None,
    prompts: Mapping[str | None, str],
    layout: Layout = GLM,
) -> Format:
    """A GLM generation: `newline` is its layout's newline (empty for 4.7), also written
    before each call; `default` the start state of the template's default prompt; `layout`
    its arguments."""
    return Format(name, partial(grammar, newline, layout), partial(render, newline),
                  reserved=RESERVED,
                  channels={"reasoning": (THINK, END_THINK)}, default_start=default,
                  prompts=prompts, summary=summary,
                  markers={"reasoning": "<think>…</think>",
                           "call": "<tool_call>N<arg_key>K<arg_value>V"})  # fmt: skip


FORMATS = (
    variant("glm-4.5", "GLM-4.5 / 4.6 / 4.5-Air / 4.6V: <tool_call>NAME\\n<arg_key>/<arg_value>",
            "\n", None, {None: ASSISTANT}),
    variant("glm-4.7", "GLM-4.7 / 4.7-Flash: <tool_call>NAME<arg_key>/<arg_value>, no newlines",
            "", "reasoning", {"reasoning": ASSISTANT + THINK, None: ASSISTANT + END_THINK},
            glm_47((TOOL_CALL, *STOPS))),
)  # fmt: skip
