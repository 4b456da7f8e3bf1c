"""Where zepkit keeps files of its own when the app names none: the Zep Cloud outbox."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

logger = logging.getLogger("zepkit.core")

STATE_DIR_ENV = "ZEPKIT_STATE_DIR"


def state_dir() -> Path:
    """`ZEPKIT_STATE_DIR`, else `$XDG_STATE_HOME/zepkit`, else `~/.local/state/zepkit`."""
    chosen = os.environ.get(STATE_DIR_ENV)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "zepkit"


def local_outbox_path(database: str) -> str:
    """The default outbox file of a local memory database: `PATH.outbox`, beside it."""
    return f"{database}.outbox"


def zep_outbox_path(api_key: str, base_url: str | None) -> str | None:
    """The default outbox file for one Zep project (named by a digest of its key and address, so
    two projects never replay into each other), or None when no folder can be made for it."""
    digest = hashlib.sha256(f"{base_url or ''}\n{api_key}".encode()).hexdigest()[:16]
    folder = state_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        logger.warning(
            "zepkit: no outbox for Zep Cloud (cannot create %s: %s); writes made while Zep is "
            "unreachable will be lost. Pass outbox=PATH or set %s.",
            folder,
            exc.strerror or type(exc).__name__,
            STATE_DIR_ENV,
        )
        return None
    return str(folder / f"zep-{digest}.outbox")
