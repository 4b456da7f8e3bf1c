"""Every test keeps zepkit's own files (the default Zep Cloud outbox) in its own folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_state_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    folder = tmp_path_factory.mktemp("zepkit-state")
    monkeypatch.setenv("ZEPKIT_STATE_DIR", str(folder))
    return folder
