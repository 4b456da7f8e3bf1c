"""The framework key names everything: folder, distribution, import, extra, nox session, tests."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _adapter_keys() -> set[str]:
    folder = ROOT / "adapters"
    return (
        {p.name for p in folder.iterdir() if (p / "pyproject.toml").exists()}
        if folder.exists()
        else set()
    )


def _nox_sessions() -> set[str]:
    """Names of the functions decorated with `nox.session` (its `name=` when given)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not (isinstance(target, ast.Attribute) and target.attr == "session"):
                continue
            name = node.name
            for keyword in getattr(decorator, "keywords", []):
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    name = str(keyword.value.value)
            names.add(name)
    return names


def test_every_adapter_is_named_by_its_key_everywhere() -> None:
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = root["project"].get("optional-dependencies", {})
    keys = _adapter_keys()
    sessions = _nox_sessions()
    sources = root["tool"]["uv"]["sources"]
    assert set(extras) == keys, "one root extra per adapter folder, and no other"
    for key in keys:
        distribution = f"zepkit-{key}"
        project = tomllib.loads((ROOT / "adapters" / key / "pyproject.toml").read_text())["project"]
        assert project["name"] == distribution
        assert any(dep.startswith(distribution) for dep in extras[key])
        assert (ROOT / "adapters" / key / "src" / "zepkit" / key.replace("-", "_")).is_dir()
        assert f"tests-{key}" in sessions
        assert (ROOT / "tests" / "adapters" / key).is_dir()
        assert sources[distribution] == {"path": f"adapters/{key}", "editable": True}


def test_uv_sync_with_an_extra_installs_its_adapter() -> None:
    """Package-level conflicts made `uv sync --extra KEY` leave the adapter out: conflicts are
    declared between extras only, and adapters are path sources, never workspace members."""
    uv = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["uv"]
    assert all(set(side) == {"extra"} for group in uv["conflicts"] for side in group)
    assert uv["workspace"]["members"] == ["core"]
    locked = tomllib.loads((ROOT / "uv.lock").read_text())
    (zepkit,) = [p for p in locked["package"] if p["name"] == "zepkit"]
    for key in _adapter_keys():
        names = [dep["name"] for dep in zepkit["optional-dependencies"][key]]
        assert f"zepkit-{key}" in names


def test_the_namespace_stays_a_namespace() -> None:
    assert not list(ROOT.glob("*/src/zepkit/__init__.py"))
    assert not list(ROOT.glob("adapters/*/src/zepkit/__init__.py"))


def test_core_sessions_exist() -> None:
    assert {"lint", "typecheck", "tests-core", "examples"} <= _nox_sessions()


def test_the_ci_workflow_runs_every_default_session() -> None:
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    listed = set(re.findall(r"^\s+- ([a-z0-9-]+)$", workflow, flags=re.M))
    assert _nox_sessions() - {"bench"} <= listed
