"""The model families: one module a family (its markers and its turn, written as a `Spec`),
the registry over them (`names()`, `get(name)`, `register(format)`), and detection of a
model's family from its chat template (`from_template`, `for_model`, see `detect`).

`Format` (what `get` returns) and the compile cache's controls are defined in
`protocall.compile` and re-exported here, where users look for them."""

from __future__ import annotations

from os import PathLike

from ..compile.compiled import CacheInfo, cache_info, clear_cache, set_cache_size
from ..compile.format import Format
from .registry import exportable, get, import_formats, names, register


def from_template(template: str, *, bos_token: str = "", eos_token: str = "") -> Format:
    """The format a chat template implies: a built-in family that reads the template's own
    renders back, or a spec inferred from them (see `detect`; needs `protocall[templates]`)."""
    from .detect import from_template as detected  # detection is loaded on first use

    return detected(template, bos_token=bos_token, eos_token=eos_token)


def for_model(path: str | PathLike[str]) -> Format:
    """The format of the model whose chat template is at `path`: a model folder, its
    `tokenizer_config.json` or a `.jinja` file (see `detect.load`)."""
    from .detect import for_model as detected

    return detected(path)


__all__ = [
    "CacheInfo",
    "Format",
    "cache_info",
    "clear_cache",
    "exportable",
    "for_model",
    "from_template",
    "get",
    "import_formats",
    "names",
    "register",
    "set_cache_size",
]
