"""The value parsers' work is linear in the text with the shortcuts on and off: the plain
steps read each character once per parser level and resume where they stopped, never
re-reading from the start on each delta. Work is counted (Python-level and builtin calls),
not timed."""

from __future__ import annotations

import contextlib
import cProfile
import gc
import pstats
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from protocall.blocks.schema_typing import element_typing, schema_typing
from protocall.combinators import NEED_MORE, Parser
from protocall.formats.deepseek import DSML
from protocall.formats.glm import LAYOUT as GLM
from protocall.formats.minimax_m3 import ELEMENTS, PREFIX
from protocall.formats.qwen3_coder import LAYOUT as QWEN3_CODER
from protocall.shortcuts import clear_all, disabled
from protocall.values import json_value, python_call, xml_arguments
from protocall.values.elements import element_arguments
from protocall.values.json import NestedObjects

SMALL, LARGE = 10_000, 40_000
RATIO = 4.6
"""At most this many times the work for 4× the text (linear, with room for the constant)."""
DELTA = 4

SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}, "n": {"type": "array"}}}


def _repeat(unit: str, size: int) -> str:
    return unit * (size // len(unit))


def _members(member: str, size: int) -> str:
    """Object members `member` with key `k0`, `k1`, ... (a `{}` in it is the number) up to
    about `size` characters."""
    return ", ".join(member.format(i) for i in range(size // len(member)))


INPUTS: dict[str, tuple[Callable[[], Parser[Any]], Callable[[int], str]]] = {
    "json, a long string": (json_value, lambda n: '{"a": "' + "x" * n + '"}'),
    "json, escapes": (json_value, lambda n: '["' + _repeat("\\n\\u00e9\\ud83d\\ude00é", n) + '"]'),
    "json, many items": (json_value, lambda n: "[" + _repeat("12.5e3, true, null, ", n) + "0]"),
    "json, many keys": (
        json_value,
        lambda n: "{" + _members('"k{}": {{}}', n) + "}",
    ),
    "json, a long number": (json_value, lambda n: "[1." + "7" * n + "]"),
    "nested objects": (
        lambda: NestedObjects(max_depth=8, max_size=10**6),
        lambda n: "{" + _members('"k{}": [{{"b": "cc"}}]', n) + "}",
    ),
    "python call, a long string": (python_call, lambda n: "f(a='" + _repeat("ab\\n\\'", n) + "')"),
    "python call, many items": (
        python_call,
        lambda n: "f(a=[" + _repeat("1, 'x', None, ", n) + "])",
    ),
    "qwen3-coder, markup in code": (
        lambda: xml_arguments(QWEN3_CODER, schema_typing(SCHEMA)),
        lambda n: "<parameter=code>\n" + _repeat("a</b>\n<c>", n) + "\n</parameter>\n</function>",
    ),
    "glm, a long value": (
        lambda: xml_arguments(GLM, schema_typing(SCHEMA)),
        lambda n: "<arg_key>code</arg_key><arg_value>" + "y" * n + "</arg_value></tool_call>",
    ),
    "elements, a long value": (
        lambda: element_arguments(ELEMENTS, element_typing(SCHEMA)),
        lambda n: f"{PREFIX}<code>" + _repeat("]<]minimax[>x ", n) + f"{PREFIX}</code>{PREFIX}</",
    ),
    "elements, many items": (
        lambda: element_arguments(ELEMENTS, element_typing(SCHEMA)),
        lambda n: (
            (f"{PREFIX}<n>" + _repeat(f"{PREFIX}<item>{PREFIX}<k>1{PREFIX}</k>{PREFIX}</item>", n))
            + f"{PREFIX}</n>{PREFIX}</"
        ),
    ),
    "elements, long whitespace and name": (
        lambda: element_arguments(ELEMENTS, element_typing(SCHEMA)),
        lambda n: (
            f"{PREFIX}<x>" + " " * n + f"{PREFIX}<" + "k" * n + f">1{PREFIX}</{'k' * n}>"
            f"{PREFIX}</x>{PREFIX}</"
        ),
    ),
    "dsml, a long attribute": (
        lambda: xml_arguments(DSML, schema_typing(SCHEMA)),
        lambda n: (
            f'{DSML.opener} name="code" x="{"q" * n}" string="true">v{DSML.value_close}{DSML.end}'
        ),
    ),
}


def work(make: Callable[[], Parser[Any]], text: str) -> int:
    """The calls a run of a new parser makes over `text` fed in `DELTA`-character deltas,
    the shortcuts' caches emptied first (what earlier tests left in them, and when a full
    one empties, is not counted) and the cycle collector paused (a collection inside the
    count would close the suspended generators of earlier tests' garbage, and their
    cleanup would be counted as this run's work). Pausing is enough: a collection before
    the count would change nothing counted, and costs 0.4 s after the rest of the suite."""
    clear_all()
    gc.disable()
    try:
        run = make().run()
        profile = cProfile.Profile()
        profile.enable()
        for start in range(0, len(text), DELTA):
            if run.status is not NEED_MORE:
                break
            run.feed(text[start : start + DELTA])
        if run.status is NEED_MORE:
            run.finish()
        profile.disable()
    finally:
        gc.enable()
    assert run.error is None, run.error
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


@contextlib.contextmanager
def shortcuts(on: bool) -> Iterator[None]:
    if on:
        yield
    else:
        with disabled():
            yield


@pytest.mark.parametrize("on", [True, False], ids=["shortcuts on", "shortcuts off"])
@pytest.mark.parametrize("name", INPUTS)
def test_value_parsers_cost_linear_work(name: str, on: bool) -> None:
    make, generate = INPUTS[name]
    with shortcuts(on):
        small, large = work(make, generate(SMALL)), work(make, generate(LARGE))
    ratio = large / small
    assert ratio <= RATIO, f"{name}: {ratio:.2f}× the calls for 4× the text"
