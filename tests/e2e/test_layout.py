"""The framework key names everything: folder, distribution, import, extra, nox session, tests."""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Root extras that are not adapters: the server and MCP server distributions, named like one.
OTHER_EXTRAS = {"server": "server", "mcp": "mcp"}


def _adapter_keys() -> set[str]:
    folder = ROOT / "adapters"
    return (
        {p.name for p in folder.iterdir() if (p / "pyproject.toml").exists()}
        if folder.exists()
        else set()
    )


def _nox_sessions(*, default_only: bool = False) -> set[str]:
    """Names of the functions decorated with `nox.session` (its `name=` when given); with
    `default_only`, leaving out `default=False` ones. Stand-ins named by an f-string (a newer
    Python that is not installed) are not sessions of their own."""
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not (isinstance(target, ast.Attribute) and target.attr == "session"):
                continue
            keywords = {k.arg: k.value for k in getattr(decorator, "keywords", [])}
            name = keywords.get("name")
            if name is not None and not isinstance(name, ast.Constant):
                continue
            default = keywords.get("default")
            if default_only and isinstance(default, ast.Constant) and default.value is False:
                continue
            names.add(str(name.value) if name is not None else node.name)
    return names


def test_every_adapter_is_named_by_its_key_everywhere() -> None:
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = root["project"].get("optional-dependencies", {})
    keys = _adapter_keys()
    sessions = _nox_sessions()
    sources = root["tool"]["uv"]["sources"]
    assert set(extras) == keys | set(OTHER_EXTRAS), (
        "one root extra per adapter folder (and the servers)"
    )
    for key in keys:
        distribution = f"zepkit-{key}"
        project = tomllib.loads((ROOT / "adapters" / key / "pyproject.toml").read_text())["project"]
        assert project["name"] == distribution
        assert any(dep.startswith(distribution) for dep in extras[key])
        assert (ROOT / "adapters" / key / "src" / "zepkit" / key.replace("-", "_")).is_dir()
        assert f"tests-{key}" in sessions
        assert (ROOT / "tests" / "adapters" / key).is_dir()
        assert sources[distribution] == {"path": f"adapters/{key}", "editable": True}


def test_every_adapter_has_its_own_readme() -> None:
    """An adapter's documentation is its README (also its PyPI page), linked from the root
    README's framework table."""
    root_readme = (ROOT / "README.md").read_text()
    for key in _adapter_keys():
        folder = ROOT / "adapters" / key
        project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
        assert project["readme"] == "README.md", key
        readme = (folder / "README.md").read_text()
        assert readme.startswith(f"# zepkit-{key}\n"), key
        assert f'pip install "zepkit[{key}]"' in readme, key
        assert f"](adapters/{key}/README.md)" in root_readme, key


TEMPLATE = {"__init__.py", "_identity.py", "_tool.py", "py.typed"}
"""The files every Python adapter has: the import guard and `__all__`, who a run belongs to, the
memory search tool, and the typing marker; the hooks take the framework's own noun."""


def test_every_adapter_follows_the_template() -> None:
    """One layout: the template's files, and every other module private."""
    for key in _adapter_keys():
        package = ROOT / "adapters" / key / "src" / "zepkit" / key.replace("-", "_")
        files = {p.name for p in package.iterdir() if p.name != "__pycache__"}
        assert files >= TEMPLATE, (key, TEMPLATE - files)
        public = [f for f in files if f.endswith(".py") and not f.startswith("_")]
        assert public == [], (key, public)


def test_typescript_packages_are_named_by_their_folder() -> None:
    """`adapters/<key>/` with a `package.json` (and no `pyproject.toml`) is the npm package
    `@zepkit/<key>` (`ts-core` is their shared `@zepkit/core`), a member of the root npm
    workspace, at the Python distributions' version, tested by the `tests-ts` session."""
    folders = {p.parent.name for p in (ROOT / "adapters").glob("*/package.json")}
    assert {"vercel-ai", "mastra", "ts-core"} <= folders
    workspace = json.loads((ROOT / "package.json").read_text())
    assert sorted(workspace["workspaces"]) == sorted(f"adapters/{key}" for key in folders)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for key in folders:
        package = json.loads((ROOT / "adapters" / key / "package.json").read_text())
        assert package["name"] == ("@zepkit/core" if key == "ts-core" else f"@zepkit/{key}")
        assert package["version"] == version
        assert package["type"] == "module" and package["license"] == "Apache-2.0"
        assert package.get("dependencies", {}).get("@zepkit/core", version) == version
        assert (ROOT / "adapters" / key / "README.md").is_file()
        assert not (ROOT / "adapters" / key / "pyproject.toml").exists()
    assert (ROOT / "package-lock.json").is_file()
    assert "tests-ts" in _nox_sessions()


def test_the_server_is_named_like_an_adapter() -> None:
    """`server/` is `zepkit-server`, imports as `zepkit.server`, comes with `zepkit[server]`, is
    a path source like the adapters and has its own nox session and test folder."""
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for extra, folder in OTHER_EXTRAS.items():
        distribution = f"zepkit-{extra}"
        project = tomllib.loads((ROOT / folder / "pyproject.toml").read_text())["project"]
        assert project["name"] == distribution
        assert root["project"]["optional-dependencies"][extra] == [f"{distribution}==0.1.0"]
        assert (ROOT / folder / "src" / "zepkit" / extra).is_dir()
        assert f"tests-{extra}" in _nox_sessions()
        assert (ROOT / "tests" / extra).is_dir()
        assert root["tool"]["uv"]["sources"][distribution] == {"path": folder, "editable": True}


def test_uv_sync_with_an_extra_installs_its_adapter() -> None:
    """Package-level conflicts made `uv sync --extra KEY` leave the adapter out: conflicts are
    declared between extras only, and adapters are path sources, never workspace members."""
    uv = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["uv"]
    assert all(set(side) == {"extra"} for group in uv["conflicts"] for side in group)
    assert uv["workspace"]["members"] == ["core"]
    locked = tomllib.loads((ROOT / "uv.lock").read_text())
    (zepkit,) = [p for p in locked["package"] if p["name"] == "zepkit"]
    for key in _adapter_keys() | set(OTHER_EXTRAS):
        names = [dep["name"] for dep in zepkit["optional-dependencies"][key]]
        assert f"zepkit-{key}" in names


def test_the_namespace_stays_a_namespace() -> None:
    assert not list(ROOT.glob("*/src/zepkit/__init__.py"))
    assert not list(ROOT.glob("adapters/*/src/zepkit/__init__.py"))
    for folder in OTHER_EXTRAS.values():
        assert not (ROOT / folder / "src" / "zepkit" / "__init__.py").exists()


def test_core_sessions_exist() -> None:
    assert {"lint", "typecheck", "tests-core", "examples"} <= _nox_sessions()


def test_the_ci_workflow_runs_every_default_session() -> None:
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    listed = set(re.findall(r"^\s+- ([a-z0-9-]+)$", workflow, flags=re.M))
    assert _nox_sessions(default_only=True) == listed
    core_on_every_python = r'python: \["3.11", "3.12", "3.13"\]\n\s+session:\n\s+- tests-core\n'
    assert re.search(core_on_every_python, workflow)


def test_ci_runs_the_readmes_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```bash\n(.+?)\n```", readme, flags=re.S)
    test_command = next(c for c in commands if c.endswith("nox"))
    assert test_command in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_release_workflow_publishes_what_the_packages_session_built() -> None:
    release = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert 'tags: ["v*"]' in release
    assert "nox -s packages" in release
    assert "id-token: write" in release and "pypa/gh-action-pypi-publish" in release
    assert "packages" in _nox_sessions(default_only=True)
