"""`ZepStore`: a LangGraph `BaseStore` whose items also feed zepkit memory, and whose search with
a query is zepkit search."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from zepkit.core import MAX_SEARCH_LIMIT, MemoryLoop, Scope, SearchResults

USERS = "users"
_NAMESPACE_KEY = "langgraph_namespace"
_ITEM_KEY = "langgraph_key"


@dataclass(frozen=True)
class StoreTarget:
    """Where a namespace's items go in zepkit memory: one user's graph or one shared graph."""

    user_id: str | None = None
    graph_id: str | None = None

    def __post_init__(self) -> None:
        if (self.user_id is None) == (self.graph_id is None):
            raise ValueError("a StoreTarget names exactly one of user_id and graph_id")


NamespaceRule = Callable[[tuple[str, ...]], StoreTarget | None]


def default_namespace_target(namespace: tuple[str, ...]) -> StoreTarget | None:
    """The namespace -> memory rule: `("users", user_id, ...)` is that user's graph; any other
    namespace `(name, ...)` is the shared graph `name`; `()` and `("users",)` name no graph (their
    items stay in the delegate only, and a query search on them goes to the delegate)."""
    if not namespace or namespace == (USERS,):
        return None
    if namespace[0] == USERS:
        return StoreTarget(user_id=namespace[1])
    return StoreTarget(graph_id=namespace[0])


class ZepStore(BaseStore):
    """A hybrid store. Exact operations (`get`, `put`, `delete`, `list_namespaces`, and `search`
    without a query) go to `delegate` (a fresh `InMemoryStore` by default; any `BaseStore`).
    Each `put` also adds the value, as JSON, to zepkit memory for the namespace's user or shared
    graph (`namespace_target`; `default_namespace_target` maps `("users", user_id, ...)` to the
    user and `(name, ...)` to the shared graph `name`). Items put with `index=False` are not added.

    `search` with a query asks zepkit. With `scope="episodes"` (the default) the hits are the
    store's own items under the namespace prefix, ranked by zepkit, with their current value from
    the delegate (a deleted item no longer comes back). With `"edges"` or `"nodes"` the hits are
    the facts or entities zepkit learned from everything in that graph (chat included), as
    `SearchItem`s keyed by their uuid. `filter` matches value fields by equality.
    Memory failures are fail-soft (the loop's `on_error` policy); the delegate's are not.
    """

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        delegate: BaseStore | None = None,
        namespace_target: NamespaceRule = default_namespace_target,
        scope: Scope = "episodes",
    ) -> None:
        if scope not in ("episodes", "edges", "nodes"):
            raise ValueError(f"scope must be 'episodes', 'edges' or 'nodes', got {scope!r}")
        self.memory = memory
        self.delegate = delegate if delegate is not None else InMemoryStore()
        self.namespace_target = namespace_target
        self.scope = scope
        self.supports_ttl = self.delegate.supports_ttl
        self.ttl_config = self.delegate.ttl_config
        self._users: set[str] = set()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run `ops` in order: the delegate's share on the delegate, memory through the loop."""
        plan = _Plan(self, list(ops))
        plan.take_delegated(self.delegate.batch(plan.delegated_ops))
        found = self.memory.sync.run(plan.zepkit())
        lookups = plan.lookups(found)
        return plan.finish(found, self.delegate.batch(lookups) if lookups else [])

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async twin of `batch`."""
        plan = _Plan(self, list(ops))
        plan.take_delegated(await self.delegate.abatch(plan.delegated_ops))
        found = await plan.zepkit()
        lookups = plan.lookups(found)
        return plan.finish(found, await self.delegate.abatch(lookups) if lookups else [])

    async def _mirror(self, op: PutOp, target: StoreTarget) -> None:
        """Add a put's value to memory (fail-soft, like every memory write)."""
        try:
            if target.user_id is not None and target.user_id not in self._users:
                await self.memory.ensure_user(target.user_id)
                self._users.add(target.user_id)
        except Exception as exc:
            self.memory.failsoft.handle("store put", exc, user_id=target.user_id)
            return
        await self.memory.add_data(
            json.dumps(op.value, default=str, ensure_ascii=False),
            type="json",
            user_id=target.user_id,
            graph_id=target.graph_id,
            metadata={_NAMESPACE_KEY: json.dumps(list(op.namespace)), _ITEM_KEY: op.key},
        )

    async def _search(self, op: SearchOp, target: StoreTarget) -> SearchResults:
        wanted = op.offset + op.limit
        limit = min(MAX_SEARCH_LIMIT, wanted if self.scope != "episodes" else 2 * wanted + 10)
        return await self.memory.search(
            str(op.query),
            user_id=target.user_id,
            graph_id=target.graph_id,
            scope=self.scope,
            limit=max(limit, 1),
        )


@dataclass
class _Plan:
    """One batch split between the delegate and zepkit, then put back in the caller's order."""

    store: ZepStore
    ops: list[Op]
    results: list[Result] = field(default_factory=list)
    delegated: list[int] = field(default_factory=list)
    searches: list[tuple[int, StoreTarget]] = field(default_factory=list)
    mirrors: list[tuple[PutOp, StoreTarget]] = field(default_factory=list)
    _hits: list[list[tuple[tuple[str, ...], str, float | None]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.results = [None] * len(self.ops)
        rule = self.store.namespace_target
        for index, op in enumerate(self.ops):
            if isinstance(op, SearchOp) and op.query and (target := rule(op.namespace_prefix)):
                self.searches.append((index, target))
                continue
            self.delegated.append(index)
            if not isinstance(op, PutOp) or op.value is None or op.index is False:
                continue
            if (target := rule(op.namespace)) is not None:
                self.mirrors.append((op, target))

    @property
    def delegated_ops(self) -> list[Op]:
        return [self.ops[index] for index in self.delegated]

    def take_delegated(self, results: Sequence[Result]) -> None:
        for index, result in zip(self.delegated, results, strict=True):
            self.results[index] = result

    async def zepkit(self) -> list[SearchResults]:
        """Mirror the puts, then run the searches (so a batch reads its own writes)."""
        for op, target in self.mirrors:
            await self.store._mirror(op, target)
        return [
            await self.store._search(self.ops[index], target)  # type: ignore[arg-type]
            for index, target in self.searches
        ]

    def lookups(self, found: Sequence[SearchResults]) -> list[Op]:
        """For episode hits: `GetOp`s fetching the current items they came from."""
        if self.store.scope != "episodes":
            return []
        lookups: list[Op] = []
        for (index, _), results in zip(self.searches, found, strict=True):
            op = self.ops[index]
            assert isinstance(op, SearchOp)
            hits = _store_hits(results, op.namespace_prefix)
            self._hits.append(hits)
            lookups += [GetOp(namespace, key) for namespace, key, _ in hits]
        return lookups

    def finish(self, found: Sequence[SearchResults], items: Sequence[Result]) -> list[Result]:
        pending = iter(items)
        for position, ((index, _), results) in enumerate(zip(self.searches, found, strict=True)):
            op = self.ops[index]
            assert isinstance(op, SearchOp)
            if self.store.scope == "episodes":
                hits = self._hits[position]
                matched = [
                    _search_item(item, score)
                    for (_, _, score), item in zip(hits, pending, strict=False)
                    if isinstance(item, Item)
                ]
            else:
                matched = _learned_items(results, op.namespace_prefix)
            matched = [item for item in matched if _matches(item.value, op.filter)]
            self.results[index] = matched[op.offset : op.offset + op.limit]
        return self.results


def _store_hits(
    results: SearchResults, prefix: tuple[str, ...]
) -> list[tuple[tuple[str, ...], str, float | None]]:
    """The store items that episode hits came from, best first, once each, under `prefix`."""
    seen: set[tuple[tuple[str, ...], str]] = set()
    hits: list[tuple[tuple[str, ...], str, float | None]] = []
    for episode in results.episodes:
        meta = episode.metadata or {}
        if _NAMESPACE_KEY not in meta or _ITEM_KEY not in meta:
            continue  # a chat message or data not written by a ZepStore
        namespace = tuple(json.loads(meta[_NAMESPACE_KEY]))
        key = str(meta[_ITEM_KEY])
        if namespace[: len(prefix)] != prefix or (namespace, key) in seen:
            continue
        seen.add((namespace, key))
        hits.append((namespace, key, episode.score))
    return hits


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        item.namespace, item.key, item.value, item.created_at, item.updated_at, score=score
    )


def _learned_items(results: SearchResults, prefix: tuple[str, ...]) -> list[SearchItem]:
    """Facts or entities as search items under the searched prefix, keyed by their uuid."""
    now = datetime.now(UTC)
    items = [
        SearchItem(
            prefix,
            fact.uuid,
            {"fact": fact.fact, "valid_at": fact.valid_at, "invalid_at": fact.invalid_at},
            fact.created_at or now,
            fact.created_at or now,
            score=fact.score,
        )
        for fact in results.edges
    ]
    items += [
        SearchItem(
            prefix,
            node.uuid,
            {"name": node.name, "summary": node.summary, "labels": node.labels},
            node.created_at or now,
            node.created_at or now,
            score=node.score,
        )
        for node in results.nodes
    ]
    return items


def _matches(value: dict[str, Any], conditions: dict[str, Any] | None) -> bool:
    return not conditions or all(value.get(key) == want for key, want in conditions.items())
