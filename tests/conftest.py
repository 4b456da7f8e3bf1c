"""Every test keeps zepkit's own files (the default Zep Cloud outbox) in its own folder, and no
test reaches a language model a developer configured in their environment."""

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


@pytest.fixture(autouse=True)
def _no_llm_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ZEPKIT_LLM_BASE_URL",
        "ZEPKIT_LLM_MODEL",
        "ZEPKIT_LLM_API_KEY",
        "ZEPKIT_LLM_TIMEOUT",
    ):
        monkeypatch.delenv(name, raising=False)
