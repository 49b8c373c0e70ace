"""Formats written outside the package: the `protocall.formats` entry points, and a module
or a `.py` file named on the command line (`--format-module MODULE[:ATTR]`).

What a reference names can be a `Format`, a `Spec` (built here), a list or tuple of them, or
a module: its `FORMATS`, else its `FORMAT`, else its `SPEC`. A module that registers its
formats itself when imported (`formats.register(...)`) needs none of these names. A
reference that cannot be imported or names nothing usable is a `UsageError` saying which and
why; nothing is skipped silently.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from importlib import import_module, metadata
from pathlib import Path
from types import ModuleType

from ..combinators import UsageError
from ..compile.factory import build
from ..compile.format import Format
from ..spec import Spec

GROUP = "protocall.formats"
"""The entry-point group a package declares its formats in (`pyproject.toml`:
`[project.entry-points."protocall.formats"]`, `acme = "acme_formats:FORMAT"`)."""


def entry_points() -> Iterator[tuple[str, list[Format]]]:
    """Each installed entry point of `GROUP`, described (`name = value` from its
    distribution), with the formats it names, loaded in the order of their names."""
    for point in sorted(metadata.entry_points(group=GROUP), key=lambda point: point.name):
        where = f"the entry point {point.name} = {point.value!r} of group {GROUP!r}"
        if point.dist is not None:
            where += f" (package {point.dist.name})"
        try:
            loaded = point.load()
        except Exception as error:  # a broken plugin: said, never skipped
            raise UsageError(f"{where} failed to load: {type(error).__name__}: {error}") from None
        yield where, formats_in(loaded, where)


def imported(reference: str) -> tuple[str, ModuleType, object]:
    """`reference`, `MODULE[:ATTR]` or `path/to/file.py[:ATTR]`, imported: a description,
    the module, and the object the attribute names (the module itself without one)."""
    target, _, attribute = reference.partition(":")
    if target.endswith(".py") or "/" in target or "\\" in target:
        module = _from_file(Path(target))
    else:
        try:
            module = import_module(target)
        except UsageError:
            raise
        except Exception as error:
            raise UsageError(
                f"cannot import format module {target!r}: {type(error).__name__}: {error}"
            ) from None
    if not attribute:
        return f"module {target!r}", module, module
    found: object = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise UsageError(f"format module {target!r} has no attribute {attribute!r}")
        found = getattr(found, part)
    return f"{target}:{attribute}", module, found


def formats_in(found: object, where: str, registered_on_import: bool = False) -> list[Format]:
    """The formats `found` names (see the module docstring). A module with none of the
    names is an error, unless it registered formats itself (`registered_on_import`)."""
    if isinstance(found, ModuleType):
        for name in ("FORMATS", "FORMAT", "SPEC"):
            if hasattr(found, name):
                return formats_in(getattr(found, name), f"{where}, its {name}")
        if registered_on_import:
            return []
        raise UsageError(
            f"{where} defines no FORMATS, FORMAT or SPEC and registers no format "
            "(name the object: MODULE:ATTR)"
        )
    if isinstance(found, Format):
        return [found]
    if isinstance(found, Spec):
        return [build(found)]
    if isinstance(found, (list, tuple)):
        return [fmt for item in found for fmt in formats_in(item, where)]
    raise UsageError(
        f"{where} is a {type(found).__name__}, not a Format, a Spec, a list of them or a module"
    )


def _from_file(path: Path) -> ModuleType:
    """The module of the Python file at `path`, imported once (under a name made from its
    resolved path, so a second reference to the same file is the same module)."""
    if not path.is_file():
        raise UsageError(f"no format file {str(path)!r}")
    resolved = path.resolve()
    name = f"protocall_format_file_{abs(hash(str(resolved))):x}_{resolved.stem}"
    if name in sys.modules:
        return sys.modules[name]
    loader_spec = importlib.util.spec_from_file_location(name, resolved)
    if loader_spec is None or loader_spec.loader is None:
        raise UsageError(f"cannot import {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except UsageError:
        del sys.modules[name]
        raise
    except Exception as error:
        del sys.modules[name]
        raise UsageError(
            f"format file {str(path)!r} failed to import: {type(error).__name__}: {error}"
        ) from None
    return module
