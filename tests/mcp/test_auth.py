"""The token file: a user per token, optional expiry, and clear refusals of what cannot work."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from zepkit.mcp import JwtTokens, StaticTokens, load_tokens
from zepkit.mcp._auth import TokenFileError


def _file(tmp_path: Path, content: object) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps(content))
    return path


async def test_a_token_names_its_user_until_it_expires(tmp_path: Path) -> None:
    tokens = load_tokens(
        _file(
            tmp_path,
            {
                "maya-token-0123456789": "maya",
                "leo-token-0123456789ab": {"user_id": "leo", "expires_at": "2999-01-01T00:00:00Z"},
                "old-token-0123456789ab": {"user_id": "leo", "expires_at": int(time.time()) - 1},
            },
        )
    )
    assert len(tokens) == 3
    maya = await tokens.verify_token("maya-token-0123456789")
    assert maya is not None and maya.subject == "maya" and maya.expires_at is None
    leo = await tokens.verify_token("leo-token-0123456789ab")
    assert leo is not None and leo.subject == "leo" and leo.expires_at == 32472144000
    assert await tokens.verify_token("old-token-0123456789ab") is None
    assert await tokens.verify_token("maya-token-012345678") is None
    assert await tokens.verify_token("") is None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (["maya"], "expected a JSON object"),
        ({"short": "maya"}, "at least 16 characters"),
        ({"maya-token-0123456789": ""}, "non-empty user id"),
        ({"maya-token-0123456789": 7}, "maps to a user id or to an object"),
        ({"maya-token-0123456789": {"user_id": "m", "expires_at": "soon"}}, "expires_at must"),
        ({"maya-token-0123456789": {"user_id": "m", "expires_at": "2030-01-01"}}, "with a zone"),
    ],
)
def test_a_bad_token_file_says_what_is_wrong(
    tmp_path: Path, content: object, expected: str
) -> None:
    with pytest.raises(TokenFileError, match=expected):
        load_tokens(_file(tmp_path, content))


def test_unreadable_or_broken_files(tmp_path: Path) -> None:
    with pytest.raises(TokenFileError, match="cannot read the token file"):
        load_tokens(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{maya")
    with pytest.raises(TokenFileError, match="is not JSON"):
        load_tokens(broken)


def test_jwt_settings_that_cannot_be_safe_are_refused() -> None:
    with pytest.raises(ValueError, match="exactly one of key= and jwks_url="):
        JwtTokens(issuer="https://id.example", audience="a")
    with pytest.raises(ValueError, match="'none' algorithm"):
        JwtTokens(issuer="https://id.example", audience="a", key="k", algorithms=["none"])
    assert len(StaticTokens({})) == 0
