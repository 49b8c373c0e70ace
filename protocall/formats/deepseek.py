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
  `string="false"` one JSON; a duplicate parameter is an error; a self-closing
  `<｜DSML｜invoke name="N"/>` is a call without parameters. Text after the block is
  content (lenient: the reference parser rejects it). A DSML block quoted in Markdown code
  (a ``` fence or inline backticks) in the content or the reasoning is text, never a call.
- `<｜end▁of▁sentence｜>` ends the turn; it is never content.
"""  # noqa: E501

from __future__ import annotations

from ..combinators.xmlargs import DSML, DSML_V41, Layout
from .templates import Template, template_format

EOS = "<｜end▁of▁sentence｜>"
SEPARATORS = ("▁", "_", " ", "\\_")  # the section markers' word separator, as decoders vary it
CALLS_BEGIN = (*(f"<｜tool{s}calls{s}begin｜>" for s in SEPARATORS), "<｜tool▁calls｜>")
CALLS_END = tuple(f"<｜tool{s}calls{s}end｜>" for s in SEPARATORS)
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
DSML_SPELLINGS = ("｜｜DSML｜｜", "|DSML|", " | DSML | ", "‖DSML‖")  # as proxies corrupt it
CHAT_PROMPTS = {None: "<｜Assistant｜></think>", "reasoning": "<｜Assistant｜><think>"}
R1_PROMPTS = {None: "<｜Assistant｜>", "reasoning": "<｜Assistant｜><think>\n"}


def json_calls(call: str, between: str = "") -> tuple[Template]:
    return (Template(call, (CALLS_BEGIN[0], CALLS_END[0]), between, CALLS_BEGIN, CALLS_END,
                     bare=True),)  # fmt: skip


def dsml_calls(block: str, layout: Layout = DSML) -> tuple[Template, ...]:
    """DSML calls in block `block`, parameters and tag spelling from `layout`, and the same
    with the `｜DSML｜` token corrupted as proxies do."""
    tag = layout.opener[1 : -len("parameter")]  # `｜DSML｜`; V4.1 `｜DSML｜ `
    call, token = f'<{tag}invoke name="{{name}}">\n{{arguments}}\n</{tag}invoke>', tag.rstrip()
    template = Template(call, (f"\n\n<{tag}{block}>\n", f"\n</{tag}{block}>"), "\n",
                        openers=(f"\n\n<{token}", f"<{token}"), layout=layout,
                        empty='"/>')  # fmt: skip
    return (template, *(template.respelled("｜DSML｜", other) for other in DSML_SPELLINGS))


FORMATS = tuple(
    template_format(name, summary, templates, stops=(EOS,),
                    prompts=R1_PROMPTS if name == "deepseek-v3" else CHAT_PROMPTS,
                    fenced=templates[0].layout is not None)
    for name, summary, templates in (
        ("deepseek-v3", "DeepSeek R1 / V3: function<｜tool▁sep｜>NAME, JSON in a fence",
         json_calls(f"{CALL_BEGIN}function{SEP}{{name}}\n```json\n{{arguments}}\n```{CALL_END}",
                    "\n")),
        ("deepseek-v3.1", "DeepSeek V3.1: NAME<｜tool▁sep｜>{JSON} in <｜tool▁call▁begin｜>",
         json_calls(f"{CALL_BEGIN}{{name}}{SEP}{{arguments}}{CALL_END}")),
        ("deepseek-v3.2", "DeepSeek V3.2: DSML function_calls", dsml_calls("function_calls")),
        ("deepseek-v4", "DeepSeek V4: DSML tool_calls", dsml_calls("tool_calls")),
        ("deepseek-v4.1", "DeepSeek V4.1: DSML, spaced tag names", dsml_calls("calls", DSML_V41)),
    ))  # fmt: skip
