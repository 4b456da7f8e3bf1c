"""Every Python code block in the README and in each adapter's README runs, offline, on the local
engine, and every relative link in them leads to a file of the repository.

A block that imports an adapter (`zepkit.<framework>`), or sits in that adapter's README, runs in
that adapter's environment (its nox session runs this file too) and is skipped where the adapter
is not installed.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE_MODULES = {"core", "local", "zep", "testing"}
# Python adapters: a folder with a pyproject.toml (the TypeScript packages have none).
ADAPTER_KEYS = sorted(p.parent.name for p in ROOT.glob("adapters/*/pyproject.toml"))
READMES = {"root": ROOT / "README.md"} | {
    key: ROOT / "adapters" / key / "README.md" for key in ADAPTER_KEYS
}


def _python_blocks(readme: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S)


def _blocks() -> list[tuple[str, str]]:
    """(key of the README, code) for every block: "root" or an adapter's key."""
    return [(key, code) for key, path in READMES.items() for code in _python_blocks(path)]


def _ids() -> list[str]:
    counts: dict[str, int] = {}
    ids = []
    for key, _ in _blocks():
        ids.append(f"{key}-block{counts.get(key, 0)}")
        counts[key] = counts.get(key, 0) + 1
    return ids


def _adapter_modules(code: str) -> set[str]:
    found = re.findall(r"^\s*(?:from|import)\s+zepkit\.(\w+)", code, flags=re.M)
    return set(found) - CORE_MODULES


def test_readme_has_code_blocks() -> None:
    assert _python_blocks(READMES["root"])


@pytest.mark.parametrize("key", ADAPTER_KEYS)
def test_every_adapter_readme_has_a_block_using_it(key: str) -> None:
    """The adapter's own session runs its README: a block there imports the adapter."""
    module = key.replace("-", "_")
    assert any(module in _adapter_modules(code) for code in _python_blocks(READMES[key]))


@pytest.mark.parametrize("key", list(READMES))
def test_relative_links_lead_to_files(key: str) -> None:
    readme = READMES[key]
    targets = re.findall(r"\]\(([^)\s]+)\)", readme.read_text())
    relative = [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:|#", t)]
    missing = [t for t in relative if not (readme.parent / t).exists()]
    assert not missing, f"{readme.relative_to(ROOT)} links to files that do not exist: {missing}"


@pytest.mark.slow
@pytest.mark.parametrize(("key", "code"), _blocks(), ids=_ids())
def test_readme_block_runs(key: str, code: str, tmp_path: Path) -> None:
    needed = _adapter_modules(code) | ({key.replace("-", "_")} if key != "root" else set())
    for module in sorted(needed):
        if importlib.util.find_spec(f"zepkit.{module}") is None:
            pytest.skip(f"zepkit.{module} is not installed here; its nox session runs this block")
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr
