"""The registry of model-family formats: `names()`, `get(name)` (a format or a model name),
`register(format)`; the family modules beside it, imported on first use."""

from __future__ import annotations

from dataclasses import replace

from ..combinators import UsageError
from ..compile.format import Format
from . import plugins
from .models import MODELS, model_key, unknown

_REGISTRY: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add `fmt` under its name and return the registered format: a format built from a spec
    equal to the registered one's is that one; another under a taken name is a usage error."""
    existing = _REGISTRY.get(fmt.name)
    if existing is not None and existing is not fmt:
        if fmt.spec is not None and existing.spec == fmt.spec:
            return existing
        raise UsageError(f"a format named {fmt.name!r} is already registered")
    _REGISTRY[fmt.name] = fmt
    return fmt


def names() -> list[str]:
    """Registered format names, sorted."""
    _load()
    return sorted(_REGISTRY)


_IMPORTED: dict[str, list[Format]] = {}


def import_formats(reference: str) -> list[Format]:
    """Import the formats `reference` names, `MODULE[:ATTR]` or `path/to/file.py[:ATTR]`
    (see `plugins`), register them, and return them (a reference is imported once)."""
    _load()
    if reference not in _IMPORTED:
        before = set(_REGISTRY)
        where, _, found = plugins.imported(reference)
        added = [fmt for name, fmt in _REGISTRY.items() if name not in before]
        named = [register(fmt) for fmt in plugins.formats_in(found, where, bool(added))]
        _IMPORTED[reference] = list({id(fmt): fmt for fmt in added + named}.values())
    return _IMPORTED[reference]


def get(name: str) -> Format:
    """The format registered as `name`, or the one model `name` writes (`models.MODELS`,
    in any case: `Qwen3.5` is `qwen3-coder` starting in reasoning when no generation prompt
    is given, as its template's prompt does); an unknown name suggests the nearest ones."""
    _load()
    fmt = _REGISTRY.get(name) or _REGISTRY.get(model_key(name))
    if fmt is not None:
        return fmt
    if model_key(name) not in MODELS:
        raise unknown(name, _REGISTRY)
    return _for_model_name(model_key(name))


_MODEL_FORMATS: dict[str, Format] = {}
"""The format of each model name asked for (one object per name, shared like the rest)."""


def _for_model_name(key: str) -> Format:
    if key not in _MODEL_FORMATS:
        fmt = _REGISTRY[MODELS[key][0]]
        start = MODELS[key][1]
        _MODEL_FORMATS[key] = (
            fmt if start == fmt.default_start else replace(fmt, default_start=start)
        )
    return _MODEL_FORMATS[key]


_BUILTINS = (
    "hermes",
    "qwen3-coder",
    "ling3",
    "kimi-k3",
    "kimi-k2",
    "deepseek",
    "glm",
    "minimax",
    "seed-oss",
    "mistral",
    "cohere",
    "apertus",
    "gpt-oss",
    "gemma4",
    "pythonic",
    "granite",
    "nemotron",
    "llama3",
    "olmo3",
    "internlm2",
    "jamba",
    "phi4-mini",
    "hunyuan-a13b",
    "ernie45",
    "granite-20b-fc",
    "step3",
    "minimax-m1",
    "minimax-m3",
    "functionary",
    "functionary-v31",
    "gigachat3",
    "functiongemma",
    "xlam",
    "apriel",
    "hy3",
    "hy-v4",
    "minicpm5",
    "longcat",
    "dots",
    "k2-horizon",
    "plamo3",
    "mimo",
    "poolside-v1",
    "gigachat35",
    "iquest-q1",
    "inkling",
    "muse",
    "generic",
    "solar-open",
    "zaya",
    "beam",
)
"""The built-in family modules (a dash reads as an underscore). Each exposes its `FORMAT`,
or a tuple `FORMATS` when one module defines several registry names."""


_loaded = False
_broken: UsageError | None = None
"""The error of an entry point that failed to load: raised again at every use, so a
long-running process never goes on without a format it was given."""


def _load() -> None:
    """On first use (keeps `import protocall` light), import the built-in family modules,
    then the formats of the installed `protocall.formats` entry points (`plugins`)."""
    global _loaded, _broken
    if _broken is not None:
        raise _broken
    if _loaded:
        return
    _loaded = True
    from importlib import import_module

    for name in _BUILTINS:
        module = import_module(f".{name.replace('-', '_')}", __package__)
        for fmt in getattr(module, "FORMATS", None) or (module.FORMAT,):
            register(fmt)
    try:
        for where, found in plugins.entry_points():
            for fmt in found:
                try:
                    register(fmt)
                except UsageError as error:
                    raise UsageError(f"{where}: {error}") from None
    except UsageError as error:
        _broken = error
        raise


def exportable() -> list[str]:
    """The registered formats whose spec the grammar exporter writes (no spec, a turn hook
    with no grammar piece or a field it does not handle leaves a format out)."""
    return [name for name in names() if _exportable(get(name))]


def _exportable(fmt: Format) -> bool:
    from ..grammar import walk  # the exporter is loaded on first use, as by `Format`

    try:
        walk.spec_of(fmt)
    except UsageError:
        return False
    return True


__all__ = ["exportable", "get", "import_formats", "names", "register"]
