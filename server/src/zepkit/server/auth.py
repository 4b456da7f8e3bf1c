"""API keys: `Authorization: Api-Key <key>` as Zep's SDKs send it, each key naming a project.

Keys come from `ZEPKIT_API_KEYS` (`key=project` pairs separated by commas) or a file with one
`key=project` per line (`#` starts a comment). A key alone belongs to the project `default`.
Keys are compared in constant time and never appear in logs, errors or reprs.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from pathlib import Path

from zepkit.server.projects import PROJECT_NAME

ENV_VAR = "ZEPKIT_API_KEYS"
DEFAULT_PROJECT = "default"
_SCHEMES = ("api-key", "bearer")


class KeyListError(ValueError):
    """A malformed key list (the message never contains a key)."""


def parse_keys(entries: Iterable[str], *, source: str) -> dict[str, str]:
    """`key=project` entries (blank ones and `#` comments skipped) as a key -> project map."""
    keys: dict[str, str] = {}
    for number, raw in enumerate(entries, start=1):
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        key, _, project = entry.partition("=")
        key, project = key.strip(), (project.strip() or DEFAULT_PROJECT)
        if len(key) < 8 or any(c.isspace() for c in key):
            raise KeyListError(f"{source}, entry {number}: a key needs at least 8 characters")
        if not PROJECT_NAME.fullmatch(project):
            raise KeyListError(f"{source}, entry {number}: invalid project name {project!r}")
        keys[key] = project
    return keys


def load_keys(env: Mapping[str, str], key_file: str | Path | None) -> dict[str, str]:
    keys: dict[str, str] = {}
    if env.get(ENV_VAR, "").strip():
        keys.update(parse_keys(env[ENV_VAR].split(","), source=ENV_VAR))
    if key_file is not None:
        keys.update(parse_keys(Path(key_file).read_text().splitlines(), source=str(key_file)))
    return keys


class KeyRing:
    """Which project a request's key opens; None for a missing or unknown key."""

    def __init__(self, keys: Mapping[str, str]) -> None:
        self._keys = [(key.encode(), project) for key, project in keys.items()]

    def __repr__(self) -> str:
        return f"KeyRing({len(self._keys)} keys)"

    def __len__(self) -> int:
        return len(self._keys)

    def project(self, authorization: str | None) -> str | None:
        if not authorization:
            return None
        scheme, _, presented = authorization.strip().partition(" ")
        if scheme.lower() not in _SCHEMES or not presented.strip():
            return None
        given = presented.strip().encode()
        found = None
        for key, project in self._keys:  # every key compared: the time says nothing
            if hmac.compare_digest(key, given):
                found = project
        return found
