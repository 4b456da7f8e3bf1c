"""Zep-shaped error answers: `{"error": {"code", "message", "param", "request_id"}}` with Zep's
status codes, so the SDKs raise the same typed errors they raise against Zep."""

from __future__ import annotations

import uuid

from starlette.responses import JSONResponse

from zepkit.core import (
    ConflictError,
    NotFoundError,
    UnsupportedError,
)


class ApiError(Exception):
    """An answer other than success: status, a machine code, a sentence and the field at fault."""

    def __init__(self, status: int, code: str, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.param = status, code, message, param


def bad_request(
    message: str, *, param: str | None = None, code: str = "invalid_request"
) -> ApiError:
    return ApiError(400, code, message, param=param)


def not_found(what: str) -> ApiError:
    return ApiError(404, "not_found", f"{what} not found")


def error_response(error: ApiError) -> JSONResponse:
    body: dict[str, object] = {
        "code": error.code,
        "message": error.message,
        "request_id": str(uuid.uuid4()),
    }
    if error.param is not None:
        body["param"] = error.param
    return JSONResponse({"error": body}, status_code=error.status)


def from_backend(exc: Exception) -> ApiError | None:
    """The wire error for a backend's typed error; None for one that is the server's fault."""
    if isinstance(exc, NotFoundError):
        return ApiError(404, "not_found", str(exc))
    if isinstance(exc, ConflictError):
        return ApiError(409, "conflict", str(exc))
    if isinstance(exc, UnsupportedError):
        return ApiError(400, "unsupported", str(exc))
    return None
