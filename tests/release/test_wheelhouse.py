"""What `nox -s packages` built is what PyPI should get: every distribution as a wheel and an sdist
at the release version, each with its README and licence, and pins that keep the model optional.

Runs only on a wheelhouse (`ZEPKIT_WHEELHOUSE`, set by the `packages` session).
"""

from __future__ import annotations

import os
import tarfile
import tomllib
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if "ZEPKIT_WHEELHOUSE" not in os.environ:
    pytest.skip("no wheelhouse here: `nox -s packages` builds one", allow_module_level=True)
WHEELHOUSE = Path(os.environ["ZEPKIT_WHEELHOUSE"])
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
KEYS = sorted(p.parent.name for p in ROOT.glob("adapters/*/pyproject.toml"))
NAMES = [
    "zepkit",
    "zepkit-core",
    "zepkit-server",
    "zepkit-mcp",
    *(f"zepkit-{key}" for key in KEYS),
]


def _stem(name: str) -> str:
    return f"{name.replace('-', '_')}-{VERSION}"


def _wheel(name: str) -> zipfile.ZipFile:
    return zipfile.ZipFile(WHEELHOUSE / f"{_stem(name)}-py3-none-any.whl")


def _metadata(name: str) -> Message:
    with _wheel(name) as wheel:
        text = wheel.read(f"{_stem(name)}.dist-info/METADATA").decode()
    return Parser().parsestr(text)


def test_the_wheelhouse_holds_exactly_one_wheel_and_one_sdist_per_distribution() -> None:
    expected = {f"{_stem(n)}-py3-none-any.whl" for n in NAMES} | {
        f"{_stem(n)}.tar.gz" for n in NAMES
    }
    assert {path.name for path in WHEELHOUSE.iterdir()} == expected


@pytest.mark.parametrize("name", NAMES)
def test_every_wheel_has_its_readme_licence_and_metadata(name: str) -> None:
    metadata = _metadata(name)
    assert metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata["License-File"] == "LICENSE"
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().startswith(f"# {name}")  # the distribution's own README
    with _wheel(name) as wheel:
        licence = wheel.read(f"{_stem(name)}.dist-info/licenses/LICENSE")
    assert licence == (ROOT / "LICENSE").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_every_sdist_builds_again_from_what_it_ships(name: str) -> None:
    with tarfile.open(WHEELHOUSE / f"{_stem(name)}.tar.gz") as sdist:
        files = {member.name.split("/", 1)[1] for member in sdist.getmembers() if member.isfile()}
    assert {"pyproject.toml", "README.md", "LICENSE", "PKG-INFO"} <= files
    if name == "zepkit":
        shipped = {"pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "PKG-INFO"}
        assert files - {".gitignore"} == shipped  # hatchling always adds .gitignore
    else:
        assert any(f.startswith("src/zepkit/") and f.endswith("py.typed") for f in files)


def test_the_meta_package_pulls_the_model_and_one_adapter_per_extra() -> None:
    requires = _metadata("zepkit").get_all("Requires-Dist")
    assert f"zepkit-core[embeddings]=={VERSION}" in requires
    for key in KEYS:
        assert f"zepkit-{key}=={VERSION}; extra == '{key}'" in requires
    assert f"zepkit-server=={VERSION}; extra == 'server'" in requires
    assert f"zepkit-mcp=={VERSION}; extra == 'mcp'" in requires
    with _wheel("zepkit") as wheel:
        assert not [f for f in wheel.namelist() if not f.startswith(f"{_stem('zepkit')}.dist-info")]


@pytest.mark.parametrize("key", KEYS)
def test_an_adapter_wheel_is_its_module_alone_and_needs_no_model(key: str) -> None:
    name = f"zepkit-{key}"
    requires = _metadata(name).get_all("Requires-Dist")
    assert f"zepkit-core=={VERSION}" in requires
    with _wheel(name) as wheel:
        code = [f for f in wheel.namelist() if not f.startswith(f"{_stem(name)}.dist-info")]
    module = key.replace("-", "_")
    assert code and all(f.startswith(f"zepkit/{module}/") for f in code)
    assert f"zepkit/{module}/py.typed" in code


def test_the_server_wheel_is_its_module_and_its_command() -> None:
    name = "zepkit-server"
    requires = _metadata(name).get_all("Requires-Dist")
    assert f"zepkit-core=={VERSION}" in requires
    with _wheel(name) as wheel:
        code = [f for f in wheel.namelist() if not f.startswith(f"{_stem(name)}.dist-info")]
        entry_points = wheel.read(f"{_stem(name)}.dist-info/entry_points.txt").decode()
    assert code and all(f.startswith("zepkit/server/") for f in code)
    assert "zepkit/server/py.typed" in code
    assert "zepkit-serve = zepkit.server.cli:main" in entry_points


def test_the_mcp_wheel_is_its_module_and_its_command() -> None:
    name = "zepkit-mcp"
    requires = _metadata(name).get_all("Requires-Dist")
    assert f"zepkit-core=={VERSION}" in requires
    assert any(r.startswith("mcp>=") for r in requires)
    with _wheel(name) as wheel:
        code = [f for f in wheel.namelist() if not f.startswith(f"{_stem(name)}.dist-info")]
        entry_points = wheel.read(f"{_stem(name)}.dist-info/entry_points.txt").decode()
    assert code and all(f.startswith("zepkit/mcp/") for f in code)
    assert "zepkit/mcp/py.typed" in code
    assert "zepkit-mcp = zepkit.mcp._cli:console" in entry_points


def test_the_core_wheel_ships_its_packages_data_and_command() -> None:
    name = "zepkit-core"
    with _wheel(name) as wheel:
        files = set(wheel.namelist())
        entry_points = wheel.read(f"{_stem(name)}.dist-info/entry_points.txt").decode()
    assert "zepkit/__init__.py" not in files  # a namespace shared with the adapters
    for package in ("core", "local", "zep", "testing"):
        assert f"zepkit/{package}/__init__.py" in files
    assert "zepkit/local/embedding_data/tokenizer.json" in files
    assert "zepkit/core/_inspector/page.html" in files  # the page `zepkit ui` serves
    assert "zepkit = zepkit.core._cli:main" in entry_points
    extras = _metadata(name).get_all("Provides-Extra")
    assert "embeddings" in extras
