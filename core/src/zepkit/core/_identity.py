"""Who a run belongs to, decided one way for every adapter: each adapter declares where its
framework keeps the ids, and this module applies the precedence, checks the result and reports a
missing identity through the loop's fail-soft policy (so `on_error` holds everywhere).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Generic, TypeAlias, TypeVar

from zepkit.core._errors import ConfigurationError
from zepkit.core._failsoft import FailSoft
from zepkit.core._models import Identity

Ctx = TypeVar("Ctx")

FIELDS = ("user_id", "thread_id", "first_name", "last_name", "email")
"""The identity's fields, in the order a lookup is read; the last three are the optional profile."""

IdentityFunction: TypeAlias = Callable[[Ctx], Identity | Awaitable[Identity | None] | None]
"""The app's own rule: the run's context -> its `Identity`, or None to run without memory."""

IdentitySource: TypeAlias = Identity | IdentityFunction[Ctx] | None
"""What an app hands an adapter: one fixed identity, its own rule, or None (the framework's ids)."""

Lookup: TypeAlias = Callable[[Ctx], Any]
"""Where a framework keeps identity fields for a run: returns a mapping or an object with them."""


def read_field(source: Any, key: str) -> str | None:
    """`source[key]` (a mapping) or `source.key` (an object), when it is a non-blank string or an
    integer (as text); anything else counts as absent."""
    if source is None:
        return None
    value = source.get(key) if isinstance(source, Mapping) else getattr(source, key, None)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


class IdentityResolver(Generic[Ctx]):
    """One adapter's identity precedence, declared in a few lines.

    `source` (the app's) wins: a fixed `Identity`, or a sync or async function of the run's
    context. Otherwise each field comes from the fixed `user_id` / `thread_id`, then from the
    `lookups` in order (each reads `prefix + field` from a mapping or an object), then the thread
    from `thread_fallback`. Profile fields are kept wherever they are found.
    """

    def __init__(
        self,
        source: IdentitySource[Ctx] = None,
        *,
        user_id: str | None = None,
        thread_id: str | None = None,
        lookups: Sequence[Lookup[Ctx]] = (),
        prefix: str = "",
        thread_fallback: Callable[[Ctx], str | None] | None = None,
        hint: str = "",
    ) -> None:
        if source is not None and not isinstance(source, Identity) and not callable(source):
            raise TypeError(
                "identity must be a zepkit Identity, a function of the run returning one, or "
                f"None, got {type(source).__name__}"
            )
        for name, value in (("user_id", user_id), ("thread_id", thread_id)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(f"{name} must be a non-empty string or None, got {value!r}")
        self.source = source
        self.fixed = {"user_id": user_id, "thread_id": thread_id}
        self.lookups = tuple(lookups)
        self.prefix = prefix
        self.thread_fallback = thread_fallback
        self.hint = hint

    async def find(self, ctx: Ctx) -> Identity | None:
        """The run's identity, or None when the app's function chose none; raises
        `ConfigurationError` when the identity is missing or invalid."""
        source = self.source
        if isinstance(source, Identity):
            return source
        if source is not None:
            found = source(ctx)
            if inspect.isawaitable(found):
                found = await found
            if found is not None and not isinstance(found, Identity):
                raise ConfigurationError(
                    f"the identity function returned {type(found).__name__}, not a zepkit Identity"
                )
            return found
        return self._from_fields(ctx)

    def _from_fields(self, ctx: Ctx) -> Identity:
        values: dict[str, str] = {k: v for k, v in self.fixed.items() if v is not None}
        places = [lookup(ctx) for lookup in self.lookups]
        for field in FIELDS:
            for place in places:
                if field in values:
                    break
                value = read_field(place, self.prefix + field)
                if value is not None:
                    values[field] = value
        if "thread_id" not in values and self.thread_fallback is not None:
            fallback = self.thread_fallback(ctx)
            if fallback:
                values["thread_id"] = fallback
        missing = [field for field in ("user_id", "thread_id") if field not in values]
        if missing:
            hint = f": {self.hint}" if self.hint else ""
            raise ConfigurationError(f"zepkit needs {' and '.join(missing)} for this run{hint}")
        try:
            return Identity(**values)
        except ValueError as exc:
            raise ConfigurationError(f"invalid identity for this run: {exc}") from None

    async def resolve(
        self, ctx: Ctx, failsoft: FailSoft, stage: str, *, report: bool = True
    ) -> Identity | None:
        """The run's identity; None means the run goes on without memory. Why there is none goes
        to `failsoft` as `stage` (unless the app's own function chose None); call sites that are
        not the run's first (a tool) pass `report=False`, so it is said once per run."""
        try:
            return await self.find(ctx)
        except Exception as exc:
            if report:
                failsoft.handle(stage, exc)
            return None

    def find_now(self, ctx: Ctx) -> Identity | None:
        """`find` for synchronous call sites; an async identity function is refused there."""
        source = self.source
        if source is None or isinstance(source, Identity):
            return source if isinstance(source, Identity) else self._from_fields(ctx)
        found = source(ctx)
        if inspect.isawaitable(found):
            if inspect.iscoroutine(found):
                found.close()
            raise ConfigurationError("this call site needs a synchronous identity function")
        if found is not None and not isinstance(found, Identity):
            raise ConfigurationError(
                f"the identity function returned {type(found).__name__}, not a zepkit Identity"
            )
        return found

    def resolve_now(
        self, ctx: Ctx, failsoft: FailSoft, stage: str, *, report: bool = True
    ) -> Identity | None:
        """`resolve` for synchronous call sites (see `find_now`)."""
        try:
            return self.find_now(ctx)
        except Exception as exc:
            if report:
                failsoft.handle(stage, exc)
            return None


def fixed_identity(
    identity: Identity | None,
    failsoft: FailSoft,
    stage: str,
    *,
    user_id: str | None = None,
    thread_id: str | None = None,
    first_name: str | None = None,
    last_name: str | None = None,
    email: str | None = None,
    hint: str = "",
) -> Identity | None:
    """The one identity of an adapter object fixed when it is made (a framework whose hooks carry
    no user): the app's `Identity`, else the ids and profile fields. A missing identity goes to
    `failsoft` as `stage`, once, here (None: the object keeps no memory); blank ids and both
    forms at once raise at once."""
    profile = {"first_name": first_name, "last_name": last_name, "email": email}
    given = (user_id, thread_id, *profile.values())
    if identity is not None and any(value is not None for value in given):
        raise ValueError("give either identity= or user_id=/thread_id= (and profile), not both")
    resolver = IdentityResolver[None](
        identity,
        user_id=user_id,
        thread_id=thread_id,
        lookups=(lambda _: profile,),
        hint=hint,
    )
    return resolver.resolve_now(None, failsoft, stage)
