"""The tag-delimited argument layouts of the model families (`Layout`, read by
`values.xmlargs`), and `schema_typing`: values typed by the tool's JSON schema."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..schema import Coerced, always_string, coerce_typed, coercer, parameter_schema
from ..values.xmlargs import Layout


@dataclass(frozen=True)
class SchemaTyping:
    """Values typed by a tool's `parameters` schema (None: not declared), or by the type a
    type attribute names where it names one (see `values.xmlargs.Typing`)."""

    parameters: Mapping[str, Any] | None
    declared: Mapping[str, Any] = field(init=False, compare=False)
    # What `__call__` gives per declared key: worked out once per tool set, as the tool's
    # argument parser is (a pure memo, shared by the sessions of the tool set; a key the
    # model invents is typed anew: the memo stays as small as the schema; a type
    # attribute is typed as `_by_attribute` keeps it).
    typed: dict[str, Typed] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        parameters = self.parameters
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        object.__setattr__(self, "declared", properties if isinstance(properties, Mapping) else {})
        object.__setattr__(self, "typed", {})

    def __call__(self, key: str, type_name: str | None) -> Typed:
        if type_name is not None:
            return _by_attribute(type_name)
        if key not in self.declared:
            return self._typing(key)
        typed = self.typed.get(key)
        if typed is None:
            typed = self.typed[key] = self._typing(key)
        return typed

    def _typing(self, key: str) -> Typed:
        schema = parameter_schema(self.parameters, key)
        root = self.parameters
        return always_string(schema, root=root), coercer(schema, root=root)


@functools.lru_cache(maxsize=64)
def _by_attribute(type_name: str) -> Typed:
    """How a value whose type attribute names `type_name` is typed, whatever the tool
    (kept for the last 64 type names met, not worked out again per value)."""
    return always_string({"type": type_name}), functools.partial(coerce_typed, type_name=type_name)


Typed = tuple[bool, Callable[[str], Coerced]]
"""Whether a value is kept as the raw text whatever it is, and the function typing it."""


def schema_typing(parameters: Mapping[str, Any] | None) -> SchemaTyping:
    """Values typed by the tool's `parameters` schema (see `SchemaTyping`)."""
    return SchemaTyping(parameters)


QWEN3_CODER = Layout(
    "<parameter=",
    ">",
    "</parameter>",
    "</function>",
    framing_newlines=True,
    unclosed_at_opener=True,
    unclosed_at_end=("</tool_call>", "<|im_end|>"),
)
"""Qwen3-Coder / Qwen3.5 / Nemotron 3: `<parameter=K>\\nV\\n</parameter>`, ends at
`</function>`, typed by the schema. A missing `</parameter>` is tolerated (as vLLM does)
before `<parameter=` of a declared, not yet given key at the start of a line, and before
`</function>` followed by `</tool_call>`, `<|im_end|>` or the end of input."""

SEED_OSS = Layout("<parameter=", ">", "</parameter>", "</function>")
"""ByteDance Seed-OSS: `<parameter=K>V</parameter>` verbatim (no framing newlines), ends at
`</function>`, typed by the schema."""

GLM = Layout(
    "<arg_key>",
    "</arg_key>",
    "</arg_value>",
    "</tool_call>",
    value_open="<arg_value>",
    committed_opener=True,
)
"""GLM-4.5/4.6 and Ling 3.0: `<arg_key>K</arg_key>` `<arg_value>V</arg_value>`, any
whitespace (or none) between tags, values verbatim, ends at `</tool_call>`, typed by the
schema. `</arg_value>` then `<arg_key>` always ends a value. No missing-tag tolerance."""


def glm_47(after_end: tuple[str, ...]) -> Layout:
    """GLM-4.7: `GLM`, and a missing last `</arg_value>` is tolerated (as a missing
    `</parameter>` is for Qwen3-Coder) at `</tool_call>` followed, after optional
    whitespace, by one of `after_end` (the next call, the end of turn) or the end of input."""
    return replace(GLM, unclosed_at_end=after_end)


MINIMAX = Layout("<parameter", ">", "</parameter>", "</invoke>", key_attribute="name")
"""MiniMax-M2: `<parameter name="K">V</parameter>`, values verbatim, ends at `</invoke>`,
typed by the schema. No missing-tag tolerance."""


def dsml(spelling: str = "｜DSML｜", *, unclosed_at_opener: bool = False) -> Layout:
    """DeepSeek DSML with tag prefix `spelling` (U+FF5C bars; V4.1 adds a trailing space):
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


DSML = dsml()
"""DeepSeek V3.2 and V4: `<｜DSML｜parameter name="K" string="…">V</｜DSML｜parameter>`."""

DSML_V41 = dsml("｜DSML｜ ", unclosed_at_opener=True)
"""DeepSeek V4.1: `<｜DSML｜ parameter …>V</｜DSML｜ parameter>`; like vLLM, a missing closing
tag is tolerated before the opener, on a new line, of a declared, not yet given parameter."""

KIMI_K3 = Layout(
    "<|open|>argument",
    "<|sep|>",
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    key_attribute="key",
    decode_entities=True,
    type_attribute="type",
)
"""Kimi K3: `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`, values raw,
typed by `type` (string, number, boolean, null, object, array), ends at
`<|close|>call<|sep|>`."""
