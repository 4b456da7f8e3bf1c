"""Who a Pydantic AI run belongs to, read from the run's `deps` so one agent serves every user."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any, TypeAlias

from zepkit.core import Identity

logger = logging.getLogger("zepkit.pydantic_ai")

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


def default_resolver(deps: Any) -> Identity | None:
    """`ZepDeps` (or a subclass) and a bare `Identity` carry an identity; anything else does not."""
    if isinstance(deps, Identity):
        return deps
    if isinstance(deps, ZepDeps):
        return deps.identity
    return None


def resolve(resolver: IdentityResolver, deps: Any, *, report: bool = False) -> Identity | None:
    """The run's identity, or None. With `report`, say why there is none (once per run)."""
    try:
        identity = resolver(deps)
    except Exception as exc:  # a resolver bug or a blank id must not crash the run
        if report:
            logger.warning(
                "no memory for this run: resolving the identity from deps of type %s failed (%s)",
                type(deps).__name__,
                type(exc).__name__,
            )
        return None
    if identity is not None and not isinstance(identity, Identity):
        if report:
            logger.warning(
                "no memory for this run: the identity resolver returned %s, not a zepkit Identity",
                type(identity).__name__,
            )
        return None
    if identity is None and report:
        # Unrecognised deps are likely a mistake; a resolver's None is a deliberate choice.
        logger.log(
            logging.WARNING if resolver is default_resolver else logging.INFO,
            "no memory for this run: deps of type %s carry no identity "
            "(pass ZepDeps(user_id, thread_id) as deps, or ZepMemory(identity=...))",
            type(deps).__name__,
        )
    return identity
