"""`ZepMemory`: zepkit's memory loop behind AutoGen's `Memory` protocol, for one user's thread."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from autogen_core import CancellationToken
from autogen_core.memory import (
    Memory,
    MemoryContent,
    MemoryMimeType,
    MemoryQueryResult,
    UpdateContextResult,
)
from autogen_core.model_context import ChatCompletionContext
from autogen_core.tools import FunctionTool

from zepkit.autogen._content import as_contents, as_data, mime_of, newest_user_text
from zepkit.autogen._context import ZepChatCompletionContext
from zepkit.autogen._identity import HINT, STAGE
from zepkit.autogen._tool import wrap_search
from zepkit.core import Identity, MemoryLoop, Message, NotFoundError
from zepkit.core.spi import check_memory, fail_soft, fixed_identity

_NO_MEMORIES = MemoryQueryResult(results=[])
_NOTHING_NEW = UpdateContextResult(memories=_NO_MEMORIES)


def _ids(zep: ZepMemory, *_: Any) -> dict[str, Any]:
    identity = zep.identity
    if identity is None:
        return {}
    return {"user_id": identity.user_id, "thread_id": identity.thread_id}


def _add_fields(zep: ZepMemory, content: MemoryContent, *_: Any) -> dict[str, Any]:
    return {"mime_type": mime_of(content), **_ids(zep)}


class ZepMemory(Memory):
    """Long-term memory for an AutoGen agent: `AssistantAgent(..., memory=[ZepMemory(...)])`.

    Each run, `update_context` saves the user's newest message once and leaves exactly one memory
    block in the model context, first, so it sits next to the agent's system message and reads as
    instructions; the previous run's block is removed, never stacked. With
    `model_context=ZepChatCompletionContext(zep)` the block is kept outside the stored history
    (so trimming contexts and `save_state` never see it) and the final reply of each run is saved.

    `query` searches the user's memory, `add` stores messages (metadata "role") in the thread and
    text or JSON in the user's graph, `clear` deletes this thread. Memory failures are logged and
    the agent goes on (the loop's `on_error` decides).

    The identity is `user_id` and `thread_id` (with the optional profile fields), or a zepkit
    `Identity` as `identity=`. Without one the loop's `on_error` hears of it once, when the memory
    is made, and the memory then stays empty: the agent runs without it.
    """

    component_type = "memory"

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        user_id: str | None = None,
        thread_id: str | None = None,
        first_name: str | None = None,
        last_name: str | None = None,
        email: str | None = None,
        identity: Identity | None = None,
    ) -> None:
        self.memory = check_memory(memory)
        self.identity = fixed_identity(
            identity,
            self.memory.failsoft,
            STAGE,
            user_id=user_id,
            thread_id=thread_id,
            first_name=first_name,
            last_name=last_name,
            email=email,
            hint=HINT,
        )
        self._turn_id: str | None = None
        self._last_block = ""

    def __repr__(self) -> str:
        ids = ", ".join(f"{key}={value!r}" for key, value in _ids(self).items()) or "no identity"
        return f"ZepMemory({ids}, backend={type(self.memory.backend).__name__})"

    # -- Form A: one block per run -----------------------------------------------------------

    @fail_soft("autogen update_context", _NOTHING_NEW, fields=_ids)
    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Save the user's newest message (once per run) and put this run's block in place of
        the last one. A run without a new user message keeps the block it has."""
        identity = self.identity
        text = newest_user_text(await model_context.get_messages())
        if identity is None or not text:
            self._turn_id = None
            return _NOTHING_NEW
        self._turn_id = f"autogen-{uuid.uuid4().hex}"
        block = await self.memory.begin_turn(identity, text, turn_id=self._turn_id)
        await self._place(model_context, block)
        if not block:
            return _NOTHING_NEW
        shown = MemoryContent(content=block, mime_type=MemoryMimeType.TEXT, metadata=_ids(self))
        return UpdateContextResult(memories=MemoryQueryResult(results=[shown]))

    async def _place(self, model_context: ChatCompletionContext, block: str) -> None:
        if isinstance(model_context, ZepChatCompletionContext):
            model_context.block = block
            return
        # Any other context: edit its stored messages (save_state holds all of them, while
        # get_messages may be a trimmed view), dropping earlier blocks and putting this one first.
        state = dict(await model_context.save_state())
        messages = [
            message
            for message in state.get("messages", [])
            if not self._is_our_block(message.get("type"), message.get("content"))
        ]
        if block:
            messages.insert(0, {"type": "SystemMessage", "content": block})
        state["messages"] = messages
        await model_context.load_state(state)
        self._last_block = block

    def _is_our_block(self, kind: Any, content: Any) -> bool:
        if kind != "SystemMessage":
            return False
        return bool(content) and (content == self._last_block or self.memory.is_block(content))

    async def capture_reply(self, text: str | None, *, name: str | None = None) -> bool:
        """Save the current run's final reply (once per run; tool calls and empty text are not
        replies). `ZepChatCompletionContext` calls this; call it yourself with the last message
        of `agent.run()` when you use another model context. True when it was stored."""
        if self._turn_id is None or self.identity is None:
            return False
        return await self.memory.capture_reply(
            self.identity, text, turn_id=self._turn_id, name=name
        )

    # -- the rest of the Memory protocol ----------------------------------------------------

    async def query(
        self,
        query: str | MemoryContent,
        cancellation_token: CancellationToken | None = None,
        **kwargs: Any,
    ) -> MemoryQueryResult:
        """Search this user's memory (or `graph_id=`, a shared graph); keyword arguments are the
        search options (`scope`, `limit`, `reranker`, ...). Empty results on a backend failure,
        and for a user search without an identity."""
        text = query.content if isinstance(query, MemoryContent) else query
        if not isinstance(text, str):
            raise TypeError(f"query must be text, got {type(text).__name__}")
        if kwargs.get("graph_id") is None:
            if self.identity is None:
                return _NO_MEMORIES
            kwargs.pop("graph_id", None)
            kwargs["user_id"] = self.identity.user_id
        results = await self.memory.search(text, **kwargs)
        return MemoryQueryResult(results=as_contents(results))

    @fail_soft("autogen add", None, fields=_add_fields)
    async def add(
        self, content: MemoryContent, cancellation_token: CancellationToken | None = None
    ) -> None:
        """Store `content`: with metadata "role" (and optionally "name") as a message of this
        thread, else text or JSON in the user's graph. Fail-soft: nothing here raises by default."""
        identity = self.identity
        if identity is None:
            return
        metadata = dict(content.metadata or {})
        role = metadata.pop("role", None)
        if role is None:
            data, kind = as_data(content)
            await self.memory.add_data(
                data, type=kind, user_id=identity.user_id, metadata=metadata or None
            )
            return
        text = content.content
        if not isinstance(text, str):
            raise TypeError(f"a message must be text, got {type(text).__name__}")
        message = Message(role, text, name=metadata.pop("name", None), metadata=metadata or None)
        await self.memory.provision(identity)
        await self.memory.add_messages(identity.thread_id, [message])

    @fail_soft("autogen clear", None, fields=_ids)
    async def clear(self) -> None:
        """Delete this thread and its messages (nothing else: facts already learned stay in the
        user's graph). Fail-soft; a thread that does not exist is already clear."""
        self._turn_id = None
        if self.identity is not None:
            with contextlib.suppress(NotFoundError):
                await self.memory.delete_thread(self.identity.thread_id)

    async def close(self) -> None:
        """End the current run's state. The `MemoryLoop` belongs to the caller and stays open."""
        self._turn_id = None
        self._last_block = ""

    # -- Form B -----------------------------------------------------------------------------

    def search_tool(self, *, graph_id: str | None = None, **pinned: Any) -> FunctionTool:
        """The memory search tool for this user (or the shared graph `graph_id`) as an AutoGen
        `FunctionTool`; `pinned` parameters are fixed and leave the model's schema. Without an
        identity the tool answers the model that it has no user (the app was told already)."""
        user = self.identity if self.identity is not None else ""
        return wrap_search(self.memory.search_tool(graph_id=graph_id, **pinned), user)
