"""The write tools, offered only with `read_write`: `memory_add` answers once the write is
stored (or kept in the durable outbox), and `memory_forget` deletes only with the code its dry
run gave for the same user and target."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from typing import Any, Literal

from mcp_types import CallToolResult, Tool

from zepkit.core import DataType, MemoryLoop, NotFoundError
from zepkit.mcp import _args
from zepkit.mcp._answers import (
    AddOut,
    ForgetOut,
    Spec,
    hints,
    no_thread,
    ok,
    output,
    refuse,
    schema,
)
from zepkit.mcp._args import BadArgument
from zepkit.mcp._manage import owns_thread, threads_of

DATA_KINDS: tuple[DataType, ...] = ("text", "json", "message")


class Writes:
    """The write tools of one server over `memory`."""

    def __init__(self, memory: MemoryLoop) -> None:
        self.memory = memory
        self._secret = secrets.token_bytes(32)  # confirm codes hold for this process only
        self.specs = [self._add_spec(), self._forget_spec()]

    # -- memory_add -------------------------------------------------------------------------

    def _add_spec(self) -> Spec:
        tool = Tool(
            name="memory_add",
            title="Remember",
            description=(
                "Store something in the user's long-term memory: a fact or note (kind text), "
                "a JSON document (kind json) or a line of conversation such as "
                "'Maya: I moved to Lisbon' (kind message). Answers once it is stored."
            ),
            input_schema=schema(
                {
                    "content": {"type": "string", "description": "What to remember."},
                    "kind": {"type": "string", "enum": list(DATA_KINDS), "default": "text"},
                    "occurred_at": {
                        "type": "string",
                        "description": "When it happened or was said (ISO 8601), if not now.",
                    },
                },
                required=("content",),
            ),
            output_schema=output(AddOut),
            annotations=hints(read_only=False, idempotent=False),
        )
        return Spec(tool, self._add, writes=True)

    async def _add(self, user_id: str, args: Mapping[str, Any]) -> CallToolResult:
        content = _args.text(args, "content", required=True)
        assert content is not None
        kind: Any = _args.choice(args, "kind", DATA_KINDS, "text")
        occurred_at = _args.moment(args, "occurred_at")
        memory = self.memory
        before = await _waiting(memory)
        stored = await memory.add_data(content, type=kind, user_id=user_id, created_at=occurred_at)
        queued = not stored and (await _waiting(memory)) > before
        data = AddOut(
            saved=bool(stored),
            queued=queued,
            episode_uuids=[episode.uuid for episode in stored],
            chars=len(content),
        )
        if stored:
            return ok(f"Stored in memory ({len(content):,} characters).", data)
        if queued:
            return ok(
                "Memory is unavailable, so this was kept in the durable outbox; it will be "
                "stored when memory is back.",
                data,
            )
        return refuse("Memory is unavailable right now; nothing was stored. Try again later.")

    # -- memory_forget ----------------------------------------------------------------------

    def _forget_spec(self) -> Spec:
        tool = Tool(
            name="memory_forget",
            title="Forget",
            description=(
                "Delete one of the user's conversations (`thread`) or everything memory holds "
                "about the user (`everything`: true). Without `confirm` nothing is deleted: the "
                "answer says what would go and gives a code; call again with that code as "
                "`confirm`, after the user agreed, to delete for good."
            ),
            input_schema=schema(
                {
                    "thread": {"type": "string", "description": "The thread id to delete."},
                    "everything": {
                        "type": "boolean",
                        "default": False,
                        "description": "Delete all of the user's memory.",
                    },
                    "confirm": {
                        "type": "string",
                        "description": "The code from the dry run; deletes for real.",
                    },
                }
            ),
            output_schema=output(ForgetOut),
            annotations=hints(read_only=False, destructive=True, idempotent=True),
        )
        return Spec(tool, self._forget, writes=True)

    def _code(self, user_id: str, target: str) -> str:
        mac = hmac.new(self._secret, f"{user_id}\0{target}".encode(), hashlib.sha256)
        return mac.hexdigest()[:10]

    async def _forget(self, user_id: str, args: Mapping[str, Any]) -> CallToolResult:
        thread_id = _args.text(args, "thread") or None
        everything = _args.flag(args, "everything")
        confirm = _args.text(args, "confirm")
        if (thread_id is None) == (not everything):
            raise BadArgument("give either `thread` (one conversation) or `everything`: true.")
        memory = self.memory
        if thread_id is not None:
            if not await owns_thread(memory, user_id, thread_id):
                return refuse(no_thread(thread_id))
            messages = len(await memory.get_messages(thread_id))
            target, threads = f"thread:{thread_id}", 1
            what = f"thread {thread_id!r} and its {_count(messages, 'message')}"
        else:
            threads = messages = 0
            async for thread in threads_of(memory, user_id):
                threads += 1
                messages += len(await memory.get_messages(thread.thread_id))
            target = "everything"
            what = (
                "everything memory holds about this user: "
                f"{_count(threads, 'thread')}, {_count(messages, 'message')}, and every fact, "
                "entity and note learned from them"
            )
        code = self._code(user_id, target)
        kind: Literal["thread", "everything"] = "thread" if thread_id else "everything"
        report = ForgetOut(
            dry_run=confirm is None,
            deleted=False,
            target=kind,
            thread_id=thread_id,
            threads=threads,
            messages=messages,
        )
        if confirm is None:
            report.confirm = code
            note = " Facts already learned from it stay in memory." if thread_id else ""
            return ok(
                f"Nothing deleted yet. This would delete {what}.{note} To delete for good, ask "
                f"the user, then call memory_forget again with the same target and "
                f"confirm={code!r}.",
                report,
            )
        if not hmac.compare_digest(confirm.strip(), code):
            raise BadArgument(
                "`confirm` does not match this target; call memory_forget without `confirm` "
                "first and pass back the code it gives."
            )
        if thread_id is not None:
            await memory.delete_thread(thread_id)
        else:
            with contextlib.suppress(NotFoundError):  # nothing stored for them: nothing to do
                await memory.delete_user(user_id)
        report.deleted = True
        return ok(f"Deleted {what}.", report)


async def _waiting(memory: MemoryLoop) -> int:
    status = await memory.outbox_status()
    return 0 if status is None else status.pending


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")
