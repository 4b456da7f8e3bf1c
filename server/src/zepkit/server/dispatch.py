"""The API's requests go straight to their endpoints: a table keyed by method, segment count and
resource picks the route, where Starlette's router would try each route's pattern in turn and
pass every request through its middleware. Anything the table does not match exactly (an
unknown path, another method, HEAD, a trailing slash, an empty path parameter, a root path)
goes to the Starlette app, which answers as before."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

Endpoint = Callable[[Request], Awaitable[Response]]
_Key = tuple[str, int, str]
_Pattern = tuple[tuple[str | None, ...], tuple[tuple[int, str], ...], Endpoint]


def _key(method: str, segments: Sequence[str]) -> _Key:
    """Routes are told apart first by method, segment count and the resource's segment (the
    third: `/api/v4/<resource>/...`); a parameter there keys as empty."""
    return method, len(segments), segments[3] if len(segments) > 3 else ""


class Routes:
    """(method, path) -> (endpoint, path parameters) for routes whose parameters are whole
    segments (`{name}`, Starlette's default `str` convertor: any non-empty text without `/`)."""

    def __init__(self) -> None:
        self._table: dict[_Key, list[_Pattern]] = {}

    def add(self, method: str, path: str, endpoint: Endpoint) -> None:
        segments = path.split("/")
        if len(segments) > 3 and segments[3].startswith("{"):
            raise ValueError(f"the resource segment of {path!r} must be literal")
        literals = tuple(None if s.startswith("{") else s for s in segments)
        params = tuple((n, s[1:-1]) for n, s in enumerate(segments) if s.startswith("{"))
        if any(":" in name for _, name in params):
            raise ValueError(f"only whole-segment str parameters here, not {path!r}")
        self._table.setdefault(_key(method, segments), []).append((literals, params, endpoint))

    def match(self, method: str, path: str) -> tuple[Endpoint, dict[str, str]] | None:
        segments = path.split("/")
        for literals, params, endpoint in self._table.get(_key(method, segments), ()):
            if all(
                literal == segment if literal is not None else segment
                for literal, segment in zip(literals, segments, strict=True)
            ):
                return endpoint, {name: segments[n] for n, name in params}
        return None


class DirectApp(Starlette):
    """A Starlette app that serves the routes in `direct` itself (the endpoint answers every
    error in Zep's shape, so Starlette's middleware has nothing to add there), and everything
    else, lifespan included, as Starlette does."""

    def __init__(self, direct: Routes, **options: Any) -> None:
        super().__init__(**options)
        self.direct = direct

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            found = self.direct.match(scope["method"], scope["path"])
            if found is not None:
                endpoint, scope["path_params"] = found
                scope["app"] = self
                response = await endpoint(Request(scope, receive, send))
                await response(scope, receive, send)
                return
        await super().__call__(scope, receive, send)
