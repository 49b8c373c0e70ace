"""The model families: one module a family (its markers and its turn, written as a `Spec`),
the registry over them (`names()`, `get(name)`, `register(format)`), and detection of a
model's family from its chat template (`from_template`, `for_model`, see `detect`).

`Format` (what `get` returns) and the compile cache's controls are defined in
`protocall.compile` and re-exported here, where users look for them."""

from __future__ import annotations

from ..compile.compiled import CacheInfo, cache_info, clear_cache, set_cache_size
from ..compile.format import Format
from .detect import for_model, from_template
from .registry import exportable, get, names, register

__all__ = [
    "CacheInfo",
    "Format",
    "cache_info",
    "clear_cache",
    "exportable",
    "for_model",
    "from_template",
    "get",
    "names",
    "register",
    "set_cache_size",
]
