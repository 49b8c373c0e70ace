"""The quick suite's samples for sweeps: the sampled values run in `pytest`, every other
one is marked `slow` (CI's `pytest -m 'slow or not slow'` runs them all)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from protocall import formats

SAMPLED = ("hermes", "qwen3-coder", "kimi-k2", "deepseek-v3.2", "glm-4.7", "gemma-4", "llama-3")
"""One format of each kind of turn, call and argument layout: channels and pre-opened
reasoning, JSON and XML-style arguments, a call section, Python-literal calls, a bare JSON
call."""


def sample(values: Iterable[Any], quick: Iterable[Any]) -> list[Any]:
    """`values` as parameters, those not in `quick` marked `slow`."""
    kept = set(quick)
    return [v if v in kept else pytest.param(v, marks=pytest.mark.slow) for v in values]


def every_format(names: Iterable[str] | None = None, quick: Iterable[str] = SAMPLED) -> list[Any]:
    """`names` (default: every registered format) as parameters, those outside `quick`
    marked `slow`."""
    return sample(formats.names() if names is None else names, quick)
