"""Who a Pydantic AI run belongs to, read from the run's `deps` so one agent serves every user."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any, TypeAlias

from zepkit.core import ConfigurationError, Identity
from zepkit.core.spi import IdentityResolver as Resolver

IdentityResolver: TypeAlias = Callable[[Any], Identity | None]
"""Maps a run's `deps` to the `Identity` whose memory the run uses (None: no memory this run)."""


@dataclass(frozen=True)
class ZepDeps:
    """Run dependencies that carry the memory identity; subclass it to add the app's own fields."""

    user_id: str
    thread_id: str
    _: KW_ONLY
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None

    @property
    def identity(self) -> Identity:
        """The zepkit identity of these deps (raises ValueError on a blank id)."""
        return Identity(
            user_id=self.user_id,
            thread_id=self.thread_id,
            first_name=self.first_name,
            last_name=self.last_name,
            email=self.email,
        )


def _from_deps(deps: Any) -> Identity:
    """`ZepDeps` (or a subclass) and a bare `Identity` carry an identity; anything else is a
    mistake worth reporting."""
    if isinstance(deps, Identity):
        return deps
    if isinstance(deps, ZepDeps):
        return deps.identity
    raise ConfigurationError(
        f"deps of type {type(deps).__name__} carry no identity (pass ZepDeps(user_id, thread_id) "
        "as deps, or ZepMemory(identity=...))"
    )


def run_identity(identity: Identity | IdentityResolver | None) -> Resolver[Any]:
    """The run's identity from `deps`: the app's fixed `Identity` or callable, else `ZepDeps`."""
    return Resolver(_from_deps if identity is None else identity)
