"""Who calls over HTTP: bearer tokens verified by the SDK's `TokenVerifier` hook, mapped to one
memory user each. A static token file for self-hosting, JWTs (OIDC) for everything else."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import jwt
from mcp.server.auth.provider import AccessToken

CLIENT_ID = "zepkit-mcp"
TOKENS_ENV = "ZEPKIT_MCP_TOKENS"
"""Environment variable naming the token file when `--tokens-file` is not given."""

UserOf = Callable[[AccessToken], str | None]
"""Maps a verified token to the memory user it acts for (None: no user, every tool says so)."""


def subject_user(token: AccessToken) -> str | None:
    """The default mapping: the token's subject (`sub`), the resource owner."""
    return token.subject or None


class TokenFileError(ValueError):
    """The token file cannot be used; the message says why and where."""


@dataclass(frozen=True)
class TokenEntry:
    """One static token: the user it stands for and, optionally, when it stops working."""

    user_id: str
    expires_at: int | None = None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class StaticTokens:
    """A `TokenVerifier` over a fixed token -> user map, for self-hosting.

    Only digests of the tokens are kept, and a lookup compares digests, so a token never sits in
    memory longer than the call that checks it. An expired entry is refused."""

    def __init__(self, tokens: Mapping[str, str | TokenEntry]) -> None:
        self._entries: dict[bytes, TokenEntry] = {}
        for token, entry in tokens.items():
            if not isinstance(token, str) or len(token) < 16:
                raise TokenFileError("every token must be a string of at least 16 characters")
            if isinstance(entry, str):
                entry = TokenEntry(entry)
            if not entry.user_id.strip():
                raise TokenFileError("every token needs a non-empty user id")
            self._entries[_digest(token)] = entry

    def __len__(self) -> int:
        return len(self._entries)

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = _digest(token)
        found = next(
            (entry for key, entry in self._entries.items() if hmac.compare_digest(key, digest)),
            None,
        )
        if found is None:
            return None
        if found.expires_at is not None and found.expires_at <= time.time():
            return None
        return AccessToken(
            token=token,
            client_id=CLIENT_ID,
            scopes=[],
            expires_at=found.expires_at,
            subject=found.user_id,
        )


def _expiry(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            if moment.tzinfo is not None:
                return int(moment.timestamp())
    raise TokenFileError(
        f"{where}: expires_at must be Unix seconds or an ISO 8601 time with a zone, got {value!r}"
    )


def load_tokens(path: str | os.PathLike[str]) -> StaticTokens:
    """Read a token file: a JSON object mapping each token to a user id, or to
    `{"user_id": ..., "expires_at": ...}` (Unix seconds or ISO 8601 with a zone)."""
    where = os.fspath(path)
    try:
        raw = json.loads(Path(path).read_text())
    except OSError as exc:
        raise TokenFileError(f"cannot read the token file {where}: {exc.strerror}") from None
    except ValueError as exc:
        raise TokenFileError(f"{where} is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise TokenFileError(f"{where}: expected a JSON object of token -> user id")
    tokens: dict[str, str | TokenEntry] = {}
    for token, value in raw.items():
        if isinstance(value, str):
            tokens[token] = value
        elif isinstance(value, dict) and isinstance(value.get("user_id"), str):
            tokens[token] = TokenEntry(value["user_id"], _expiry(value.get("expires_at"), where))
        else:
            raise TokenFileError(
                f"{where}: each token maps to a user id or to an object with user_id"
            )
    return StaticTokens(tokens)


class JwtTokens:
    """A `TokenVerifier` for JWT bearer tokens (OIDC access tokens): the signature, `exp`, `iss`
    and `aud` are checked; the user is the `sub` claim (or `user_claim`).

    Give `key` (a shared secret for HS256, or a public key) or `jwks_url` (the issuer's key set,
    fetched and cached by PyJWT)."""

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        key: str | bytes | None = None,
        jwks_url: str | None = None,
        algorithms: Sequence[str] = ("RS256",),
        user_claim: str = "sub",
        leeway: float = 0,
    ) -> None:
        if (key is None) == (jwks_url is None):
            raise ValueError("give exactly one of key= and jwks_url=")
        if "none" in (a.lower() for a in algorithms):
            raise ValueError("the 'none' algorithm is never accepted")
        self.issuer = issuer
        self.audience = audience
        self.algorithms = list(algorithms)
        self.user_claim = user_claim
        self.leeway = leeway
        self._key = key
        self._jwks = jwt.PyJWKClient(jwks_url) if jwks_url is not None else None

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key: Any = self._key
            if self._jwks is not None:  # a blocking fetch the first time: off the event loop
                key = (await asyncio.to_thread(self._jwks.get_signing_key_from_jwt, token)).key
            claims = jwt.decode(
                token,
                key,
                algorithms=self.algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud", self.user_claim]},
            )
        except (jwt.PyJWTError, ValueError):
            return None
        user = claims.get(self.user_claim)
        if not isinstance(user, str) or not user.strip():
            return None
        scopes = claims.get("scope", "")
        return AccessToken(
            token=token,
            client_id=str(claims.get("azp") or claims.get("client_id") or CLIENT_ID),
            scopes=scopes.split() if isinstance(scopes, str) else [],
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=user,
            claims={k: v for k, v in claims.items() if k in ("iss", "aud", "azp")},
        )
