"""The ASGI app: `/healthz`, the v4 dialect under `/api/v4` and the v3 one under `/api/v2`, every
route behind API-key auth and answering errors in Zep's shape (a 500 says only "internal error";
the traceback goes to the server's log, never to the client)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from zepkit.core import BackendUnavailableError, ZepkitError
from zepkit.server import openapi, v3, v4
from zepkit.server.auth import DEFAULT_PROJECT, KeyRing
from zepkit.server.dispatch import DirectApp, Endpoint, Routes
from zepkit.server.endpoints import Handler
from zepkit.server.errors import ApiError, error_response, from_backend
from zepkit.server.projects import BackendFactory, MemoryFactory, Projects

log = logging.getLogger("zepkit.server")
V4_PREFIX = "/api/v4"
V3_PREFIX = "/api/v2"  # the 3.x SDKs' base path
DIALECTS = ((V4_PREFIX, v4.ROUTES), (V3_PREFIX, v3.ROUTES))


def _endpoint(handler: Handler, projects: Projects, keys: KeyRing | None) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        try:
            if keys is None:
                name: str | None = DEFAULT_PROJECT
            else:
                name = keys.project(request.headers.get("authorization"))
            if name is None:
                raise ApiError(401, "unauthorized", "a valid API key is required")
            status, body = await handler(await projects.get(name), request)
        except ApiError as exc:
            return error_response(exc)
        except BackendUnavailableError as exc:
            log.warning("%s %s: backend unavailable: %s", request.method, request.url.path, exc)
            return error_response(ApiError(503, "unavailable", "the memory store is busy"))
        except ZepkitError as exc:
            mapped = from_backend(exc)
            if mapped is None:
                log.exception("%s %s failed", request.method, request.url.path)
                return error_response(ApiError(500, "internal", "internal error"))
            return error_response(mapped)
        except UnicodeEncodeError:  # text fields are made well formed: this is an id
            message = "an id holds a lone surrogate (half a character), which no store can hold"
            return error_response(ApiError(400, "invalid_request", message))
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return error_response(ApiError(500, "internal", "internal error"))
        return JSONResponse(body, status_code=status)

    return endpoint


async def _healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _http_error(request: Request, exc: Exception) -> Response:
    """Unknown paths and methods, in Zep's error shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    code = {404: "not_found", 405: "method_not_allowed"}.get(status, "error")
    detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
    return error_response(ApiError(status, code, str(detail)))


def create_app(
    data: str | Path,
    *,
    keys: KeyRing | None,
    backend_factory: BackendFactory | None = None,
    memory_factory: MemoryFactory | None = None,
) -> Starlette:
    """The server over the data folder `data`. Each project is on `backend_factory(path)` (one
    database per project; default: the local engine), or, with `memory_factory`, on the
    `MemoryLoop` that `memory_factory(project)` returns (any backend; ids reach it prefixed with
    `<project>:`, so projects sharing one store never meet). The data folder keeps each
    project's UUIDs either way. `keys=None` serves without auth, everything in the project
    `default`."""
    projects = Projects(data, backend_factory, memory_factory)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await projects.aclose()

    document = openapi.document(DIALECTS)

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(document)

    routes = [
        Route("/healthz", _healthz, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
    ]
    direct = Routes()
    for prefix, table in DIALECTS:
        for e in table:
            endpoint = _endpoint(e.handler, projects, keys)
            routes.append(Route(prefix + e.path, endpoint, methods=[e.method]))
            direct.add(e.method, prefix + e.path, endpoint)
    app = DirectApp(
        direct,
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error},
    )
    app.state.projects = projects
    return app
