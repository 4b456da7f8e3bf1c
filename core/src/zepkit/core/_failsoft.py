"""The fail-soft policy: memory trouble is logged and absorbed so the agent's turn goes on.

Log lines carry the stage, ids and lengths only, never message content or keys.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, Concatenate, Literal, ParamSpec, Protocol, TypeAlias, TypeVar

from zepkit.core._errors import ZepkitError

logger = logging.getLogger("zepkit.core")

ErrorCallback: TypeAlias = Callable[[str, BaseException], None]
OnError: TypeAlias = Literal["log", "raise"] | ErrorCallback

P = ParamSpec("P")
T = TypeVar("T")
D = TypeVar("D")


class FailSoft:
    """Applies `on_error`: "log" (default) logs a WARNING, "raise" re-raises, a callable is called
    with `(stage, exc)` (and may itself raise to stop the turn)."""

    def __init__(self, on_error: OnError = "log") -> None:
        if on_error not in ("log", "raise") and not callable(on_error):
            raise ValueError(f"on_error must be 'log', 'raise' or a callable, got {on_error!r}")
        self.on_error = on_error

    def handle(self, stage: str, exc: BaseException, **fields: object) -> None:
        """Deal with `exc` raised during `stage`; `fields` are ids and lengths for the log line."""
        if self.on_error == "raise":
            raise exc
        if callable(self.on_error):
            self.on_error(stage, exc)
            return
        detail = f": {exc}" if isinstance(exc, ZepkitError) else ""
        context = " ".join(f"{key}={value!r}" for key, value in fields.items())
        logger.warning(
            "zepkit %s failed (%s%s) %s; the turn continues without memory",
            stage,
            type(exc).__name__,
            detail,
            context,
        )
        logger.debug("zepkit %s failure detail", stage, exc_info=exc)


class HasFailSoft(Protocol):
    """An adapter object holding a loop (`self.memory`) whose policy applies to its hooks."""

    @property
    def memory(self) -> _HasPolicy: ...


class _HasPolicy(Protocol):
    @property
    def failsoft(self) -> FailSoft: ...


S = TypeVar("S", bound=HasFailSoft)

Fields: TypeAlias = Callable[..., Mapping[str, object]]
"""The ids and lengths a guarded hook's log line carries: called with the hook's own arguments
(`self` first), it must not raise."""


def _absorb(
    stage: str,
    exc: Exception,
    fields: Fields | None,
    self: HasFailSoft,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """Hand a hook's exception to `self.memory`'s policy (which may raise it)."""
    found = dict(fields(self, *args, **kwargs)) if fields is not None else {}
    self.memory.failsoft.handle(stage, exc, **found)


def fail_soft(
    stage: str, default: D, *, fields: Fields | None = None
) -> Callable[
    [Callable[Concatenate[S, P], Awaitable[T]]],
    Callable[Concatenate[S, P], Coroutine[Any, Any, T | D]],
]:
    """Make an adapter's async hook method fail-soft: an exception goes to `self.memory`'s policy
    as `stage` (with `fields(self, *args, **kwargs)` in the log line), and the hook returns
    `default` (the framework's turn goes on)."""

    def decorate(
        method: Callable[Concatenate[S, P], Awaitable[T]],
    ) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T | D]]:
        @functools.wraps(method)
        async def guarded(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T | D:
            try:
                return await method(self, *args, **kwargs)
            except Exception as exc:
                _absorb(stage, exc, fields, self, args, kwargs)
                return default

        return guarded

    return decorate


def fail_soft_sync(
    stage: str, default: D, *, fields: Fields | None = None
) -> Callable[[Callable[Concatenate[S, P], T]], Callable[Concatenate[S, P], T | D]]:
    """`fail_soft` for the synchronous hooks of blocking frameworks (CrewAI's LLM-call hooks)."""

    def decorate(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T | D]:
        @functools.wraps(method)
        def guarded(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T | D:
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:
                _absorb(stage, exc, fields, self, args, kwargs)
                return default

        return guarded

    return decorate
