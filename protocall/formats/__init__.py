"""The registry of model-family formats: `names()`, `get(name)`, `register(format)`."""

from __future__ import annotations

from ..combinators import UsageError
from .base import Format

_REGISTRY: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add `fmt` under its name (replacing nothing: a duplicate name is a usage error)."""
    if fmt.name in _REGISTRY and _REGISTRY[fmt.name] is not fmt:
        raise UsageError(f"a format named {fmt.name!r} is already registered")
    _REGISTRY[fmt.name] = fmt
    return fmt


def names() -> list[str]:
    """Registered format names, sorted."""
    _load_builtins()
    return sorted(_REGISTRY)


def get(name: str) -> Format:
    """The format registered as `name`; an unknown name lists the known ones."""
    _load_builtins()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UsageError(
            f"unknown format {name!r}; registered formats: {', '.join(names())}"
        ) from None


_BUILTINS = ("hermes",)


def _load_builtins() -> None:
    """Import the built-in family modules on first use (keeps `import protocall` light)."""
    if _BUILTINS[0] in _REGISTRY:
        return
    from importlib import import_module

    for module in _BUILTINS:
        register(import_module(f".{module.replace('-', '_')}", __name__).FORMAT)


__all__ = ["Format", "get", "names", "register"]
