"""The fake's httpx side: every request recorded, faults injected on demand, and a write that
repeats an `Idempotency-Key` answered as the first time; what to answer is left to `_answer`."""

from __future__ import annotations

import asyncio
import fnmatch
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from zepkit.zep.testing._wire import HttpError, RecordedRequest, error_body

BASE_URL = "http://zep.test/api/v4"
_BASE_PATH = "/api/v4"


@dataclass(frozen=True)
class Fault:
    """What to do instead of (or before) answering normally.

    `delay` sleeps first; then `timeout` raises `httpx.ReadTimeout`, `connect_error` raises
    `httpx.ConnectError`, `invalid_json` answers 200 with a body that is not JSON, `drop_fields`
    answers normally minus those keys (at any depth), and `status` answers with that status,
    `headers` and `body` (a v4 error body by default). A delay alone then answers normally.
    """

    status: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    invalid_json: bool = False
    drop_fields: tuple[str, ...] = ()
    delay: float = 0.0
    timeout: bool = False
    connect_error: bool = False


@dataclass
class _Armed:
    fault: Fault
    remaining: int | None
    route: str | None


def _drop(value: Any, names: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: _drop(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [_drop(v, names) for v in value]
    return value


class RecordingTransport(httpx.AsyncBaseTransport):
    """An httpx transport that records, injects faults and replays idempotent writes; a subclass
    routes each request in `_route`."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._faults: list[_Armed] = []
        self._replies: dict[tuple[str, str, str], tuple[int, Any]] = {}

    def http_client(self) -> httpx.AsyncClient:
        """An httpx client whose every request lands in this fake."""
        return httpx.AsyncClient(transport=self)

    def fail(self, fault: Fault, *, times: int | None = 1, route: str | None = None) -> None:
        """Apply `fault` to the next `times` requests (None: all), optionally only to `route`, a
        pattern on "METHOD /path" such as "POST /threads/*/messages" or "* /users*"."""
        self._faults.append(_Armed(fault, times, route))

    def clear_faults(self) -> None:
        """Drop every armed fault."""
        self._faults.clear()

    def calls(self, method: str, path_pattern: str = "*") -> list[RecordedRequest]:
        """Recorded requests with this method whose path matches the glob pattern."""
        return [
            r
            for r in self.requests
            if r.method == method and fnmatch.fnmatchcase(r.path, path_pattern)
        ]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raw = await request.aread()
        path = request.url.path.removeprefix(_BASE_PATH) or "/"
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        recorded = RecordedRequest(
            method=request.method,
            path=path,
            query=dict(request.url.params),
            json=body,
            headers={k.lower(): v for k, v in request.headers.items()},
        )
        self.requests.append(recorded)
        fault = self._take_fault(recorded)
        if fault is not None:
            early = await self._apply_fault(fault, request)
            if early is not None:
                return early
        status, payload = self._answer(recorded)
        if fault is not None and fault.drop_fields:
            payload = _drop(payload, fault.drop_fields)
        return httpx.Response(status, json=payload, request=request)

    def _take_fault(self, request: RecordedRequest) -> Fault | None:
        target = f"{request.method} {request.path}"
        for armed in self._faults:
            if armed.route is not None and not fnmatch.fnmatchcase(target, armed.route):
                continue
            if armed.remaining is not None:
                armed.remaining -= 1
                if armed.remaining <= 0:
                    self._faults.remove(armed)
            return armed.fault
        return None

    async def _apply_fault(self, fault: Fault, request: httpx.Request) -> httpx.Response | None:
        if fault.delay:
            await asyncio.sleep(fault.delay)
        if fault.timeout:
            raise httpx.ReadTimeout("fake: no answer in time", request=request)
        if fault.connect_error:
            raise httpx.ConnectError("fake: connection refused", request=request)
        if fault.invalid_json:
            headers = {"content-type": "application/json"}
            return httpx.Response(200, content=b"{not json", headers=headers, request=request)
        if fault.status is None:
            return None
        body = fault.body if fault.body is not None else error_body("fault", "injected fault")
        return httpx.Response(fault.status, json=body, headers=dict(fault.headers), request=request)

    def _answer(self, request: RecordedRequest) -> tuple[int, Any]:
        """Route the request, replaying the stored answer to a repeated idempotency key."""
        key = request.headers.get("idempotency-key")
        replay_key = (request.method, request.path, key) if key else None
        if replay_key is not None and replay_key in self._replies:
            return self._replies[replay_key]
        try:
            answer = self._route(request)
        except HttpError as exc:
            return exc.status, error_body(exc.code, exc.message)
        if replay_key is not None and request.method != "GET" and answer[0] < 300:
            self._replies[replay_key] = answer
        return answer

    def _route(self, request: RecordedRequest) -> tuple[int, Any]:
        raise HttpError(404, "not_found", f"no route {request.method} {request.path}")
