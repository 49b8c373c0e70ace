"""Pythonic calls (FORMATS.md §6.7): Llama 3.2 / Llama 4 pythonic and LFM2 / LFM2.5, one
grammar over per-variant data — the section around the list, whether a bare list counts,
reasoning, and the end-of-turn tokens.

pythonic  content[get_weather(location="Paris", days=3), get_time(zone="UTC")]<|eot_id|>
llama-4   the same, the list optionally in <|python_start|>…<|python_end|>; <|eot|>
lfm2      [<think>R</think>]content<|tool_call_start|>[f(a='x')]<|tool_call_end|>content<|im_end|>

- Arguments are keyword arguments with Python (or JSON) literal values, typed by the
  literals; a call's arguments stream as JSON text. Names may contain `-` (MCP tools).
- A bare list is a call list only where `[` is followed by a declared tool's name, `(` and
  `)` or a first `key=` (vLLM reads one only at the very start of the output; here it may
  follow content, and text may follow it). Until that is decided its `[` is held back; a
  bare list cut off before it is text. LFM2 calls count only inside the section.
- Reasoning (LFM2.5) is `<think>…</think>`, written by the model: only `</think>` ends it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..combinators import Parser
from ..tools import Tools
from .base import Format
from .blocks import Reasoning, assistant_turn, python_call_list, render_turn
from .turns import ToolUse, Turn


@dataclass(frozen=True)
class Variant:
    """`section` may wrap a list (None: bare lists only), `bare` says whether a list without
    it counts; `render` writes the section only where a bare list does not count."""

    name: str
    summary: str
    stops: tuple[str, ...]
    prompts: Mapping[str | None, str]
    section: tuple[str, str] | None = None
    bare: bool = True
    reasoning: Reasoning | None = None


def grammar(variant: Variant, tools: Tools | None, start: str | None) -> Parser[Any]:
    calls = python_call_list(tools, variant.stops, section=variant.section, bare=variant.bare)
    return assistant_turn(calls=calls, stops=variant.stops, reasoning=variant.reasoning,
                          start=start)  # fmt: skip


def render_call(use: ToolUse) -> str:
    return f"{use.name}({', '.join(f'{k}={v!r}' for k, v in use.arguments.items())})"


def render(variant: Variant, turn: Turn, start: str | None) -> str:
    wrap = variant.section if not variant.bare else None
    begin, end = (wrap[0] + "[", "]" + wrap[1]) if wrap else ("[", "]")
    return render_turn(turn, start, reasoning=variant.reasoning, call=render_call,
                       between_calls=", ", section=(begin, end), stop=variant.stops[0])  # fmt: skip


def format_of(variant: Variant) -> Format:
    reasoning = variant.reasoning
    channels = {"reasoning": (reasoning.open, reasoning.close)} if reasoning else {}
    section = variant.section or ("", "")
    reserved = tuple(m for m in (*section, *channels.get("reasoning", ()), *variant.stops) if m)
    return Format(
        variant.name,
        partial(grammar, variant),
        partial(render, variant),
        reserved=reserved,
        channels=channels,
        prompts=variant.prompts,
        summary=variant.summary,
        markers={"call": f"{section[0]}[NAME(k=v, …), …]{section[1]}",
                 **({"reasoning": "<think>…</think>"} if reasoning else {})},
    )  # fmt: skip


LLAMA_3: Mapping[str | None, str] = {None: "<|start_header_id|>assistant<|end_header_id|>\n\n"}
VARIANTS = (
    Variant("pythonic", "Llama 3.2 pythonic: a bare list [f(a=1), g(b='x')]",
            ("<|eot_id|>", "<|eom_id|>"), LLAMA_3),
    Variant("llama-4", "Llama 4 pythonic: [f(a=1)], optionally in <|python_start|>…<|python_end|>",
            ("<|eot|>", "<|eom|>"), {None: "<|header_start|>assistant<|header_end|>\n\n"},
            section=("<|python_start|>", "<|python_end|>")),
    Variant("lfm2", "LFM2 / LFM2.5: [f(a=1)] in <|tool_call_start|>…<|tool_call_end|>",
            ("<|im_end|>",), {None: "<|im_start|>assistant\n"},
            section=("<|tool_call_start|>", "<|tool_call_end|>"), bare=False,
            reasoning=Reasoning("<think>", "</think>", explicit=True)),
)  # fmt: skip
FORMATS = tuple(map(format_of, VARIANTS))
