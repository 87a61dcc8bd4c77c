"""The code's layers, checked: the import-linter contracts in .importlinter (games pure, then
common helpers, tables' and scoring's services, the drive's services, views and consumers as
leaves; config imported by no app; no app importing a game's own package), and no import cycle between two modules of the project."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "common", "scoring", "tables", "drive", "config", "bench")


def test_the_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def _cycle(graph: grimp.ImportGraph) -> list[str] | None:
    """One import cycle between the project's modules (package __init__ re-exports aside), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> list[str] | None:
        state[module] = 1
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported == module.rsplit(".", 1)[0] or not imported.startswith(PACKAGES):
                continue  # a module's own package (its __init__), or outside the project
            if state.get(imported) == 1:
                return path[path.index(imported):] + [imported] if imported in path else [module, imported]
            if imported not in state:
                found = visit(imported, [*path, imported])
                if found:
                    return found
        state[module] = 2
        return None

    for module in sorted(graph.modules):
        if module.startswith(PACKAGES) and module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_no_two_modules_import_each_other_even_through_others():
    graph = grimp.build_graph(*PACKAGES, cache_dir=None, exclude_type_checking_imports=True)
    for package in ("drive.services",):  # a package whose __init__ only gathers its modules' names
        for child in graph.find_children(package):
            if graph.direct_import_exists(importer=package, imported=child):
                graph.remove_import(importer=package, imported=child)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])
