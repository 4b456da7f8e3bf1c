"""What one route is: its path under the dialect's prefix, method, handler, and what the
OpenAPI document says of it (body model, query parameters, success status, a summary)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request

from zepkit.server.projects import Project

Answer = tuple[int, Any]
Handler = Callable[[Project, Request], Awaitable[Answer]]


@dataclass(frozen=True)
class Endpoint:
    path: str
    method: str
    handler: Handler
    summary: str
    body: type[BaseModel] | None = None
    query: tuple[str, ...] = ()
    status: int = 200
