"""Who an ADK turn belongs to, and the text of ADK contents.

Session state keys win (`zep_user_id`, `zep_thread_id` and the optional profile keys), so an app
can map its own ids; otherwise ADK's user id and session id are used.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias

from google.genai import types

from zepkit.core import Identity
from zepkit.core.spi import IdentityResolver

STATE_PREFIX = "zep_"
STATE_USER_ID = "zep_user_id"
STATE_THREAD_ID = "zep_thread_id"
STATE_FIRST_NAME = "zep_first_name"
STATE_LAST_NAME = "zep_last_name"
STATE_EMAIL = "zep_email"


_FIELDS = ("user_id", "thread_id", "first_name", "last_name", "email")


class StateLike(Protocol):
    """ADK's session `State` or a plain dict: anything with `get`."""

    def get(self, key: str, default: Any = None, /) -> Any: ...


_Run: TypeAlias = tuple[StateLike, str, str]


def _state(run: _Run) -> dict[str, Any]:
    state = run[0]
    return {field: state.get(STATE_PREFIX + field) for field in _FIELDS}


def _adk_ids(run: _Run) -> dict[str, str]:
    return {"user_id": run[1], "thread_id": run[2]}


_ADK_IDENTITY = IdentityResolver[_Run](lookups=(_state, _adk_ids))


def resolve_identity(state: StateLike, user_id: str, session_id: str) -> Identity:
    """The identity for a session: state keys first, then ADK's user id and session id; raises
    `ConfigurationError` when neither gives a usable id."""
    identity = _ADK_IDENTITY.find_now((state, user_id, session_id))
    assert identity is not None  # no app function that could choose None
    return identity


def content_text(content: types.Content | None) -> str:
    """The visible text of a content (thought parts left out); "" when there is none."""
    if content is None or not content.parts:
        return ""
    return "\n".join(part.text for part in content.parts if part.text and not part.thought)


def has_tool_parts(content: types.Content | None) -> bool:
    """True when the content calls a tool or carries a tool's result."""
    if content is None or not content.parts:
        return False
    return any(part.function_call or part.function_response for part in content.parts)
