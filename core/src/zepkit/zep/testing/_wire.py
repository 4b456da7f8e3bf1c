"""What Zep's v4 wire looks like to the fake: JSON bodies, error bodies, ids, times and pages."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake received it; `path` is relative to the API base (`/users`)."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    headers: dict[str, str]


class HttpError(Exception):
    """An answer other than success, raised by an endpoint: status, v4 error code, message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error_body(code: str, message: str) -> Json:
    """A v4 error body."""
    return {"error": {"code": code, "message": message, "request_id": new_id()}}


def timestamp() -> str:
    """The current time as Zep writes it (UTC, `Z`)."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def new_id() -> str:
    """A fresh server UUID."""
    return str(uuid.uuid4())


def paged(request: RecordedRequest, items: list[Json]) -> Json:
    """One page of a listing as Zep answers it: `page_size`, an opaque `cursor`, `order_by` a
    field (insertion order breaks ties) and `order` asc (the default) or desc."""
    order_by = request.query.get("order_by")
    if order_by is not None:
        if any(order_by not in item for item in items):
            raise HttpError(400, "invalid_request", f"cannot order by {order_by}")
        items = sorted(items, key=lambda item: str(item[order_by] or ""))
    if request.query.get("order", "asc") == "desc":
        items = items[::-1]
    try:
        size = int(request.query.get("page_size", "50"))
        start = int(request.query.get("cursor") or "0")
    except ValueError:
        raise HttpError(400, "invalid_request", "page_size and cursor are invalid") from None
    if not 1 <= size <= 1000 or start < 0:
        raise HttpError(400, "invalid_request", "page_size must be 1 to 1000")
    more = start + size < len(items)
    return {
        "items": items[start : start + size],
        "next_cursor": str(start + size) if more else None,
        "total_size": len(items),
    }
