"""Every distribution is ready to publish: one version, its README and licence, pins that match."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import zepkit.core

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = sorted(p.parent for p in ROOT.glob("adapters/*/pyproject.toml"))
FOLDERS = [ROOT, ROOT / "core", ROOT / "server", ROOT / "mcp", *ADAPTERS]
VERSION = zepkit.core.__version__


def _project(folder: Path) -> dict[str, object]:
    project: dict[str, object] = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
    return project


def _requirements(folder: Path) -> list[Requirement]:
    project = _project(folder)
    listed = list(project.get("dependencies", []))  # type: ignore[call-overload]
    for extra in project.get("optional-dependencies", {}).values():  # type: ignore[attr-defined]
        listed.extend(extra)
    return [Requirement(text) for text in listed]


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_every_distribution_has_readme_licence_and_metadata(folder: Path) -> None:
    project = _project(folder)
    assert (folder / "README.md").read_text().strip()
    assert project["readme"] == "README.md"
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    assert (folder / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    assert project["requires-python"] == ">=3.11"
    classifiers = project["classifiers"]
    assert isinstance(classifiers, list)
    for minor in ("3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {minor}" in classifiers
    assert project["description"] and project["authors"]


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_every_distribution_is_released_at_the_core_version(folder: Path) -> None:
    project = _project(folder)
    if folder.name == "core":
        assert project["dynamic"] == ["version"]  # read from zepkit/core/_version.py
    else:
        assert project["version"] == VERSION, "run `nox -s set-version -- X.Y.Z` to change it"
    for requirement in _requirements(folder):
        if requirement.name.startswith("zepkit"):
            assert str(requirement.specifier) == f"=={VERSION}", requirement


def test_the_meta_package_brings_local_embeddings_and_adapters_do_not() -> None:
    """`pip install zepkit` recalls semantically out of the box; a Zep Cloud user who installs
    `zepkit-core` and `zepkit-<key>` downloads no model."""
    (core,) = [r for r in _requirements(ROOT) if r.name == "zepkit-core"]
    assert core.extras == {"embeddings"}
    for folder in FOLDERS[2:]:
        (core,) = [r for r in _requirements(folder) if r.name == "zepkit-core"]
        assert not core.extras, folder.name


def test_the_changelog_has_the_released_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## {re.escape(VERSION)}$", changelog, flags=re.M)


def test_the_installed_core_reports_its_version() -> None:
    assert importlib.metadata.version("zepkit-core") == VERSION
