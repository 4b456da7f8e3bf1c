"""Every Python code block in the README runs, offline, on the local engine.

A block that imports an adapter (`zepkit.<framework>`) runs in that adapter's environment (its nox
session runs this file too) and is skipped where the adapter is not installed.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
CORE_MODULES = {"core", "local", "zep", "testing"}


def _adapter_modules(code: str) -> set[str]:
    found = re.findall(r"^\s*(?:from|import)\s+zepkit\.(\w+)", code, flags=re.M)
    return set(found) - CORE_MODULES


def test_readme_has_code_blocks() -> None:
    assert BLOCKS


@pytest.mark.slow
@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code: str, tmp_path: Path) -> None:
    for module in _adapter_modules(code):
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
