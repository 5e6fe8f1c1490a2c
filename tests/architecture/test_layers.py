"""The engine's layers: every import in research/ points down (or within its own package), and no
two modules import each other, however indirectly. Lazy imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "research"

# Lowest first. A package may import its own modules and anything in a lower layer.
LAYERS: list[set[str]] = [
    {"research", "research.settings", "research.schemas", "research.secrets", "research.prompts", "research.text"},
    {"research.logging_setup"},
    {"research.topic"},
    {"research.events", "research.relevance", "research.drafts"},
    {"research.brains", "research.sources"},
    {"research.graph"},
    {"research.runs"},
    {"research.export"},
    {"research.cli", "research.api"},
    {"research.__main__"},
]
MAX_ROOT_MODULES = 10
MAX_MODULE_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> str:
    """The layered unit a module belongs to: its top-level package under research, or itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _layer(unit: str) -> int:
    for index, units in enumerate(LAYERS):
        if unit in units:
            return index
    raise AssertionError(f"{unit} is in no layer: add it to LAYERS in {__file__}")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("research"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "research":
                found.update(f"research.{alias.name}" for alias in node.names)
            elif node.module.startswith("research."):
                found.add(node.module)
    return found


MODULES = {_module_name(p): p for p in ENGINE.rglob("*.py")}


def _resolve(name: str) -> str:
    """An imported name to the module that defines it (`from research.x import y` may name a module y)."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def test_every_import_points_down_or_sideways_within_its_package() -> None:
    upward = []
    for module, path in MODULES.items():
        mine = _layer(_unit(module))
        for target in _imports(path):
            unit = _unit(_resolve(target))
            # Root modules of the foundation may use each other (the cycle test still applies).
            if unit != _unit(module) and _layer(unit) >= mine and not (mine == _layer(unit) == 0):
                upward.append(f"{module} imports {target} (layer {_layer(unit)} >= {mine})")
    assert not upward, "\n".join(upward)


def test_no_import_cycles() -> None:
    graph = {m: {_resolve(t) for t in _imports(p)} - {m} for m, p in MODULES.items()}
    # Importing a submodule runs its package's __init__ first, but the package importing its own
    # children is not a cycle of ours; only module-to-module edges count.
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in MODULES:
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if state.get(nxt) is None and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for module in sorted(graph):
        if state.get(module) is None and (cycle := visit(module)):
            pytest.fail("import cycle: " + " -> ".join(cycle))


def test_root_stays_small_and_modules_stay_readable() -> None:
    root = sorted(p.name for p in ENGINE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root
    long = {
        str(p.relative_to(ROOT)): n
        for p in ENGINE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_the_engine_never_imports_streamlit() -> None:
    offenders = [
        m
        for m, p in MODULES.items()
        if any(
            n == "streamlit" or n.startswith("streamlit.")
            for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
            for n in (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
        )
    ]
    assert not offenders, offenders


def test_the_offline_and_the_llm_brain_stand_apart() -> None:
    """brains/offline/ runs with no model and brains/llm/ needs one: neither imports the other; the
    shared contracts (base, factory, fallback) stay in brains/ itself."""
    crossing = [
        f"{module} imports {target}"
        for module, path in MODULES.items()
        for mine, other in (
            ("research.brains.offline", "research.brains.llm"),
            ("research.brains.llm", "research.brains.offline"),
        )
        if module.startswith(mine + ".") or module == mine
        for target in _imports(path)
        if _resolve(target) == other or _resolve(target).startswith(other + ".")
    ]
    assert not crossing, "\n".join(crossing)
    shared = sorted(p.name for p in (ENGINE / "brains").glob("*.py"))
    assert shared == ["__init__.py", "base.py", "factory.py", "fallback.py"], shared


def test_module_names_say_which_module_they_are() -> None:
    """No two engine modules share a file name: a name such as store.py or worker_log.py in two
    packages reads the same in a traceback, an import and a review."""
    seen: dict[str, list[str]] = {}
    for path in ENGINE.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}
