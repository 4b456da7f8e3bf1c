"""Who an AG2 run belongs to: ids fixed at construction, else the run's `variables`."""

from __future__ import annotations

from typing import Any

from ag2.context import ConversationContext

from zepkit.core.spi import IdentityResolver


def _variables(context: ConversationContext) -> Any:
    return context.variables


def _stream_thread(context: ConversationContext) -> str:
    return f"ag2-{context.stream.id}"


class RunIdentity(IdentityResolver[ConversationContext]):
    """Where each run's memory identity comes from, so one agent can serve every user.

    A fixed `user_id` / `thread_id` wins; otherwise the run's `variables` give `user_id`,
    `thread_id` and the optional `first_name`, `last_name`, `email`. With no thread id anywhere,
    the run's stream id is the thread (AG2 starts a new stream per `ask` unless the app passes its
    own `stream=`).
    """

    def __init__(self, user_id: str | None = None, thread_id: str | None = None) -> None:
        super().__init__(
            user_id=user_id,
            thread_id=thread_id,
            lookups=(_variables,),
            thread_fallback=_stream_thread,
            hint="pass variables={'user_id': ...} to ask()/run(), "
            "or zep_memory_plugin(memory, user_id=...)",
        )
