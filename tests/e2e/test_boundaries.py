"""Arrows point down only: adapters build on the core's public modules, the backends never import
each other, and the core reaches a backend only where a loop is composed.

Read from the source with `ast`, so a stray import fails here before it ships.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "core" / "src" / "zepkit"
ADAPTER_SOURCES = sorted(ROOT.glob("adapters/*/src/zepkit/*"))
SERVER = ROOT / "server" / "src" / "zepkit" / "server"
MCP = ROOT / "mcp" / "src" / "zepkit" / "mcp"
BACKENDS = ("zepkit.local", "zepkit.zep", "zep_cloud")
# What the backends and the contract suites may use of the core, beside its public modules: the
# data types, errors and limits a backend speaks in, never the loop's machinery.
BACKEND_SIDE = {
    "zepkit.core._backend",
    "zepkit.core._errors",
    "zepkit.core._limits",
    "zepkit.core._models",
    "zepkit.core._rendering",
    "zepkit.core._sqlite",
}


def _imports(path: Path, tree: ast.Module | None = None) -> Iterator[tuple[str, ast.AST]]:
    """(module, node) for every import in `path` (parsed as `tree` when given)."""
    tree = tree or ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: zepkit imports absolutely"
            assert node.module is not None
            yield node.module, node
            for alias in node.names:  # `from zepkit.core import _loop` names a module too
                yield f"{node.module}.{alias.name}", node


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _sources(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_there_is_something_to_check() -> None:
    assert len(ADAPTER_SOURCES) >= 8
    assert _sources(SRC / "core") and _sources(SRC / "local") and _sources(SRC / "zep")


@pytest.mark.parametrize("package", ADAPTER_SOURCES, ids=lambda p: p.name)
def test_adapters_use_only_the_public_core_and_themselves(package: Path) -> None:
    own = f"zepkit.{package.name}"
    allowed = {"zepkit.core", "zepkit.core.spi"}
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {module}"
        for path in _sources(package)
        for module, node in _imports(path)
        if _within(module, "zepkit")
        and not _within(module, own)
        and module not in allowed
        and not any(module == f"{name}.{attr}" for name in allowed for attr in _public(name))
    ]
    assert bad == []


@pytest.mark.parametrize("package", ADAPTER_SOURCES, ids=lambda p: p.name)
def test_adapters_never_import_the_zep_sdk(package: Path) -> None:
    """A Zep client given as memory is the core's to recognise (`as_memory`), so an adapter works
    the same on every backend and never ties itself to the SDK (a type-only import counts too)."""
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {module}"
        for path in _sources(package)
        for module, node in _imports(path)
        if _within(module, "zep_cloud")
    ]
    assert bad == []


def _public(package: str) -> set[str]:
    """The names a public core module exports (a `from zepkit.core import X` is fine)."""
    path = SRC / "core" / ("spi.py" if package.endswith(".spi") else "__init__.py")
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            return set(ast.literal_eval(node.value))
    raise AssertionError(f"{path} has no __all__")


def test_the_server_uses_the_public_core_and_only_its_default_backend() -> None:
    """`zepkit.server` is an app of the core like any other: its public modules, the local
    engine only where the default backend is built (`projects.local_backend`), and the Zep
    backend's id map only where `--backend zep` builds a project's loop."""
    allowed = {"zepkit.core", "zepkit.core.spi"}
    bad = []
    for path in _sources(SERVER):
        tree = ast.parse(path.read_text(), filename=str(path))
        scopes = _factory_scopes(tree)
        for module, node in _imports(path, tree):
            if not _within(module, "zepkit") or _within(module, "zepkit.server"):
                continue
            public = (
                module in allowed
                or module == "zepkit.core.__version__"
                or any(module == f"{name}.{attr}" for name in allowed for attr in _public(name))
            )
            default_backend = (
                _within(module, "zepkit.local")
                and path.name == "projects.py"
                and scopes.get(node) == "local_backend"
            )
            zep_backend = (
                module in {"zepkit.zep", "zepkit.zep.SqliteIdMap"}
                and path.name == "backends.py"
                and scopes.get(node) == "zep_project_memory"
            )
            if not (public or default_backend or zep_backend):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {module}")
    assert _sources(SERVER) and bad == []


def test_the_mcp_server_uses_the_public_core_and_backends_only_where_it_opens_one() -> None:
    """`zepkit.mcp` is an app of the core too: its public modules, and a backend's public names
    only where the command line opens the memory it was asked for (`_cli.open_memory`)."""
    allowed = {"zepkit.core", "zepkit.core.spi"}
    backends = {"zepkit.local": {"LocalBackend"}, "zepkit.zep": {"SqliteIdMap"}}
    bad = []
    for path in _sources(MCP):
        tree = ast.parse(path.read_text(), filename=str(path))
        scopes = _factory_scopes(tree)
        for module, node in _imports(path, tree):
            if not _within(module, "zepkit") or _within(module, "zepkit.mcp"):
                continue
            public = (
                module in allowed
                or module == "zepkit.core.__version__"
                or any(module == f"{name}.{attr}" for name in allowed for attr in _public(name))
            )
            opened = (
                path.name == "_cli.py"
                and scopes.get(node) == "open_memory"
                and any(
                    module == package or module in {f"{package}.{n}" for n in names}
                    for package, names in backends.items()
                )
            )
            if not (public or opened):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {module}")
    assert _sources(MCP) and bad == []


def test_the_zep_backend_never_imports_the_local_engine() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {module}"
        for path in _sources(SRC / "zep")
        for module, node in _imports(path)
        if _within(module, "zepkit.local")
    ]
    assert bad == []


def test_the_local_engine_never_imports_the_zep_backend() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {module}"
        for path in _sources(SRC / "local")
        for module, node in _imports(path)
        if _within(module, "zepkit.zep") or _within(module, "zep_cloud")
    ]
    assert bad == []


@pytest.mark.parametrize("package", ["local", "zep", "testing"])
def test_backends_and_suites_use_the_core_data_types_not_its_loop(package: str) -> None:
    allowed = BACKEND_SIDE | {"zepkit.core", "zepkit.core.spi"}
    if package == "testing":
        allowed |= {"zepkit.core._loop"}  # the adapter contract drives a real MemoryLoop
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {module}"
        for path in _sources(SRC / package)
        for module, node in _imports(path)
        if _within(module, "zepkit.core")
        and module not in allowed
        and not any(module.startswith(f"{name}.") for name in allowed)
    ]
    assert bad == []


def _factory_scopes(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node of `tree` -> the name of the function around it ("" at module level)."""
    scopes: dict[ast.AST, str] = {}

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            scopes[child] = inner
            visit(child, inner)

    visit(tree, "")
    return scopes


def test_the_core_reaches_a_backend_only_where_a_loop_is_composed() -> None:
    """`MemoryLoop.local` and `MemoryLoop.zep`, and the `zepkit` command, which is a program
    built on both backends (a type-only import counts too)."""
    bad = []
    for path in _sources(SRC / "core"):
        if path.name == "_cli.py":
            continue
        tree = ast.parse(path.read_text())
        scopes = _factory_scopes(tree)
        for module, node in _imports(path, tree):
            if not any(_within(module, backend) for backend in BACKENDS):
                continue
            if path.name == "_loop.py" and scopes[node] in {"local", "zep"}:
                continue
            bad.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {module}")
    assert bad == []


def test_nothing_below_imports_an_adapter_or_the_suites() -> None:
    adapters = {f"zepkit.{path.name}" for path in ADAPTER_SOURCES}
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {module}"
        for package in ("core", "local", "zep")
        for path in _sources(SRC / package)
        for module, node in _imports(path)
        if _within(module, "zepkit.testing") or any(_within(module, a) for a in adapters)
    ]
    assert bad == []


@pytest.mark.parametrize(
    "statement",
    [
        "import zepkit.zep.testing",
        "from zepkit.testing import AdapterHarness, FailingBackend, PlainAgentHarness, SlowBackend,"
        " TurnResult",
    ],
)
def test_the_test_doubles_import_without_pytest(statement: str) -> None:
    """Only the contract suites need pytest; the fakes and harness types serve scripts too."""
    code = f"import sys; sys.modules['pytest'] = None; {statement}"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
