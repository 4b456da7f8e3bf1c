"""Typed errors. Provisioning raises them; the turn path turns them into log lines (fail-soft)."""

from __future__ import annotations


class ZepkitError(Exception):
    """Base class of every error zepkit raises on purpose."""


class ConfigurationError(ZepkitError):
    """zepkit was set up wrongly (a missing key, a missing SQLite feature, a bad template)."""


class BackendError(ZepkitError):
    """The memory backend failed to do what it was asked."""


class NotFoundError(BackendError):
    """A user, thread or graph the call names does not exist."""


class ConflictError(BackendError):
    """The call contradicts what is stored, e.g. a thread id already owned by another user."""


class AuthenticationError(BackendError):
    """The backend rejected the credentials."""


class RateLimitError(BackendError):
    """The backend asked zepkit to slow down."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BackendUnavailableError(BackendError):
    """The backend could not be reached or answered with a server error or a timeout."""


class UnsupportedError(BackendError):
    """The backend does not support this scope, reranker or operation (see its capabilities)."""
