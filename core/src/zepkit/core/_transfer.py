"""Export and import of memory as JSON Lines, between any two backends through the core API.

The format (version 1) is one JSON object per line, each with a `type`: a `header` line first,
then per user a `user` line, a `data` line per item added to their graph, a `fact` line per fact
derived for them (to read; an import skips them), and per thread of theirs a `thread` line
followed by its `message` lines, oldest first. README.md ("Managing
memory") documents every field.

An import is idempotent: before it writes to a thread it reads what the thread already holds and
skips the messages found there in the same order (and the data items found there), so a re-run
adds nothing and an interrupted import, run again, completes it with exactly one copy of each.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, TextIO, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from zepkit.core._backend import UserProfile
from zepkit.core._errors import ConflictError
from zepkit.core._limits import MAX_DATA_CHARS, MAX_MESSAGES_PER_CALL, MAX_PAGE_SIZE
from zepkit.core._loop import MemoryLoop
from zepkit.core._models import (
    DataType,
    Episode,
    Fact,
    Message,
    Page,
    Role,
    ThreadInfo,
    UserInfo,
)
from zepkit.core._validation import check_id, prepare_messages

T = TypeVar("T")

FORMAT = "zepkit-export"
VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class HeaderRecord(_Record):
    type: Literal["header"]
    format: Literal["zepkit-export"]
    version: int
    exported_at: datetime | None = None


class UserRecord(_Record):
    type: Literal["user"]
    user_id: str
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    metadata: dict[str, Any] | None = None
    created_at: datetime | None = None


class ThreadRecord(_Record):
    type: Literal["thread"]
    thread_id: str
    user_id: str
    created_at: datetime | None = None


class DataRecord(_Record):
    type: Literal["data"]
    user_id: str
    data_type: DataType
    content: str
    created_at: datetime | None = None
    metadata: dict[str, Any] | None = None


class FactRecord(_Record):
    """A fact a backend derived: exported to be read, never imported (the target derives its
    own from the messages and data)."""

    type: Literal["fact"]
    user_id: str
    fact: str


class MessageRecord(_Record):
    type: Literal["message"]
    thread_id: str
    seq: int
    role: Role
    content: str
    name: str | None = None
    created_at: datetime | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class TransferCounts:
    """What an export wrote or an import read: users, threads, messages, data items and facts
    (an import reads facts but never writes them). For an import, `messages_there` and
    `data_there` count the messages and data items of the file that the target held already (a
    re-run, or the part done before an interruption), and `skipped` the stored parts and items
    it passed over (a long message is stored as several parts)."""

    users: int = 0
    threads: int = 0
    messages: int = 0
    data: int = 0
    facts: int = 0
    skipped: int = 0
    messages_there: int = 0
    data_there: int = 0

    def summary(self) -> str:
        """What an export wrote (or a file holds): "2 users, 3 threads, 70 messages, ..."."""
        text = (
            f"{self.users} users, {self.threads} threads, {self.messages} messages, "
            f"{self.data} data items, {self.facts} facts"
        )
        return text + (f" ({self.skipped} already there)" if self.skipped else "")

    def import_summary(self) -> str:
        """What an import did: the users and threads it set up, the messages and data items it
        stored, those it found already there, and the facts it read and left out."""
        text = (
            f"{self.users} users, {self.threads} threads, "
            f"{self.messages - self.messages_there} messages, "
            f"{self.data - self.data_there} data items"
        )
        notes = []
        if self.messages_there or self.data_there:
            notes.append(
                f"{self.messages_there} messages and {self.data_there} data items already there"
            )
        if self.facts:
            notes.append(f"{self.facts} facts not imported: the target derives its own")
        return text + (f" ({'; '.join(notes)})" if notes else "")


Progress = Callable[[TransferCounts], None]


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


async def _pages(fetch: Callable[[str | None], Awaitable[Page[T]]]) -> AsyncIterator[T]:
    """Every item of a listing, page after page."""
    cursor: str | None = None
    while True:
        page = await fetch(cursor)
        for item in page.items:
            yield item
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def _users(memory: MemoryLoop) -> AsyncIterator[UserInfo]:
    return _pages(lambda cursor: memory.list_users(cursor=cursor, limit=MAX_PAGE_SIZE))


def _threads(memory: MemoryLoop, user_id: str) -> AsyncIterator[ThreadInfo]:
    return _pages(lambda cursor: memory.list_threads(user_id, cursor=cursor, limit=MAX_PAGE_SIZE))


def _data(memory: MemoryLoop, user_id: str) -> AsyncIterator[Episode]:
    return _pages(lambda cursor: memory.list_data(user_id, cursor=cursor, limit=MAX_PAGE_SIZE))


def _facts(memory: MemoryLoop, user_id: str) -> AsyncIterator[Fact]:
    return _pages(lambda cursor: memory.list_facts(user_id, cursor=cursor, limit=MAX_PAGE_SIZE))


def _messages(memory: MemoryLoop, thread_id: str) -> AsyncIterator[Message]:
    return _pages(
        lambda cursor: memory.list_messages(thread_id, cursor=cursor, limit=MAX_PAGE_SIZE)
    )


async def export_memory(
    memory: MemoryLoop,
    out: TextIO,
    *,
    user_ids: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> TransferCounts:
    """Write the memory's users (all, or those in `user_ids`) with their data, facts, threads
    and messages to `out` as JSON Lines; the counts written. An unknown user in `user_ids`
    raises `NotFoundError` before anything is written. Not a snapshot: writes made meanwhile
    may or may not be in it."""
    counts = TransferCounts()
    users: list[UserInfo] = []
    if isinstance(user_ids, str):
        raise TypeError("user_ids must be a list of ids, not one string")
    if user_ids is not None:
        users = [await memory.get_user(check_id(user_id, "user_id")) for user_id in user_ids]
    header = {"type": "header", "format": FORMAT, "version": VERSION}
    out.write(_line({**header, "exported_at": datetime.now(UTC).isoformat()}))

    async def chosen() -> AsyncIterator[UserInfo]:
        for user in users:
            yield user

    async for user in chosen() if user_ids is not None else _users(memory):
        out.write(_line({"type": "user", **user.model_dump(mode="json")}))
        counts.users += 1
        async for item in _data(memory, user.user_id):
            fields: dict[str, Any] = {"type": "data", "user_id": user.user_id}
            fields |= {"data_type": item.source, "content": item.content}
            fields |= item.model_dump(mode="json", include={"created_at", "metadata"})
            out.write(_line(fields))
            counts.data += 1
        async for fact in _facts(memory, user.user_id):
            fields = {"type": "fact", "user_id": user.user_id}
            fields |= fact.model_dump(mode="json", exclude={"score"})
            out.write(_line(fields))
            counts.facts += 1
        async for thread in _threads(memory, user.user_id):
            out.write(_line({"type": "thread", **thread.model_dump(mode="json")}))
            counts.threads += 1
            seq = 0
            async for message in _messages(memory, thread.thread_id):
                fields = message.model_dump(mode="json", exclude={"uuid"})
                out.write(
                    _line({"type": "message", "thread_id": thread.thread_id, "seq": seq, **fields})
                )
                seq += 1
                counts.messages += 1
                if progress is not None:
                    progress(counts)
    return counts


_RECORDS: dict[str, type[_Record]] = {
    "header": HeaderRecord,
    "user": UserRecord,
    "thread": ThreadRecord,
    "data": DataRecord,
    "fact": FactRecord,
    "message": MessageRecord,
}


def _parse(number: int, text: str) -> _Record:
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"line {number}: not JSON ({exc})") from None
    kind = raw.get("type") if isinstance(raw, dict) else None
    model = _RECORDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        known = ", ".join(_RECORDS)
        raise ValueError(f"line {number}: unknown record type {kind!r} (known: {known})")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}" for error in exc.errors()
        )
        raise ValueError(f"line {number}: invalid {kind} record ({problems})") from None


def _import_key(thread_id: str, position: int, batch: Sequence[Message]) -> str:
    """The same batch of the same import gets the same key, so a backend drops a repeat."""
    body = json.dumps(
        [thread_id, position, [[m.role, m.content, _time(m.created_at)] for m in batch]],
        ensure_ascii=False,
    )
    return "import-" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


class _ThreadImport:
    """One thread being imported: what the target already held, and messages waiting to go."""

    def __init__(self, record: ThreadRecord, stored: list[Message]) -> None:
        self.record = record
        self.stored = stored
        self.position = 0  # messages of the target thread accounted for so far
        self.next_seq = 0
        self.pending: list[Message] = []

    def take(self, number: int, message: Message) -> tuple[int, int]:
        """Account for one message (split like any write): (how many of its parts were there,
        how many parts it has)."""
        found = 0
        parts = prepare_messages([message])
        for part in parts:
            if self.position < len(self.stored):
                held = self.stored[self.position]
                if (held.role, held.content) != (part.role, part.content):
                    raise ConflictError(
                        f"line {number}: thread {self.record.thread_id!r} already holds other "
                        f"messages (at position {self.position}); import into a new or empty "
                        "thread, or delete it first"
                    )
                found += 1
            else:
                self.pending.append(part)
            self.position += 1
        return found, len(parts)

    async def flush(self, memory: MemoryLoop, *, all_of_it: bool) -> None:
        while len(self.pending) >= MAX_MESSAGES_PER_CALL or (all_of_it and self.pending):
            batch = self.pending[:MAX_MESSAGES_PER_CALL]
            first = self.position - len(self.pending)
            await memory.backend.add_messages(
                self.record.thread_id,
                batch,
                user_id=self.record.user_id,
                idempotency_key=_import_key(self.record.thread_id, first, batch),
            )
            del self.pending[: len(batch)]


class _Importer:
    """The state of one import: the users and threads seen so far and what the target held."""

    def __init__(self, memory: MemoryLoop) -> None:
        self.memory = memory
        self.counts = TransferCounts()
        self.users: dict[str, Counter[tuple[str, str, datetime | None]] | None] = {}
        self.threads: dict[str, _ThreadImport] = {}

    async def user(self, record: UserRecord) -> None:
        check_id(record.user_id, "user_id")
        profile = UserProfile(
            record.user_id, record.first_name, record.last_name, record.email, record.metadata
        )
        await self.memory.backend.ensure_user(profile)
        self.users.setdefault(record.user_id, None)
        self.counts.users += 1

    def _owner(self, number: int, what: str, user_id: str) -> None:
        if user_id not in self.users:
            raise ValueError(
                f"line {number}: {what} comes before the record of its user {user_id!r}"
            )

    async def data(self, number: int, record: DataRecord) -> None:
        self._owner(number, "data", record.user_id)
        if len(record.content) > MAX_DATA_CHARS:
            raise ValueError(
                f"line {number}: data of {len(record.content):,} characters; an item holds at "
                f"most {MAX_DATA_CHARS:,}"
            )
        held = self.users[record.user_id]
        if held is None:  # what the target holds already, read once per user
            held = Counter(
                [
                    (item.source, item.content, _utc(item.created_at))
                    async for item in _data(self.memory, record.user_id)
                ]
            )
            self.users[record.user_id] = held
        key = (record.data_type, record.content, _utc(record.created_at))
        self.counts.data += 1
        if held[key] > 0:
            held[key] -= 1
            self.counts.skipped += 1
            self.counts.data_there += 1
            return
        await self.memory.backend.add_data(
            record.content,
            type=record.data_type,
            user_id=record.user_id,
            created_at=record.created_at,
            metadata=record.metadata,
        )

    async def thread(self, number: int, record: ThreadRecord) -> None:
        check_id(record.thread_id, "thread_id")
        self._owner(number, f"thread {record.thread_id!r}", record.user_id)
        await self.flush()  # one thread at a time: write what waits
        await self.memory.backend.ensure_thread(record.thread_id, record.user_id)
        stored = [message async for message in _messages(self.memory, record.thread_id)]
        self.threads[record.thread_id] = _ThreadImport(record, stored)
        self.counts.threads += 1

    async def message(self, number: int, record: MessageRecord) -> None:
        thread = self.threads.get(record.thread_id)
        if thread is None:
            raise ValueError(
                f"line {number}: message of thread {record.thread_id!r} comes before that "
                "thread's record"
            )
        if record.seq != thread.next_seq:
            raise ValueError(
                f"line {number}: message seq {record.seq} of thread {record.thread_id!r} "
                f"where {thread.next_seq} was expected (messages must come in order)"
            )
        thread.next_seq += 1
        message = Message(
            record.role, record.content, record.name, record.created_at, record.metadata
        )
        found, parts = thread.take(number, message)
        self.counts.skipped += found
        self.counts.messages_there += bool(parts) and found == parts
        self.counts.messages += 1
        await thread.flush(self.memory, all_of_it=False)

    async def flush(self) -> None:
        for thread in self.threads.values():
            await thread.flush(self.memory, all_of_it=True)


def _utc(value: datetime | None) -> datetime | None:
    """Times compared as instants (a naive one taken as UTC, as the backends store it)."""
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)


def _check_header(number: int, record: _Record) -> None:
    if not isinstance(record, HeaderRecord):
        raise ValueError(f"line {number}: not a zepkit export (no header line first)")
    if record.version > VERSION:
        raise ValueError(
            f"line {number}: export format version {record.version} is newer than the "
            f"{VERSION} this zepkit reads; upgrade zepkit"
        )


async def import_memory(
    memory: MemoryLoop, lines: Iterable[str], *, progress: Progress | None = None
) -> TransferCounts:
    """Read an export (an iterable of its lines, such as an open file) into the memory: users are
    ensured (their profile fields set), their data added, threads created for them, and messages
    written in order with their roles, names, times and metadata. Idempotent (see the module's
    docstring). Bad input raises `ValueError` naming the line; a thread that already holds other
    messages raises `ConflictError`. The counts read."""
    importer = _Importer(memory)
    header = False
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        record = _parse(number, text)
        if not header:
            _check_header(number, record)
            header = True
        elif isinstance(record, UserRecord):
            await importer.user(record)
        elif isinstance(record, DataRecord):
            await importer.data(number, record)
        elif isinstance(record, ThreadRecord):
            await importer.thread(number, record)
        elif isinstance(record, MessageRecord):
            await importer.message(number, record)
        elif isinstance(record, FactRecord):
            importer.counts.facts += 1  # informational: the target derives its own
        else:
            raise ValueError(f"line {number}: a second header line")
        if progress is not None and isinstance(record, MessageRecord | DataRecord):
            progress(importer.counts)
    if not header:
        raise ValueError("not a zepkit export: the file is empty")
    await importer.flush()
    return importer.counts
