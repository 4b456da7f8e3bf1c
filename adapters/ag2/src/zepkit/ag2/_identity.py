"""Who an AG2 run belongs to: ids fixed at construction, else the run's `variables`."""

from __future__ import annotations

from dataclasses import dataclass

from ag2.context import ConversationContext

from zepkit.core import ConfigurationError, Identity

USER_ID = "user_id"
THREAD_ID = "thread_id"


@dataclass(frozen=True)
class RunIdentity:
    """Where each run's memory identity comes from, so one agent can serve every user.

    A fixed `user_id` / `thread_id` wins; otherwise the run's `variables["user_id"]` /
    `variables["thread_id"]` are used. With no thread id anywhere, the run's stream id is the
    thread (AG2 starts a new stream per `ask` unless the app passes its own `stream=`).
    """

    user_id: str | None = None
    thread_id: str | None = None

    def __post_init__(self) -> None:
        for name in (USER_ID, THREAD_ID):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(f"{name} must be a non-empty string or None, got {value!r}")

    def resolve(self, context: ConversationContext) -> Identity:
        """The run's identity; a `ConfigurationError` says what is missing or wrong."""
        user_id = self.user_id or context.variables.get(USER_ID)
        thread_id = self.thread_id or context.variables.get(THREAD_ID) or f"ag2-{context.stream.id}"
        if user_id is None:
            raise ConfigurationError(
                "no user for this AG2 run: pass variables={'user_id': ...} to ask()/run(), "
                "or zep_memory_plugin(memory, user_id=...)"
            )
        if not isinstance(user_id, str) or not isinstance(thread_id, str):
            raise ConfigurationError("the run's user_id and thread_id variables must be strings")
        try:
            return Identity(user_id=user_id, thread_id=thread_id)
        except ValueError as exc:
            raise ConfigurationError(f"invalid identity for this AG2 run: {exc}") from None

    def find(self, context: ConversationContext) -> Identity | None:
        """The run's identity, or None when there is none (already reported by the turn)."""
        try:
            return self.resolve(context)
        except ConfigurationError:
            return None
