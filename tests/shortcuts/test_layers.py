"""The core never reaches for its shortcuts: no module under protocall/combinators or
protocall/values imports protocall.shortcuts (they are installed onto the core from
outside, so the core reads, and runs, without them)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import protocall

PACKAGE = Path(protocall.__file__).parent


def imported(path: Path) -> set[str]:
    """The absolute names of the modules `path` imports (relative imports resolved)."""
    package = ".".join(("protocall", *path.relative_to(PACKAGE).parent.parts))
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join(base) if node.level else ""
            if node.module:
                module = f"{module}.{node.module}" if module else node.module
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("layer", ["combinators", "values"])
def test_the_core_imports_no_shortcut(layer: str) -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            name for name in imported(path) if name.startswith("protocall.shortcuts")
        )
        for path in sorted((PACKAGE / layer).rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_import_reader_sees_relative_imports() -> None:
    names = imported(PACKAGE / "shortcuts" / "choice.py")
    assert "protocall.combinators.choice" in names
    assert "protocall.shortcuts.glance" in names
