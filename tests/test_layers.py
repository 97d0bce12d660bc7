"""The package is layered one way: no module imports a module of a higher layer, and no modules import in a circle.

Every module of `kingdoms/` gets a layer from LAYERS (the table docs/ARCHITECTURE.md shows); a module the table
does not place fails the test, so a new module's layer is decided when it is added. Imports are read from the
source with ast: module-level, inside functions and under `if TYPE_CHECKING:` alike, relative ones resolved.
`from package import name` counts as an import of `package.name` when that is a module, else of `package`.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kingdoms"

#: Layers from the bottom; a module may import its own layer or a lower one. An entry names a module or a
#: package (all of it); the longest entry that matches wins. "kingdoms" is the package's own __init__ only.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rule data", ("kingdoms", "kingdoms.ruledata", "kingdoms.hexgrid", "kingdoms.frozen")),
    ("world model", ("kingdoms.gamemap", "kingdoms.state", "kingdoms.scenario", "kingdoms.mapgen")),
    ("orders", ("kingdoms.orders",)),  # the engine's input vocabulary: models, parse and format (pure)
    ("engine", ("kingdoms.engine",)),
    ("set-up", ("kingdoms.setup",)),  # month one of a scenario, through the engine's founding code
    ("storage", ("kingdoms.storage",)),
    ("views", ("kingdoms.views",)),
    ("rulers", ("kingdoms.ai",)),  # decide from an Observation
    ("game service", ("kingdoms.game", "kingdoms.fork", "kingdoms.records", "kingdoms.history", "kingdoms.session",
                      "kingdoms.accounting")),
    ("interfaces", ("kingdoms.__main__", "kingdoms.cli", "kingdoms.server", "kingdoms.mcp_strict",
                    "kingdoms.mcp_content", "kingdoms.http_auth", "kingdoms.play", "kingdoms.chronicle",
                    "kingdoms.bench", "kingdoms.viewer", "kingdoms.modelseat", "kingdoms.tournament",
                    "kingdoms.gctune")),
)


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """Dotted module name of a file under the package (a package's __init__ is the package)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package -> its file."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imports_of(name: str, source: str, known: Iterable[str], *, is_package: bool = False) -> dict[str, int]:
    """What `source` (module `name`; a package's __init__ when `is_package`) imports anywhere in its text, as
    package modules -> the first line that does."""
    known = set(known)
    out: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        if target.split(".")[0] == "kingdoms" and target != name:
            out.setdefault(target, line)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                full = f"{module}.{alias.name}"
                add(full if full in known else module, node.lineno)
    return out


def layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> int | None:
    """Index of the layer holding `module` (longest matching entry), None when the table does not place it."""
    best: tuple[int, int] | None = None
    for i, (_, entries) in enumerate(layers):
        for entry in entries:
            root_only = entry == "kingdoms"
            if module == entry or (not root_only and module.startswith(entry + ".")):
                if best is None or len(entry) > best[0]:
                    best = (len(entry), i)
    return None if best is None else best[1]


def import_graph(root: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Module -> the package modules it imports (with the line), for the whole package."""
    mods = package_modules(root)
    graph: dict[str, dict[str, int]] = {}
    for name, path in mods.items():
        found = imports_of(name, path.read_text(encoding="utf-8"), mods, is_package=path.name == "__init__.py")
        graph[name] = {t: line for t, line in found.items() if t in mods}
    return graph


@functools.cache
def package_graph() -> dict[str, dict[str, int]]:
    """`import_graph` of kingdoms/, read once for the tests of this module."""
    return import_graph()


def upward_imports(graph: Mapping[str, Mapping[str, int]],
                   layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> list[str]:
    """One line per import of a higher layer, or of or by a module the table does not place."""
    bad: list[str] = []
    for mod in sorted(graph):
        lm = layer_of(mod, layers)
        if lm is None:
            bad.append(f"{mod} has no layer: add it to LAYERS (tests/test_layers.py) and docs/ARCHITECTURE.md")
            continue
        for target, line in sorted(graph[mod].items()):
            lt = layer_of(target, layers)
            if lt is not None and lt > lm:
                bad.append(f"{mod} (line {line}) imports {target}: {layers[lm][0]} must not import {layers[lt][0]}")
    return bad


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """Groups of modules that import each other round a circle (strongly connected, more than one), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):  # iterative Tarjan: no recursion limit on a long chain
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    group.append(top)
                    if top == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def test_no_module_imports_a_higher_layer() -> None:
    """Each import in kingdoms/ goes to the importer's layer or below (world model never imports the engine, ...)."""
    bad = upward_imports(package_graph())
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_no_import_cycles() -> None:
    """No two modules of kingdoms/ import each other, directly or round a longer circle."""
    found = cycles(package_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_engine_area_modules_are_engine_modules() -> None:
    """The area modules the registry imports by name (importlib, not an import statement) are engine modules
    of the package, and none of them is imported by the registry itself (it only holds the tables)."""
    from kingdoms.engine.registry import AREA_MODULES

    mods = package_modules()
    engine = layer_of("kingdoms.engine")
    assert all(m in mods and layer_of(m) == engine for m in AREA_MODULES), AREA_MODULES
    assert not set(package_graph()["kingdoms.engine.registry"]) & set(AREA_MODULES)


def test_the_checks_catch_an_upward_import_and_a_cycle(tmp_path: Path) -> None:
    """The checker itself: a world-model module importing the engine inside a function and under TYPE_CHECKING,
    a relative import, and a three-module circle are all reported; a clean package passes."""
    pkg = tmp_path / "kingdoms"
    (pkg / "engine").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "engine" / "__init__.py").write_text("")
    (pkg / "engine" / "month.py").write_text("from kingdoms import state\n")
    (pkg / "state.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .engine import month\n")
    (pkg / "gamemap.py").write_text("def f():\n    import kingdoms.engine.month\n")
    (pkg / "ruledata.py").write_text("")
    graph = import_graph(pkg)
    assert graph["kingdoms.state"] == {"kingdoms.engine.month": 3}
    assert graph["kingdoms.gamemap"] == {"kingdoms.engine.month": 2}
    bad = upward_imports(graph)
    assert len(bad) == 2 and all("world model must not import engine" in b for b in bad), bad
    assert cycles(graph) == [["kingdoms.engine.month", "kingdoms.state"]]
    assert cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]
    assert upward_imports({"kingdoms.nowhere": {}}) == [
        "kingdoms.nowhere has no layer: add it to LAYERS (tests/test_layers.py) and docs/ARCHITECTURE.md"]
    (pkg / "state.py").write_text("from kingdoms import ruledata\n")
    (pkg / "gamemap.py").write_text("")
    clean = import_graph(pkg)
    assert not upward_imports(clean) and not cycles(clean)
