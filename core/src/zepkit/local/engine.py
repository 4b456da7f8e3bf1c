"""The local engine's operations, synchronous: each call is one unit of work on one connection.

`LocalBackend` runs these on its worker thread; nothing here knows about event loops.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeVar

from zepkit.core._backend import Capabilities, SearchRequest, UserProfile
from zepkit.core._errors import (
    ConfigurationError,
    ConflictError,
    NotFoundError,
    UnsupportedError,
)
from zepkit.core._models import (
    DATA_TYPES,
    DataType,
    Episode,
    Fact,
    Message,
    Page,
    SearchResults,
    ThreadInfo,
    UserInfo,
    merged_metadata,
)
from zepkit.core._unicode import well_formed
from zepkit.local import backfill, deletion, jobs, listing, provision, writekeys
from zepkit.local.answers import Lead, lead_of
from zepkit.local.askback import asks_back
from zepkit.local.codec import encode_metadata, encode_time, now
from zepkit.local.connection import read_transaction, try_write_lock, write_transaction
from zepkit.local.dense import BlockVector, Dense
from zepkit.local.drafts import Draft, draft_data, draft_message
from zepkit.local.extraction import Extractor
from zepkit.local.hybrid import Retrieval
from zepkit.local.ids import row_uuids
from zepkit.local.ingest import write_episodes, write_messages
from zepkit.local.retrieval import thread_statements
from zepkit.local.schema import migrate
from zepkit.local.search import (
    BLOCK_POOL,
    TurnMatches,
    context_block,
    match_block_turns,
    search_scope,
)
from zepkit.local.stats import sentence_counts
from zepkit.local.text import MAX_QUERY_TERMS, query_terms

T = TypeVar("T")
_RERANKERS = frozenset({"rrf", "mmr"})
CAPABILITIES = Capabilities(
    rerankers={
        "edges": _RERANKERS,
        "nodes": _RERANKERS,
        "episodes": _RERANKERS,
        "auto": frozenset(),
    }
)

CONTEXT_MESSAGES = 4
"""Like Zep, a thread's context is searched with its last four messages."""
THREAD_MESSAGES_EXCLUDED = 200
"""A block never repeats what the thread's latest messages (up to this many) already say."""


@dataclass(frozen=True)
class BlockQuery:
    """What a thread's context block searches with, read in one snapshot: the thread's last
    messages' terms and text, the statements it already says, the mean of those messages' stored
    vectors (dense retrieval), and the lexical half read ahead (inside a write)."""

    graph: int
    messages: list[int]
    terms: list[str]
    query: str
    exclude: dict[int, str]
    vector: Any = None
    ahead: TurnMatches | None = None
    nearest: list[tuple[int, float]] | None = None
    """The episodes nearest `vector` (the block's pool), when found ahead (inside the write)."""
    own: Mapping[str, int] = field(default_factory=dict)
    """What those messages add to the graph's term counts (`sentence_counts`)."""
    asked_back: bool = False
    """Whether the user's messages among them ask back what the assistant said (`asks_back`)."""


@dataclass(frozen=True)
class PreparedMessages:
    """Messages read and drafted ahead of their write (`Engine.prepare_messages`)."""

    thread_id: str
    drafts: list[Draft]
    pending: Future[Any] | None
    """Their vectors being computed on the embedding thread."""
    vectors: Any
    """Their vectors, when computed already (None when pending or dense retrieval is off)."""


class Engine:
    """Every backend operation as a plain method over one SQLite connection."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        extractor: Extractor,
        *,
        mode: str = "lexical",
        dense: Dense | None = None,
        llm_jobs: bool = False,
    ) -> None:
        self._conn = conn
        self._llm_jobs = llm_jobs
        self._extractor = extractor
        self._dense = dense
        self._lexical = mode != "dense"
        self._embedding: ThreadPoolExecutor | None = None

    def _retrieval(self, query: str) -> Retrieval:
        return Retrieval(query, self._dense, self._lexical)

    def _vectors(self, texts: Sequence[str]) -> Any:
        """Unit vectors for new episodes, or None when dense retrieval is off."""
        return None if self._dense is None or not texts else self._dense.vectors(texts)

    def _store(self, conn: sqlite3.Connection, episodes: Sequence[int], vectors: Any) -> None:
        if self._dense is not None and vectors is not None:
            self._dense.store(conn, episodes, vectors)

    def _stored(self, episodes: Sequence[int], vectors: Any) -> None:
        """Tell the vector index about vectors once their transaction has committed."""
        if self._dense is not None and vectors is not None and len(episodes):
            self._dense.index.added(episodes, vectors)

    def embed_missing(self, after: int, limit: int) -> tuple[list[int], int]:
        """Give up to `limit` episodes with ids above `after` and no vector one, oldest first:
        (the ids seen, how many got a vector)."""
        if self._dense is None:
            raise ConfigurationError(
                "this backend searches lexically: open it with retriever 'hybrid' or 'dense' "
                "(or 'auto' with the extra embeddings installed) to make vectors"
            )
        model = self._dense.embedder.model_id
        with read_transaction(self._conn) as conn:
            rows = backfill.missing(conn, model, after, limit)
        if not rows:
            return [], 0
        vectors = self._dense.vectors([content for _, content in rows])  # outside the write lock
        with write_transaction(self._conn) as conn:
            kept = set(backfill.still_stored(conn, [episode for episode, _ in rows]))
            picked = [n for n, (episode, _) in enumerate(rows) if episode in kept]
            self._dense.store(conn, [rows[n][0] for n in picked], vectors[picked])
        self._stored([rows[n][0] for n in picked], vectors[picked])
        return [episode for episode, _ in rows], len(picked)

    def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on this engine's connection (the LLM extraction worker's reads and writes)."""
        return work(self._conn)

    def close(self) -> None:
        """Close the connection (a WAL checkpoint runs when the last connection closes)."""
        if self._embedding is not None:
            self._embedding.shutdown()
        if self._dense is not None:
            self._dense.index.close()
        self._conn.close()

    def ensure_user(self, user: UserProfile) -> bool:
        """See `Backend.ensure_user`."""
        with write_transaction(self._conn) as conn:
            return provision.ensure_user(conn, user)

    def ensure_thread(self, thread_id: str, user_id: str) -> bool:
        """See `Backend.ensure_thread`."""
        with write_transaction(self._conn) as conn:
            return provision.ensure_thread(conn, thread_id, user_id)

    def ensure_graph(self, graph_id: str) -> bool:
        """See `Backend.ensure_graph`."""
        with write_transaction(self._conn) as conn:
            return provision.ensure_graph(conn, "shared", graph_id)[1]

    def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        return_context: bool,
        user_id: str | None = None,
        key: str | None = None,
    ) -> str | None:
        """Store the messages in one transaction; then, if asked, the context after the write.
        With `user_id`, the thread must belong to that user (checked inside the transaction);
        with `key`, a write already stored under that key is not stored again."""
        prepared = self.prepare_messages(thread_id, messages)
        return self.store_messages(prepared, return_context, user_id, key)

    def prepare_messages(self, thread_id: str, messages: Sequence[Message]) -> PreparedMessages:
        """The first half of `add_messages`, before its write lock: the messages read by the
        extractor, and their vectors (being) computed."""
        texts = [message.content for message in messages]
        # An in-process embedder starts first and runs on its own thread while this one reads
        # the messages and writes them and, when a block is wanted, reads its lexical half; a
        # remote one answers before the write, so it never holds the write lock.
        pending = self._embed_beside(texts)
        drafts = [
            draft_message(self._extractor, message, lead)
            for message, lead in zip(messages, self._leads(thread_id, messages), strict=True)
        ]
        vectors = self._vectors(texts) if pending is None else None
        return PreparedMessages(thread_id, drafts, pending, vectors)

    def store_messages(
        self,
        prepared: PreparedMessages,
        return_context: bool,
        user_id: str | None = None,
        key: str | None = None,
        *,
        locked: bool = False,
    ) -> str | None:
        """The second half of `add_messages`: the write, then the context if asked. `locked`:
        the write transaction was begun by the caller (`try_write_lock`)."""
        pending, vectors = prepared.pending, prepared.vectors
        block: BlockQuery | None = None
        dense_half: Future[BlockVector] | None = None
        try:
            with write_transaction(self._conn, locked=locked) as conn:
                thread = provision.find_thread(conn, prepared.thread_id)
                if user_id is not None and thread.user_id != user_id:
                    raise ConflictError(f"thread {prepared.thread_id!r} belongs to another user")
                if key is not None and not writekeys.claim(conn, key):
                    episodes: list[int] = []  # a replay of a write that is already stored
                    vectors = None
                else:
                    episodes = write_messages(
                        conn,
                        thread=thread.id,
                        graph=thread.graph,
                        user_name=thread.user_name,
                        drafts=prepared.drafts,
                    )
                    if self._llm_jobs:  # queued with the messages: a crash loses neither
                        jobs.enqueue(conn, thread.id, episodes)
                if return_context and pending is not None and self._lexical:
                    # While the embedding thread works (and then finds the block's nearest
                    # episodes): the block's lexical half, read as of this write (what a read
                    # after the commit sees, unless another write slips between).
                    block = self._block_query(conn, thread)
                    dense_half = self._dense_half(conn, block, episodes, pending)
                    if block.terms:
                        ahead = match_block_turns(conn, block.graph, block.terms, block.own)
                        block = replace(block, ahead=ahead)
                if pending is not None and episodes:
                    vectors = pending.result()
                self._store(conn, episodes, vectors)
                if block is not None and dense_half is None:
                    block = self._with_vector(conn, block)
        except BaseException:
            if dense_half is not None:  # it took the vectors into the index: they did not commit
                wait([dense_half])
                self._forget(thread.graph)
            raise
        if dense_half is None:
            self._stored(episodes, vectors)
        elif block is not None:
            try:
                found = dense_half.result()
            except BaseException:
                self._forget(thread.graph)  # whether it took the vectors in is not known
                raise
            block = replace(block, vector=found.vector, nearest=found.nearest)
        if not return_context:
            return None
        return self._context(prepared.thread_id, block)

    def _forget(self, graph: int) -> None:
        """Drop a graph's matrix from the vector index (read again at its next search)."""
        if self._dense is not None:
            self._dense.index.forget(graph)

    def try_write_lock(self) -> bool:
        """Begin a write transaction if SQLite's write lock is free, without waiting for it
        (for `store_messages(..., locked=True)`)."""
        return try_write_lock(self._conn)

    def _leads(self, thread_id: str, messages: Sequence[Message]) -> list[Lead | None]:
        """For each message, what came just before it when it is the user's (see `Lead`): the
        messages before it in `messages`, and for the first ones the thread's last two stored
        (read before the write, so a concurrent write to the thread may slip between)."""
        if not any(message.role == "user" for message in messages):
            return [None] * len(messages)
        history: list[tuple[str, str]] = []
        if messages[0].role == "user":
            history = self._conn.execute(
                "SELECT m.role, m.content FROM message_rows m JOIN threads t ON t.id = m.thread "
                "WHERE t.thread_id = ? ORDER BY m.id DESC LIMIT 2",
                (thread_id,),
            ).fetchall()[::-1]
        leads: list[Lead | None] = []
        for message in messages:
            leads.append(lead_of(history) if message.role == "user" else None)
            history.append((message.role, message.content))
        return leads

    def _embed_beside(self, texts: Sequence[str]) -> Future[Any] | None:
        """The texts' vectors being computed on the embedding thread, when the embedder runs in
        this process (None otherwise, or when dense retrieval is off)."""
        dense = self._dense
        if dense is None or not texts or getattr(dense.embedder, "in_process", False) is not True:
            return None
        return self._embedding_thread().submit(dense.vectors_later(texts))

    def _embed_query_beside(self, query: str) -> Future[Any] | None:
        """The query's vector being computed on the embedding thread, when the embedder runs in
        this process and dense retrieval is on (None otherwise)."""
        dense = self._dense
        if dense is None or getattr(dense.embedder, "in_process", False) is not True:
            return None
        return self._embedding_thread().submit(dense.query_vector, query)

    def _embedding_thread(self) -> ThreadPoolExecutor:
        """The one thread that embeds beside this engine's SQLite work (made on first use)."""
        if self._embedding is None:
            self._embedding = ThreadPoolExecutor(1, thread_name_prefix="zepkit-embed-write")
        return self._embedding

    def get_context(self, thread_id: str) -> str | None:
        """Search the user's graph with the thread's last messages, minus what they said."""
        return self._context(thread_id, None)

    def _block_query(self, conn: sqlite3.Connection, thread: provision.ThreadRef) -> BlockQuery:
        """The thread's block query as `conn` sees it now (its vector is `_with_vector`'s)."""
        recent = _recent(conn, thread.id)
        messages = [message for message, _, _ in recent]
        contents = [content for _, content, _ in recent]
        terms = _recent_terms(contents)
        if not terms:
            return BlockQuery(thread.graph, messages, terms, "", {})
        return BlockQuery(
            thread.graph,
            messages,
            terms,
            query="\n".join(reversed(contents)),
            exclude=thread_statements(conn, thread.id, THREAD_MESSAGES_EXCLUDED),
            own=sentence_counts(contents),
            # the user's words only: the assistant's own "as you mentioned" asks nothing
            asked_back=any(role == "user" and asks_back(text) for _, text, role in recent),
        )

    def _dense_half(
        self,
        conn: sqlite3.Connection,
        block: BlockQuery,
        episodes: Sequence[int],
        pending: Future[Any],
    ) -> Future[BlockVector] | None:
        """The block's dense half (`Dense.block_ahead`) started on the embedding thread inside
        the write of `episodes`; None when there is none to find (no new vectors, no terms)."""
        if self._dense is None or not episodes or not block.terms:
            return None
        return self._dense.block_ahead(
            conn,
            block.graph,
            block.messages,
            episodes,
            pending,
            BLOCK_POOL,
            self._embedding_thread(),
        )

    def _with_vector(self, conn: sqlite3.Connection, block: BlockQuery) -> BlockQuery:
        """`block` with the mean of its messages' stored vectors (no embedding), when dense
        retrieval is on and it has terms."""
        if self._dense is None or not block.terms:
            return block
        return replace(block, vector=self._dense.stored_mean(conn, block.messages))

    def _context(self, thread_id: str, block: BlockQuery | None) -> str | None:
        """The thread's block: from `block` when its query was read inside the write, else all
        of it read now."""
        with read_transaction(self._conn) as conn:
            if block is None:
                thread = provision.find_thread(conn, thread_id)
                block = self._with_vector(conn, self._block_query(conn, thread))
            if not block.terms:
                return None
            retrieval = self._retrieval(block.query)
            if self._dense is not None:
                retrieval = replace(retrieval, vector=block.vector)
            return context_block(
                conn,
                block.graph,
                block.terms,
                retrieval,
                exclude=block.exclude,
                ahead=block.ahead,
                nearest=block.nearest,
                own=block.own,
                asked_back=block.asked_back,
            )

    def read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """Run `query`, which only reads, in one snapshot of the file."""
        with read_transaction(self._conn) as conn:
            return query(conn)

    def get_messages(self, thread_id: str, limit: int | None) -> list[Message]:
        """The thread's messages oldest first; the latest `limit` when given."""
        with read_transaction(self._conn) as conn:
            thread = provision.find_thread(conn, thread_id)
            rows = conn.execute(
                listing.MESSAGE_ROWS + "ORDER BY r.id DESC LIMIT ?",
                (thread.id, -1 if limit is None else max(limit, 0)),
            ).fetchall()
            message = listing.message_maker(conn)
        return [message(row) for row in reversed(rows)]

    def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        """See `Backend.update_message_metadata`: the metadata is its episode's (what listings
        and searches read), found by the uuid a read of the thread gives the message."""
        with write_transaction(self._conn) as conn:
            thread = provision.find_thread(conn, thread_id)
            rows = conn.execute(listing.MESSAGE_ROWS + "ORDER BY r.id", (thread.id,)).fetchall()
            message = listing.message_maker(conn)
            for row in rows:
                found = message(row)
                if found.uuid == message_uuid:
                    merged = merged_metadata(found.metadata, metadata)
                    conn.execute(
                        "UPDATE episodes SET metadata = ? WHERE id = ?",
                        (encode_metadata(merged), row[6]),
                    )
                    return found.model_copy(update={"metadata": merged})
        raise NotFoundError(f"thread {thread_id!r} has no message {message_uuid!r}")

    def search(self, request: SearchRequest) -> SearchResults:
        """See `Backend.search`: an unknown user raises, an unknown shared graph finds nothing."""
        if (request.user_id is None) == (request.graph_id is None):
            raise ValueError("search needs exactly one of user_id and graph_id")
        if not CAPABILITIES.supports(request.scope, request.reranker):
            raise UnsupportedError(_unsupported(request.scope, request.reranker))
        terms = query_terms(request.query)
        with read_transaction(self._conn) as conn:
            if request.user_id is not None:
                graph: int | None = provision.user_graph(conn, request.user_id)
            else:
                graph = provision.find_graph(conn, "shared", str(request.graph_id))
            if graph is None or not terms or request.limit < 1:
                return SearchResults(scope=request.scope)
            retrieval = self._retrieval(request.query)
            embedding = self._embed_query_beside(request.query)
            if embedding is not None:  # the query is embedded while the lexical side reads
                retrieval = replace(retrieval, vector=embedding)
            return search_scope(
                conn,
                graph,
                terms,
                retrieval,
                scope=request.scope,
                reranker=request.reranker,
                limit=request.limit,
                mmr_lambda=request.mmr_lambda,
            )

    def add_data(
        self,
        data: str,
        *,
        type: DataType,
        user_id: str | None,
        graph_id: str | None,
        created_at: datetime | None,
        metadata: dict[str, Any] | None,
    ) -> Episode:
        """Store one data item as an episode of a user's graph or a (possibly new) shared graph."""
        if (user_id is None) == (graph_id is None):
            raise ValueError("add_data needs exactly one of user_id and graph_id")
        if type not in DATA_TYPES:
            raise ValueError(f"data type must be one of {', '.join(DATA_TYPES)}, not {type!r}")
        data = well_formed(data)  # half an emoji would fail the write (SQLite takes UTF-8 only)
        moment = created_at or now()
        draft = draft_data(
            self._extractor, data, type=type, created_at=encode_time(moment), metadata=metadata
        )
        vectors = self._vectors([data])
        with write_transaction(self._conn) as conn:
            if user_id is not None:
                graph = provision.user_graph(conn, user_id)
            else:
                graph, _ = provision.ensure_graph(conn, "shared", str(graph_id))
            [episode] = write_episodes(conn, graph=graph, drafts=[draft])
            uuid = row_uuids(conn, "episodes")("", episode)
            self._store(conn, [episode], vectors)
        self._stored([episode], vectors)
        return Episode(
            uuid=uuid,
            content=data,
            source=type,
            name=draft.name,
            created_at=moment,
            metadata=metadata,
        )

    def preview_context(
        self, user: UserProfile, thread_id: str, messages: Sequence[Message]
    ) -> str | None:
        """The context a turn would get: what `ensure_user(user)`, `ensure_thread` and then
        `add_messages(thread_id, messages, return_context=True)` would return, computed on a
        private in-memory copy of the file, so nothing is written to it."""
        copy = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        try:
            self._conn.backup(copy)
            copy.execute("PRAGMA foreign_keys = ON")
            migrate(copy)  # a read-only backend's file may be of an older version
        except BaseException:
            copy.close()
            raise
        # A vector index of its own: the copy's rows must never enter this engine's index.
        dense = Dense(self._dense.embedder) if self._dense is not None else None
        mode = "lexical" if dense is None else ("hybrid" if self._lexical else "dense")
        scratch = Engine(copy, self._extractor, mode=mode, dense=dense)
        try:
            scratch.ensure_user(user)
            scratch.ensure_thread(thread_id, user.user_id)
            return scratch.add_messages(thread_id, messages, True, user.user_id)
        finally:
            scratch.close()

    def delete_thread(self, thread_id: str) -> None:
        """Delete the thread, its messages and everything derived from them."""
        with write_transaction(self._conn) as conn:
            thread = provision.find_thread(conn, thread_id)
            deletion.delete_thread(conn, thread)
        if self._dense is not None:
            self._dense.index.stale(thread.graph)

    def delete_user(self, user_id: str, vacuum: bool) -> None:
        """Delete the user with all their threads and their graph; with `vacuum`, also rewrite
        the file so no deleted byte stays in free pages or the write-ahead log."""
        with write_transaction(self._conn) as conn:
            graph = deletion.delete_user(conn, user_id)
        if self._dense is not None:
            self._dense.index.forget(graph)
        if vacuum:
            self.vacuum()

    def vacuum(self) -> None:
        """See `LocalBackend.vacuum`."""
        deletion.vacuum(self._conn)

    def get_user(self, user_id: str) -> UserInfo:
        with read_transaction(self._conn) as conn:
            return listing.get_user(conn, user_id)

    def list_users(self, cursor: str | None, limit: int) -> Page[UserInfo]:
        with read_transaction(self._conn) as conn:
            return listing.list_users(conn, cursor, limit)

    def list_threads(self, user_id: str, cursor: str | None, limit: int) -> Page[ThreadInfo]:
        with read_transaction(self._conn) as conn:
            return listing.list_threads(conn, user_id, cursor, limit)

    def list_messages(self, thread_id: str, cursor: str | None, limit: int) -> Page[Message]:
        with read_transaction(self._conn) as conn:
            return listing.list_messages(conn, thread_id, cursor, limit)

    def list_data(self, user_id: str, cursor: str | None, limit: int) -> Page[Episode]:
        with read_transaction(self._conn) as conn:
            return listing.list_data(conn, user_id, cursor, limit)

    def list_facts(self, user_id: str, cursor: str | None, limit: int) -> Page[Fact]:
        with read_transaction(self._conn) as conn:
            return listing.list_facts(conn, user_id, cursor, limit)


def _recent(conn: sqlite3.Connection, thread: int) -> list[tuple[int, str, str]]:
    """The thread's last `CONTEXT_MESSAGES` messages, newest first: (id, content, role)."""
    return conn.execute(
        "SELECT id, content, role FROM message_rows WHERE thread = ? ORDER BY id DESC LIMIT ?",
        (thread, CONTEXT_MESSAGES),
    ).fetchall()


def _recent_terms(contents: Sequence[str]) -> list[str]:
    """Query terms from messages given newest first, so the latest words win the term cap."""
    terms: dict[str, None] = {}
    for content in contents:
        for term in query_terms(content):
            terms.setdefault(term, None)
    return list(terms)[:MAX_QUERY_TERMS]


def _unsupported(scope: str, reranker: str | None) -> str:
    supported = "; ".join(
        f"{name} with {', '.join(sorted(rerankers)) + ' or none' if rerankers else 'no reranker'}"
        for name, rerankers in CAPABILITIES.rerankers.items()
    )
    return (
        f"the local backend does not support scope {scope!r} with reranker {reranker!r}; "
        f"supported: {supported}"
    )
