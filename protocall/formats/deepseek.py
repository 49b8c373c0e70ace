"""DeepSeek R1 / V3 / V3.1 / V3.2 / V4 / V4.1 (FORMATS.md §5): one spec, and variants
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
  `string="false"` one JSON; a duplicate parameter is an error; a self-closing
  `<｜DSML｜invoke name="N"/>` is a call without parameters. Text after the block is
  content (lenient: the reference parser rejects it). A DSML block quoted in Markdown code
  (a ``` or ~~~ fence, or inline backticks) in the content or the reasoning is text, never
  a call. An `invoke` outside a block is a call in the content (as vLLM reads it), not in
  the reasoning. `<｜DSML｜` followed by no DSML tag name (a damaged begin,
  `<｜DSML｜toolcalls>`, or one cut off, `<｜DSML｜tool_calls` then a newline or the end of
  turn) is a malformed call up to the end of turn, never content (`Section.sealed`).
- `<｜end▁of▁sentence｜>` ends the turn; it is never content.
"""  # noqa: E501

from __future__ import annotations

from dataclasses import replace

from ..compile.factory import build
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import XmlArguments
from ..values.xmlargs import Layout

EOS = "<｜end▁of▁sentence｜>"
SEPARATORS = ("▁", "_", " ", "\\_")  # the section markers' word separator, as decoders vary it
CALLS_BEGIN = (*(f"<｜tool{s}calls{s}begin｜>" for s in SEPARATORS), "<｜tool▁calls｜>")
CALLS_END = tuple(f"<｜tool{s}calls{s}end｜>" for s in SEPARATORS)
DSML_SPELLINGS = ("｜｜DSML｜｜", "|DSML|", " | DSML | ", "‖DSML‖")  # as proxies corrupt it


def dsml_layout(spelling: str = "｜DSML｜", *, unclosed_at_opener: bool = False) -> Layout:
    """DSML's parameters with tag prefix `spelling` (U+FF5C bars; V4.1 adds a trailing space):
    `<{spelling}parameter name="K" string="true|false">V</{spelling}parameter>`, ends at
    `</{spelling}invoke>`. `string="true"`: the raw value; `string="false"`: JSON."""
    return Layout(
        f"<{spelling}parameter",
        ">",
        f"</{spelling}parameter>",
        f"</{spelling}invoke>",
        key_attribute="name",
        type_attribute="string",
        type_values={"true": "string", "false": "json"},
        unclosed_at_opener=unclosed_at_opener,
    )


DSML = dsml_layout()
"""DeepSeek V3.2 and V4: `<｜DSML｜parameter name="K" string="…">V</｜DSML｜parameter>`."""

DSML_V41 = dsml_layout("｜DSML｜ ", unclosed_at_opener=True)
"""DeepSeek V4.1: `<｜DSML｜ parameter …>V</｜DSML｜ parameter>`; like vLLM, a missing closing
tag is tolerated before the opener, on a new line, of a declared, not yet given parameter."""

V3_1 = Spec(
    name="deepseek-v3.1",
    summary="DeepSeek V3.1: NAME<｜tool▁sep｜>{JSON} in <｜tool▁call▁begin｜>",
    turn=Think(off="</think>"),
    call=Call(
        "<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{arguments}<｜tool▁call▁end｜>", loose=True
    ),
    section=Section(CALLS_BEGIN, CALLS_END, bare=True),
    stops=(EOS,),
    prompt="<｜Assistant｜>",
)
V3 = replace(
    V3_1,
    name="deepseek-v3",
    summary="DeepSeek R1 / V3: function<｜tool▁sep｜>NAME, JSON in a fence",
    turn=Think(opened_by="<think>\n"),
    call=Call(
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{arguments}\n```<｜tool▁call▁end｜>",
        between="\n",
        loose=True,
    ),
)


def dsml(name: str, summary: str, block: str, layout: Layout = DSML) -> Spec:
    """A DSML variant: calls in block `block`, parameters and tag spelling from `layout`,
    the `｜DSML｜` token also accepted as proxies corrupt it."""
    tag = layout.opener[1 : -len("parameter")]  # `｜DSML｜`; V4.1 `｜DSML｜ `
    return replace(
        V3_1,
        name=name,
        summary=summary,
        call=Call(
            f'<{tag}invoke name="{{name}}">\n{{arguments}}\n</{tag}invoke>',
            XmlArguments(layout, separator="\n"),
            between="\n",
            loose=True,
            empty='"/>',
        ),
        section=Section(
            (f"\n\n<{tag}{block}>\n",),
            (f"\n</{tag}{block}>",),
            bare=True,
            bare_ends_reasoning=False,
            opener=f"<{tag.rstrip()}",
            sealed=True,
        ),
        fenced=True,
        respelled=tuple(("｜DSML｜", other) for other in DSML_SPELLINGS),
    )


FORMATS = tuple(
    build(spec)
    for spec in (
        V3,
        V3_1,
        dsml("deepseek-v3.2", "DeepSeek V3.2: DSML function_calls", "function_calls"),
        dsml("deepseek-v4", "DeepSeek V4: DSML tool_calls", "tool_calls"),
        dsml("deepseek-v4.1", "DeepSeek V4.1: DSML, spaced tag names", "calls", DSML_V41),
    )
)
