"""The inspector page's JSON answers, over a `MemoryLoop` and the file's read-only views.

The views come from the backend (the local engine's `zepkit.local.inspect.Inspector`), handed in
by the `zepkit` command, so this module never imports a backend.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from zepkit.core._backend import UserProfile
from zepkit.core._errors import ConflictError, NotFoundError, ZepkitError
from zepkit.core._limits import MAX_MESSAGES_PER_CALL, MAX_PAGE_SIZE
from zepkit.core._loop import MemoryLoop
from zepkit.core._models import Identity, Message
from zepkit.core._validation import check_id, prepare_messages

CHARS_PER_TOKEN = 4
"""The token estimate: about four characters per token, the usual rule of thumb for English text
with byte-pair tokenizers. An estimate, not any one model's count."""


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` costs a model: characters / 4, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class MemoryFile(Protocol):
    """The read-only views the page needs beside the loop (see `zepkit.local.inspect`)."""

    async def facts(self, user_id: str) -> Any: ...

    async def entities(self, user_id: str) -> Any: ...

    async def preview_context(
        self, user: UserProfile, thread_id: str, messages: Sequence[Message]
    ) -> str | None: ...


class ApiError(Exception):
    """A request the page cannot answer: its HTTP status and a sentence for the user."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def jsonable(value: Any) -> Any:
    """Records, models, datetimes and containers as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: jsonable(getattr(value, field.name)) for field in dataclasses.fields(value)
        }
    if hasattr(value, "model_dump"):
        return jsonable(value.model_dump())
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    return value


class InspectorApi:
    """Answers `GET /api/...` reads and `POST /api/...` actions with JSON-ready values."""

    def __init__(
        self, memory: MemoryLoop, file: MemoryFile, *, database: str, allow_delete: bool
    ) -> None:
        self.memory = memory
        self.file = file
        self.database = database
        self.allow_delete = allow_delete

    async def get(self, route: str, query: Mapping[str, str]) -> Any:
        """The JSON for a read; `ApiError` for an unknown route or bad parameters."""
        try:
            if route == "info":
                return self._info()
            if route == "users":
                cursor, limit = _page(query)
                return jsonable(await self.memory.list_users(cursor=cursor, limit=limit))
            if route == "threads":
                user_id, (cursor, limit) = _param(query, "user_id"), _page(query)
                threads = await self.memory.list_threads(user_id, cursor=cursor, limit=limit)
                return jsonable(threads)
            if route == "messages":
                thread_id, (cursor, limit) = _param(query, "thread_id"), _page(query)
                said = await self.memory.list_messages(thread_id, cursor=cursor, limit=limit)
                return jsonable(said)
            if route == "facts":
                return jsonable(await self.file.facts(_param(query, "user_id")))
            if route == "entities":
                return jsonable(await self.file.entities(_param(query, "user_id")))
        except NotFoundError as exc:
            raise ApiError(404, str(exc)) from exc
        except ValueError as exc:
            raise ApiError(400, str(exc)) from exc
        raise ApiError(404, f"no such view: {route}")

    async def post(self, route: str, body: Mapping[str, Any]) -> Any:
        """The JSON for an action; `ApiError` when it is refused."""
        try:
            if route == "preview":
                return await self._preview(body)
            if route == "delete-thread":
                return await self._delete_thread(body)
            if route == "delete-user":
                return await self._delete_user(body)
        except NotFoundError as exc:
            raise ApiError(404, str(exc)) from exc
        except ConflictError as exc:
            raise ApiError(409, str(exc)) from exc
        except (ValueError, TypeError) as exc:
            raise ApiError(400, str(exc)) from exc
        raise ApiError(404, f"no such action: {route}")

    def _info(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "allow_delete": self.allow_delete,
            "chars_per_token": CHARS_PER_TOKEN,
        }

    async def _preview(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The block `begin_turn` would return for this message, computed without storing it."""
        user_id, thread_id = _field(body, "user_id"), _field(body, "thread_id")
        text = body.get("message")
        if not isinstance(text, str) or not text.strip():
            raise ValueError("type a message to preview the block it would get")
        profile = await self.memory.get_user(user_id)
        identity = Identity(
            user_id=user_id,
            thread_id=thread_id,
            first_name=profile.first_name,
            last_name=profile.last_name,
            email=profile.email,
        )
        prepared = prepare_messages([Message("user", text, name=identity.display_name)])
        if len(prepared) > MAX_MESSAGES_PER_CALL:
            raise ValueError("the message is too long to preview as one turn")
        user = UserProfile(user_id, profile.first_name, profile.last_name, profile.email)
        context = await self.file.preview_context(user, thread_id, prepared)
        block = self.memory.render(context)
        return {"block": block, "chars": len(block), "tokens": estimate_tokens(block)}

    async def _delete_thread(self, body: Mapping[str, Any]) -> dict[str, Any]:
        self._check_deletion(body, "thread_id")
        thread_id = _field(body, "thread_id")
        try:
            await self.memory.delete_thread(thread_id)
        except ZepkitError as exc:
            if isinstance(exc, NotFoundError | ConflictError):
                raise
            raise ApiError(500, f"the thread could not be deleted: {exc}") from exc
        return {"deleted": thread_id}

    async def _delete_user(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The user and everything of theirs; with `vacuum`, the file is rewritten too."""
        self._check_deletion(body, "user_id")
        user_id = _field(body, "user_id")
        vacuum = body.get("vacuum", False)
        if not isinstance(vacuum, bool):
            raise ValueError("the field vacuum must be true or false")
        try:
            await self.memory.delete_user(user_id, vacuum=vacuum)
        except ZepkitError as exc:
            if isinstance(exc, NotFoundError | ConflictError):
                raise
            raise ApiError(500, f"the user could not be deleted: {exc}") from exc
        return {"deleted": user_id, "vacuum": vacuum}

    def _check_deletion(self, body: Mapping[str, Any], field: str) -> None:
        """Deleting needs `--allow-delete` and the id typed again as `confirm`."""
        if not self.allow_delete:
            raise ApiError(403, "this page is read-only: start it with --allow-delete to delete")
        if body.get("confirm") != body.get(field):
            raise ApiError(400, f"type the {field.replace('_', ' ')} again to confirm")


def _param(query: Mapping[str, str], name: str) -> str:
    value = query.get(name)
    if value is None:
        raise ValueError(f"the parameter {name} is missing")
    check_id(value, name)
    return value


def _page(query: Mapping[str, str]) -> tuple[str | None, int]:
    """A listing's cursor (from the last page) and size (`limit`, at most `MAX_PAGE_SIZE`)."""
    text = query.get("limit", str(MAX_PAGE_SIZE))
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE_SIZE:
        raise ValueError(f"limit must be a whole number from 1 to {MAX_PAGE_SIZE}")
    return query.get("cursor") or None, int(text)


def _field(body: Mapping[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise ValueError(f"the field {name} must be a string")
    check_id(value, name)
    return value
