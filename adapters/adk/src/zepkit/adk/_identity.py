"""Who an ADK turn belongs to, and the text of ADK contents.

Session state keys win (`zep_user_id`, `zep_thread_id` and the optional profile keys), so an app
can map its own ids; otherwise ADK's user id and session id are used.
"""

from __future__ import annotations

from typing import Any, Protocol

from google.genai import types

from zepkit.core import Identity

STATE_USER_ID = "zep_user_id"
STATE_THREAD_ID = "zep_thread_id"
STATE_FIRST_NAME = "zep_first_name"
STATE_LAST_NAME = "zep_last_name"
STATE_EMAIL = "zep_email"


class StateLike(Protocol):
    """ADK's session `State` or a plain dict: anything with `get`."""

    def get(self, key: str, default: Any = None, /) -> Any: ...


def _text_value(state: StateLike, key: str) -> str | None:
    value = state.get(key)
    return value if isinstance(value, str) and value.strip() else None


def resolve_identity(state: StateLike, user_id: str, session_id: str) -> Identity:
    """The identity for a session: state keys first, then ADK's user id and session id."""
    return Identity(
        user_id=_text_value(state, STATE_USER_ID) or user_id,
        thread_id=_text_value(state, STATE_THREAD_ID) or session_id,
        first_name=_text_value(state, STATE_FIRST_NAME),
        last_name=_text_value(state, STATE_LAST_NAME),
        email=_text_value(state, STATE_EMAIL),
    )


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
