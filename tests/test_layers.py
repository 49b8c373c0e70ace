"""The layers of docs/layers.md, checked from the source: every import of a protocall module
(at module level, in a function, under `TYPE_CHECKING`: all of them) goes to its own layer
or one below, and no modules import each other in a cycle."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "protocall"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("combinators",)),
    ("values", ("values",)),
    ("shortcuts", ("shortcuts",)),
    ("data", ("schema", "tools", "ast", "events", "message", "special_tokens")),
    ("session", ("session", "openai", "repeats")),
    ("blocks", ("blocks",)),
    ("spec", ("spec",)),
    ("grammar", ("grammar",)),
    ("compile", ("compile",)),
    ("inference", ("inference",)),
    ("families", ("formats",)),
    ("top", ("", "integrations", "transcript", "testing", "pytest_plugin", "demo", "cli")),
)
"""Bottom-up: each layer's modules, named under `protocall` (`""` is the package itself and
`__main__`, at the top)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> int:
    """The index in `LAYERS` of the layer `module` belongs to."""
    top = module.split(".")[1] if "." in module else ""
    top = "" if top == "__main__" else top
    for index, (_, tops) in enumerate(LAYERS):
        if top in tops:
            return index
    raise AssertionError(f"{module} is in no layer of LAYERS (add it to docs/layers.md too)")


def imported(module: str) -> Iterator[tuple[str, int]]:
    """Every protocall module `module` imports, with the line: `from a import b` imports
    `a.b` where that is a module, else `a`."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [name if name in MODULES else base for name in names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "protocall":
                yield name, node.lineno


def graph() -> dict[str, list[str]]:
    """Each module and the protocall modules it imports (read when a test asks: collecting
    the suite reads no source)."""
    return {module: sorted({name for name, _ in imported(module)} - {module}) for module in MODULES}


def upward(module: str, names: Iterable[tuple[str, int]]) -> list[str]:
    """The imports among `names` (module, line) from a layer above `module`'s."""
    above = (
        f"line {line}: {name} ({LAYERS[layer(name)][0]})"
        for name, line in names
        if layer(name) > layer(module)
    )
    return sorted(set(above))


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for name in graph.get(module, ()):
            if name not in index:
                visit(name)
                low[module] = min(low[module], low[name])
            elif name in stack:
                low[module] = min(low[module], index[name])
        if low[module] == index[module]:
            component = []
            while True:
                name = stack.pop()
                component.append(name)
                if name == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return sorted(found)


def test_every_module_belongs_to_a_layer() -> None:
    for module in MODULES:
        layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_layer_and_those_below(module: str) -> None:
    names = list(imported(module))
    assert upward(module, names) == [], f"{module} ({LAYERS[layer(module)][0]}) imports from above"


def test_no_modules_import_each_other_in_a_cycle() -> None:
    assert cycles(graph()) == []


def test_the_checks_see_a_cycle_and_an_import_from_above() -> None:
    graph = {"a": ["b"], "b": ["c", "a"], "c": [], "d": ["d", "c"]}
    assert cycles(graph) == [["a", "b"]]
    names = [("protocall.formats.hermes", 3), ("protocall.combinators", 4)]
    assert upward("protocall.compile.factory", names) == [
        "line 3: protocall.formats.hermes (families)"
    ]
