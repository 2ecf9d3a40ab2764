"""The shape the README promises: imports run one way (the CLI on top, nothing imports
it), no two modules import each other, and `judge run` never loads the batch machinery.

Here: the tests that start no process; tests/integration/test_shape.py has those that
grade in a worker."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import ROOT

PACKAGE = ROOT / "judge"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The judge modules a file imports, at the top or inside a function."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("judge")}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            if module.startswith("judge"):
                out.add(module)
                out |= {f"{module}.{a.name}" for a in node.names}
    return out


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {
        name: {m for m in imports_of(path) if m in modules and m != name}
        for name, path in modules.items()
    }


def test_nothing_imports_the_cli():
    importers = [m for m, deps in graph().items() if "judge.cli" in deps and m != "judge.__main__"]
    assert importers == []


KNOWN_PAIRS: set = set()


def test_no_two_modules_import_each_other():
    g = graph()
    pairs = {
        tuple(sorted((a, b)))
        for a, deps in g.items()
        for b in deps
        if a in g.get(b, ()) and not (a.startswith(b + ".") or b.startswith(a + "."))
    }
    assert sorted(pairs - KNOWN_PAIRS) == []
