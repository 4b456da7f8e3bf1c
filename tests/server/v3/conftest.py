"""The v3 tests need the zep-cloud 3.x SDK (nox session tests-server-v3); elsewhere they skip."""

from __future__ import annotations

import importlib.metadata

import pytest

if not importlib.metadata.version("zep-cloud").startswith("3."):
    pytest.skip("needs zep-cloud 3.x: `nox -s tests-server-v3` runs these", allow_module_level=True)
