"""Search parameters parsed once, for `MemoryLoop.search` (strict) and the search tool (soft).

One parser holds every rule: the query (non-blank, clipped to `MAX_QUERY_CHARS`), the scope or
scopes, the reranker each scope accepts, the limit, and the knobs of one reranker (`mmr_lambda`,
defaulting to 0.5 under mmr; `center_node_uuid`, required by node_distance). A knob sent with
another reranker is dropped. Strict mode raises a `ValueError` or `TypeError` naming the field;
soft mode returns the sentence a model reads instead, and clamps an out-of-range limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from zepkit.core._backend import Capabilities, SearchRequest
from zepkit.core._limits import DEFAULT_MMR_LAMBDA, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT
from zepkit.core._models import RERANKERS, SCOPES, Reranker, Scope, SearchResults
from zepkit.core._validation import clip_query

ALL: Literal["all"] = "all"
"""The scope name for facts, entities and episodes at once (those the backend has)."""

ALL_SCOPES: tuple[Scope, ...] = ("edges", "nodes", "episodes")
PINNABLE = frozenset({"scope", "reranker", "limit", "mmr_lambda", "center_node_uuid"})


class _Invalid(Exception):
    """One bad argument: the exception a caller gets and the sentence a model gets."""

    def __init__(self, error: Exception, sentence: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.sentence = f"Error: {sentence}"


@dataclass(frozen=True)
class SearchParams:
    """One validated search, before its target (a user's graph or a shared graph) is known."""

    query: str
    scopes: tuple[Scope, ...] = ("edges",)
    reranker: Reranker | None = "rrf"
    limit: int = DEFAULT_SEARCH_LIMIT
    mmr_lambda: float | None = None
    center_node_uuid: str | None = None

    @classmethod
    def parse(
        cls,
        raw: Mapping[str, Any],
        caps: Capabilities,
        *,
        strict: bool,
        offered: Sequence[str] | None = None,
    ) -> SearchParams | str:
        """`raw` as parameters (a missing or None value takes the default; reranker None means
        the backend's own). `offered` narrows the scopes a model may choose (default: all the
        backend has, and "all"). Strict raises; soft returns a sentence."""
        try:
            return cls._parse(raw, caps, strict=strict, offered=offered)
        except _Invalid as bad:
            if strict:
                raise bad.error from None
            return bad.sentence

    @classmethod
    def _parse(
        cls,
        raw: Mapping[str, Any],
        caps: Capabilities,
        *,
        strict: bool,
        offered: Sequence[str] | None,
    ) -> SearchParams:
        query = _query(raw.get("query"))
        scopes = parse_scopes(raw.get("scope"), caps, offered)
        reranker = _reranker(raw.get("reranker", "rrf"), scopes, caps)
        limit = _limit(raw.get("limit"), strict=strict)
        mmr_lambda = _mmr_lambda(raw.get("mmr_lambda"))
        center = _center(raw.get("center_node_uuid"))
        if reranker == "node_distance" and center is None:
            raise _Invalid(
                ValueError("reranker 'node_distance' needs center_node_uuid"),
                "reranker 'node_distance' needs center_node_uuid.",
            )
        if reranker == "mmr" and mmr_lambda is None:
            mmr_lambda = DEFAULT_MMR_LAMBDA
        return cls(
            query=query,
            scopes=scopes,
            reranker=reranker,
            limit=limit,
            mmr_lambda=mmr_lambda if reranker == "mmr" else None,
            center_node_uuid=center if reranker == "node_distance" else None,
        )

    def requests(
        self, *, user_id: str | None = None, graph_id: str | None = None
    ) -> list[SearchRequest]:
        """One backend request per scope, on the given target."""
        return [
            SearchRequest(
                query=self.query,
                user_id=user_id,
                graph_id=graph_id,
                scope=scope,
                reranker=None if scope == "auto" else self.reranker,
                limit=self.limit,
                mmr_lambda=self.mmr_lambda,
                center_node_uuid=self.center_node_uuid,
            )
            for scope in self.scopes
        ]


def check_pins(pinned: Mapping[str, Any], caps: Capabilities, offered: Sequence[str]) -> None:
    """Raise for a pinned value the backend cannot honour: a programming error, caught when the
    tool is built. A pinned reranker must suit every scope the model may choose."""
    unknown = set(pinned) - PINNABLE
    if unknown:
        raise ValueError(f"cannot pin {sorted(unknown)}; pinnable parameters: {sorted(PINNABLE)}")
    try:
        scopes = tuple(cast(Scope, s) for s in offered if s != ALL)
        if pinned.get("scope") is not None:
            scopes = parse_scopes(pinned["scope"], caps, None)
        if pinned.get("reranker") is not None:
            _reranker(pinned["reranker"], scopes, caps)
        if pinned.get("limit") is not None:
            _limit(pinned["limit"], strict=True)
        _mmr_lambda(pinned.get("mmr_lambda"))
        _center(pinned.get("center_node_uuid"))
    except _Invalid as bad:
        raise ValueError(str(bad.error)) from None


def check_search_options(caps: Capabilities, **options: Any) -> None:
    """Fixed search options (an adapter's `scope=`, `limit=`, ...) checked once, strictly, by the
    rules a search applies: a `ValueError` naming the option."""
    check_pins(options, caps, offered_scopes(caps, options.get("scope"), offer_all=True))


def offered_scopes(caps: Capabilities, pinned_scope: object, *, offer_all: bool) -> tuple[str, ...]:
    """The scopes a model may choose: the backend's, plus "all" when asked and possible; only the
    pinned one when a scope is pinned."""
    scopes: tuple[str, ...] = tuple(s for s in SCOPES if s in caps.rerankers)
    multi = [s for s in ALL_SCOPES if s in scopes]
    if (offer_all or pinned_scope == ALL) and multi:
        scopes = (*scopes, ALL)
    if isinstance(pinned_scope, str):
        return tuple(s for s in scopes if s == pinned_scope)
    return scopes


def parse_scopes(
    value: object, caps: Capabilities, offered: Sequence[str] | None
) -> tuple[Scope, ...]:
    """A scope name, "all" or a sequence of names, as the scopes to search (in order, once each).
    "auto" returns a context block, not a list, so it is never combined with another scope."""
    if offered is None:
        offered = offered_scopes(caps, None, offer_all=True)
    if value is None:
        value = "edges"
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, Sequence) or not names:
        raise _Invalid(
            TypeError(f"scope must be a scope name or a sequence of them, got {value!r}"),
            f"scope {value!r} is not available; choose one of {list(offered)}.",
        )
    scopes: list[Scope] = []
    for name in names:
        if not isinstance(name, str) or name not in offered:
            raise _Invalid(
                ValueError(
                    f"scope {name!r} is not supported; supported: {list(caps.scopes)} or {ALL!r}"
                ),
                f"scope {name!r} is not available; choose one of {list(offered)}.",
            )
        found = [s for s in ALL_SCOPES if s in caps.rerankers] if name == ALL else [name]
        scopes += [cast(Scope, s) for s in found if s not in scopes]
    if "auto" in scopes and len(scopes) > 1:
        raise _Invalid(
            ValueError("scope 'auto' returns a context block and cannot be combined"),
            "scope 'auto' cannot be combined with other scopes.",
        )
    return tuple(scopes)


def _query(value: object) -> str:
    if not isinstance(value, str):
        raise _Invalid(
            TypeError(f"query must be a string, got {type(value).__name__}"),
            "empty search query. Put the words to look for in `query`.",
        )
    if not value.strip():
        raise _Invalid(
            ValueError("query must be a non-empty string"),
            "empty search query. Put the words to look for in `query`.",
        )
    return clip_query(value)


def _reranker(value: object, scopes: tuple[Scope, ...], caps: Capabilities) -> Reranker | None:
    ranked = [s for s in scopes if s != "auto"]
    if value is None or not ranked:
        return None
    for scope in ranked:
        if value not in RERANKERS or not caps.supports(scope, str(value)):
            valid = sorted(caps.rerankers[scope])
            raise _Invalid(
                ValueError(f"reranker {value!r} is not valid for scope {scope!r}; valid: {valid}"),
                f"reranker {value!r} cannot be used with scope {scope!r}; use one of {valid}.",
            )
    return cast(Reranker, value)


def _limit(value: object, *, strict: bool) -> int:
    """Strict: an integer from 1 to 50. Soft: any finite number, clamped into that range."""
    if value is None:
        return DEFAULT_SEARCH_LIMIT
    sentence = f"limit must be a whole number between 1 and {MAX_SEARCH_LIMIT}."
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Invalid(TypeError(f"limit must be an integer, got {type(value).__name__}"), sentence)
    if strict:
        if not isinstance(value, int):
            raise _Invalid(
                TypeError(f"limit must be an integer, got {type(value).__name__}"), sentence
            )
        if not 1 <= value <= MAX_SEARCH_LIMIT:
            raise _Invalid(
                ValueError(f"limit must be between 1 and {MAX_SEARCH_LIMIT}, got {value}"),
                sentence,
            )
        return value
    if not math.isfinite(value):
        raise _Invalid(ValueError(f"limit must be finite, got {value}"), sentence)
    return min(max(int(value), 1), MAX_SEARCH_LIMIT)


def _mmr_lambda(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise _Invalid(
            ValueError(f"mmr_lambda must be between 0 and 1, got {value!r}"),
            "mmr_lambda must be a number between 0 and 1.",
        )
    return float(value)


def _center(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _Invalid(
            ValueError(f"center_node_uuid must be a non-empty string, got {value!r}"),
            "center_node_uuid must be the uuid of an entity.",
        )
    return value


def merge_results(parts: Sequence[SearchResults]) -> SearchResults:
    """The results of one search per scope as one: each scope's list, in the order searched."""
    if len(parts) == 1:
        return parts[0]
    merged = SearchResults(
        scope=parts[0].scope if parts else "edges", scopes=tuple(p.scope for p in parts)
    )
    for part in parts:
        merged.edges.extend(part.edges)
        merged.nodes.extend(part.nodes)
        merged.episodes.extend(part.episodes)
    return merged
