"""DeepSeek R1 / V3 / V3.1 / V3.2 / V4 / V4.1 (FORMATS.md §5): one grammar, and variants
that differ only in data — the section's spellings, the text around a call's name and
arguments, and whether arguments are JSON or DSML parameters.

R1/V3  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{…}\\n```<｜tool▁call▁end｜>
       [\\n<｜tool▁call▁begin｜>…]<｜tool▁calls▁end｜><｜end▁of▁sentence｜>
V3.1   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
V3.2   \\n\\n<｜DSML｜function_calls>\\n<｜DSML｜invoke name="NAME">\\n<｜DSML｜parameter name="K"
       string="true">V</｜DSML｜parameter>\\n</｜DSML｜invoke>\\n</｜DSML｜function_calls>
V4     the block is `tool_calls`; V4.1: tag names gain a leading space (`<｜DSML｜ calls>`).

- Reasoning `<think>…</think>` is pre-opened by R1's prompt (`<｜Assistant｜><think>\\n`) and
  by the thinking prompts of V3.1+ (`<think>`); chat prompts end with `</think>`, and without
  a generation prompt no block is open. A section opener ends an open block implicitly.
- Wherever a layout has whitespace, any whitespace or none is accepted, and also before each
  of its pieces; the `\\n\\n` before a DSML block belongs to the envelope, not to content.
- R1/V3 and V3.1 accept the section-opener spellings of §5.0, and calls outside a section.
- DSML: a `string="true"` value is the raw text exactly (whitespace kept), a
  `string="false"` one JSON; a duplicate parameter is an error. Text after the block is
  content (lenient: the reference parser rejects it).
- `<｜end▁of▁sentence｜>` ends the turn; it is never content.
"""  # noqa: E501

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import chain

from ..combinators import alt, json_object, literal, optional, seq
from ..combinators import whitespace as ws
from ..combinators.xmlargs import DSML, DSML_V41, Layout, dsml, xml_arguments
from ..tools import Tools
from .base import Format
from .blocks import (
    Calls,
    arguments,
    closer,
    loose,
    markers,
    per_tool,
    render_argument,
    section_calls,
    tool_name,
    turn_format,
)
from .turns import ToolUse

EOS = "<｜end▁of▁sentence｜>"
CALLS_BEGIN = ("<｜tool▁calls▁begin｜>", "<｜tool_calls_begin｜>", "<｜tool calls begin｜>",
               "<｜tool\\_calls\\_begin｜>", "<｜tool▁calls｜>")  # fmt: skip
CALLS_END = ("<｜tool▁calls▁end｜>", "<｜tool_calls_end｜>", "<｜tool calls end｜>",
             "<｜tool\\_calls\\_end｜>")  # fmt: skip
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
DSML_TOKEN = "｜DSML｜"
DSML_SPELLINGS = ("｜｜DSML｜｜", "|DSML|", " | DSML | ", "‖DSML‖")  # as proxies corrupt it
CHAT_PROMPTS = {None: "<｜Assistant｜></think>", "reasoning": "<｜Assistant｜><think>"}


@dataclass(frozen=True)
class Variant:
    """One DeepSeek generation: `call` is a call as rendered, with `{name}` and `{arguments}`;
    `section` the canonical wrapper of the calls (joined by `between`); `begins`/`ends` all
    accepted spellings of its markers; `openers` where content stops to try a call; `bare`
    whether a call outside a section counts; `layout` the DSML parameters (None: JSON);
    `spellings` other spellings of the `｜DSML｜` token that are accepted too."""

    name: str
    summary: str
    call: str
    between: str
    section: tuple[str, str]
    begins: tuple[str, ...]
    ends: tuple[str, ...]
    openers: tuple[str, ...]
    reserved: tuple[str, ...]
    bare: bool = False
    layout: Layout | None = None
    spellings: tuple[str, ...] = ()
    prompts: Mapping[str | None, str] = field(default_factory=lambda: CHAT_PROMPTS)


def calls(variant: Variant, tools: Tools | None) -> Calls:
    before, rest = variant.call.split("{name}")
    after_name, after = rest.split("{arguments}")
    layout = variant.layout
    values = per_tool(tools, lambda schema: arguments(
        json_object() if layout is None else xml_arguments(layout, schema)))  # fmt: skip
    head = seq(loose(before), ws, tool_name(), ws, loose(after_name)).map(lambda parts: parts[2])
    resync = (after[after.rindex("<") :], before.partition(' name="')[0], *variant.ends, EOS)
    lead = variant.section[0][: -len(variant.section[0].lstrip())]  # a blank line, for DSML
    begin = markers(*variant.begins)
    return section_calls(variant.openers, seq(optional(literal(lead)), begin) if lead else begin,
                         head, lambda name: seq(ws, values(name), ws, loose(after)), resync,
                         closer(*variant.ends), bare=variant.bare)  # fmt: skip


def respelled(variant: Variant, spelling: str) -> Variant:
    """`variant` with its `｜DSML｜` token spelled `spelling` throughout."""

    def swap(text: str) -> str:
        return text.replace(DSML_TOKEN, spelling)

    assert variant.layout is not None
    opening, ending = map(swap, variant.section)
    return replace(variant, call=swap(variant.call), section=(opening, ending),
                   begins=tuple(map(swap, variant.begins)), ends=tuple(map(swap, variant.ends)),
                   openers=tuple(map(swap, variant.openers)), spellings=(),
                   layout=dsml(swap(variant.layout.opener)[1 : -len("parameter")],
                               unclosed_at_opener=variant.layout.unclosed_at_opener))  # fmt: skip


def spelled_calls(variant: Variant, tools: Tools | None) -> Calls:
    """The variant's calls, in its own spelling or any of its `spellings`."""
    spelled = [
        calls(v, tools) for v in (variant, *map(partial(respelled, variant), variant.spellings))
    ]
    return Calls(tuple(chain.from_iterable(c.openers for c in spelled)),
                 alt(*(c.head for c in spelled)), alt(*(c.call for c in spelled)))  # fmt: skip


def render_call(variant: Variant, use: ToolUse, index: int) -> str:
    layout = variant.layout
    if layout is None:
        values = json.dumps(use.arguments, ensure_ascii=False)
    else:
        values = "\n".join(render_argument(layout, k, v) for k, v in use.arguments.items())
    return variant.call.replace("{name}", use.name).replace("{arguments}", values)


def dsml_variant(name: str, summary: str, block: str, layout: Layout = DSML) -> Variant:
    """A DSML generation: calls in block `block`, parameters and tag spelling from `layout`."""
    spelling = layout.opener[1 : -len("parameter")]
    begin, end, invoke = f"<{spelling}{block}>", f"</{spelling}{block}>", f"<{spelling}invoke"
    token = spelling.rstrip()
    return Variant(name, summary, f'{invoke} name="{{name}}">\n{{arguments}}\n</{spelling}invoke>',
                   "\n", (f"\n\n{begin}\n", f"\n{end}"), (begin,), (end,),
                   (f"\n\n<{token}", f"<{token}"), (begin, end, invoke, f"</{spelling}invoke>",
                   layout.opener, layout.value_close), layout=layout,
                   spellings=DSML_SPELLINGS)  # fmt: skip


JSON_RESERVED = (*CALLS_BEGIN, *CALLS_END, CALL_BEGIN, CALL_END, SEP)
VARIANTS = (
    Variant("deepseek-v3", "DeepSeek R1 / V3: function<｜tool▁sep｜>NAME, JSON in a fence",
            f"{CALL_BEGIN}function{SEP}{{name}}\n```json\n{{arguments}}\n```{CALL_END}", "\n",
            (CALLS_BEGIN[0], CALLS_END[0]), CALLS_BEGIN, CALLS_END, (*CALLS_BEGIN, CALL_BEGIN),
            JSON_RESERVED, bare=True,
            prompts={None: "<｜Assistant｜>", "reasoning": "<｜Assistant｜><think>\n"}),
    Variant("deepseek-v3.1", "DeepSeek V3.1: NAME<｜tool▁sep｜>{JSON} in <｜tool▁call▁begin｜>",
            f"{CALL_BEGIN}{{name}}{SEP}{{arguments}}{CALL_END}", "", (CALLS_BEGIN[0], CALLS_END[0]),
            CALLS_BEGIN, CALLS_END, (*CALLS_BEGIN, CALL_BEGIN), JSON_RESERVED, bare=True),
    dsml_variant("deepseek-v3.2", "DeepSeek V3.2: DSML function_calls", "function_calls"),
    dsml_variant("deepseek-v4", "DeepSeek V4: DSML tool_calls", "tool_calls"),
    dsml_variant("deepseek-v4.1", "DeepSeek V4.1: DSML with spaced tag names", "calls", DSML_V41),
)  # fmt: skip


def format_of(variant: Variant) -> Format:
    return turn_format(variant.name, partial(spelled_calls, variant), stops=(EOS,),
                       render_call=partial(render_call, variant), prompts=variant.prompts,
                       summary=variant.summary, call_marker=variant.call, reserved=variant.reserved,
                       between_calls=variant.between, section=variant.section)  # fmt: skip


FORMATS = tuple(map(format_of, VARIANTS))
