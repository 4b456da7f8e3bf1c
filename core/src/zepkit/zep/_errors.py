"""Zep SDK and transport failures, translated into zepkit's typed errors.

Messages carry the operation, the HTTP status, Zep's error code and request id, and the ids the
call named; never a request or response body, which may hold message content.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pydantic
from zep_cloud.core.api_error import ApiError
from zep_cloud.core.parse_error import ParsingError

from zepkit.core._errors import (
    AuthenticationError,
    BackendError,
    BackendUnavailableError,
    ConflictError,
    NotFoundError,
    RateLimitError,
    ZepkitError,
)

KEY_HINT = "check ZEP_API_KEY (export ZEP_API_KEY=... or pass api_key=)"


def describe(**ids: object) -> str:
    """`user_id='a' thread_id='t'` for the ids that are set."""
    return " ".join(f"{key}={value!r}" for key, value in ids.items() if value is not None)


def _error_code(body: Any) -> str:
    """Zep's machine-readable error code and request id, when the body has them."""
    error = getattr(body, "error", None)
    if error is None and isinstance(body, dict):
        error = body.get("error")
    if isinstance(error, dict):
        code, request_id = error.get("code"), error.get("request_id")
    else:
        code, request_id = getattr(error, "code", None), getattr(error, "request_id", None)
    parts = [
        f"code={code}" if isinstance(code, str) else "",
        f"request_id={request_id}" if isinstance(request_id, str) else "",
    ]
    return " ".join(part for part in parts if part)


def _retry_after(headers: dict[str, str] | None) -> float | None:
    value = {k.lower(): v for k, v in (headers or {}).items()}.get("retry-after")
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None


def from_status(
    status: int | None, headers: dict[str, str] | None, body: Any, where: str
) -> BackendError:
    """The typed error for an HTTP answer that was not a success."""
    code = _error_code(body)
    detail = f"{where}: HTTP {status}{f' ({code})' if code else ''}"
    if status in (401, 403):
        return AuthenticationError(f"{detail}: Zep rejected the API key; {KEY_HINT}")
    if status == 404:
        return NotFoundError(f"{detail}: not found")
    if status == 409:
        return ConflictError(f"{detail}: conflict")
    if status == 429:
        retry_after = _retry_after(headers)
        return RateLimitError(f"{detail}: rate limited by Zep", retry_after=retry_after)
    if status == 408 or (status is not None and status >= 500):
        return BackendUnavailableError(f"{detail}: Zep is unavailable")
    if status is not None and 200 <= status < 300:
        return BackendError(f"{detail}: malformed response from Zep")
    return BackendError(f"{detail}: request rejected by Zep")


def translate(exc: BaseException, where: str) -> BackendError:
    """The typed error for any failure of one SDK call."""
    if isinstance(exc, ParsingError):
        if exc.status_code is not None and exc.status_code >= 300:
            return from_status(exc.status_code, exc.headers, exc.body, where)
        return BackendError(f"{where}: malformed response from Zep (HTTP {exc.status_code})")
    if isinstance(exc, ApiError):
        return from_status(exc.status_code, exc.headers, exc.body, where)
    if isinstance(exc, httpx.TimeoutException):
        name = type(exc).__name__
        return BackendUnavailableError(f"{where}: Zep did not answer in time ({name})")
    if isinstance(exc, httpx.TransportError):
        return BackendUnavailableError(f"{where}: cannot reach Zep ({type(exc).__name__})")
    if isinstance(exc, pydantic.ValidationError | ValueError | KeyError | TypeError):
        return BackendError(f"{where}: malformed response from Zep ({type(exc).__name__})")
    return BackendError(f"{where}: {type(exc).__name__}")


@contextmanager
def zep_errors(operation: str, **ids: object) -> Iterator[None]:
    """Run SDK calls inside; anything they raise leaves as a zepkit `BackendError`."""
    try:
        yield
    except ZepkitError:
        raise
    except UnicodeEncodeError as exc:
        # The request could not be encoded: an id with half a character (a lone surrogate;
        # texts are mended before this) is the caller's error, as `check_id` reports it.
        where = f"Zep {operation} ({describe(**ids)})"
        raise ValueError(
            f"{where}: a lone surrogate (half a character) cannot be sent: {exc.reason}"
        ) from None
    except Exception as exc:
        # `from None`: SDK errors print response bodies, which may hold message content.
        raise translate(exc, f"Zep {operation} ({describe(**ids)})") from None
