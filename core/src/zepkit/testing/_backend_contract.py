"""`BackendContract`: the behaviour every zepkit backend must show.

Subclass it in a test module and supply a `backend` fixture that yields an empty backend (a test
class without one is refused when it is defined):

    class TestMyBackend(BackendContract):
        @pytest.fixture
        async def backend(self):
            b = MyBackend(...)
            yield b
            await b.aclose()

Async tests need pytest-asyncio (`asyncio_mode = "auto"`, or use `pytest_asyncio.fixture`).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from zepkit.core._backend import Backend, SearchRequest, UserProfile
from zepkit.core._errors import BackendError, ConflictError, NotFoundError, UnsupportedError
from zepkit.core._limits import MAX_PAGE_SIZE
from zepkit.core._models import RERANKERS, Message

UNICODE_TEXTS = (
    "I love ramen 🍜 and my cat 🐈‍⬛ is called Mochi.",
    "我住在上海，喜欢喝龙井茶。",
    "אני גר בתל אביב ואוהב קפה.",  # right-to-left
    "Zoë's café costs €4 — naïve façade, {braces} and 100% <tags>.",
)


async def _user_thread(backend: Backend, user_id: str, thread_id: str) -> None:
    await backend.ensure_user(UserProfile(user_id))
    await backend.ensure_thread(thread_id, user_id)


class BackendContract:
    """Provisioning, messages, context, search per scope, isolation, typed errors, deleting and
    listing users and threads, and close."""

    pytestmark = pytest.mark.asyncio

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A test class without its own `backend` fixture is an error where it is written, not a
        suite of failures."""
        super().__init_subclass__(**kwargs)
        supplied = any(
            "backend" in vars(k) for k in cls.__mro__[: cls.__mro__.index(BackendContract)]
        )
        if cls.__name__.startswith("Test") and not supplied:
            raise TypeError(f"{cls.__name__} must supply a `backend` fixture")

    @pytest.fixture
    async def backend(self) -> AsyncIterator[Backend]:
        """Supplied by every subclass: an empty backend, closed after the test."""
        raise NotImplementedError("subclasses supply a `backend` fixture")
        yield  # pragma: no cover

    async def test_no_overrides_DO_NOT_OVERRIDE(self) -> None:
        """A subclass supplies its `backend` fixture; it never replaces one of the contract's
        tests, so a passing suite means the same thing for every backend."""
        contract = BackendContract
        replaced = [
            name
            for name, test in vars(contract).items()
            if name.startswith("test_") and getattr(type(self), name) is not test
        ]
        assert replaced == [], f"{type(self).__name__} overrides contract tests: {replaced}"

    # -- provisioning ----------------------------------------------------------------------------

    async def test_ensure_user_is_idempotent(self, backend: Backend) -> None:
        assert await backend.ensure_user(UserProfile("alice", first_name="Alice")) is True
        assert await backend.ensure_user(UserProfile("alice", first_name="Alice")) is False

    async def test_ensure_user_updates_the_fields_given(self, backend: Backend) -> None:
        await backend.ensure_user(UserProfile("ada", first_name="Ada", email="ada@example.com"))
        again = UserProfile("ada", first_name="Augusta", last_name="King", metadata={"plan": "pro"})
        assert await backend.ensure_user(again) is False
        user = await backend.get_user("ada")
        assert (user.first_name, user.last_name, user.email, user.metadata) == (
            "Augusta",
            "King",
            "ada@example.com",  # not given: kept
            {"plan": "pro"},
        )

    async def test_ensure_thread_is_idempotent(self, backend: Backend) -> None:
        await backend.ensure_user(UserProfile("alice"))
        assert await backend.ensure_thread("t1", "alice") is True
        assert await backend.ensure_thread("t1", "alice") is False

    async def test_concurrent_first_calls_create_exactly_one(self, backend: Backend) -> None:
        users = await asyncio.gather(*(backend.ensure_user(UserProfile("bob")) for _ in range(20)))
        assert users.count(True) == 1
        threads = await asyncio.gather(*(backend.ensure_thread("tb", "bob") for _ in range(20)))
        assert threads.count(True) == 1

    async def test_thread_for_unknown_user_is_not_found(self, backend: Backend) -> None:
        with pytest.raises(NotFoundError):
            await backend.ensure_thread("t1", "nobody")

    async def test_thread_of_another_user_is_a_conflict(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "shared-id")
        await backend.ensure_user(UserProfile("mallory"))
        with pytest.raises(ConflictError):
            await backend.ensure_thread("shared-id", "mallory")

    async def test_write_checks_the_owner(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "owned")
        await backend.ensure_user(UserProfile("mallory"))
        with pytest.raises(ConflictError):
            await backend.add_messages("owned", [Message("user", "x")], user_id="mallory")
        await backend.add_messages("owned", [Message("user", "mine")], user_id="alice")
        assert [m.content for m in await backend.get_messages("owned")] == ["mine"]

    async def test_ensure_graph_is_idempotent(self, backend: Backend) -> None:
        assert await backend.ensure_graph("handbook") is True
        assert await backend.ensure_graph("handbook") is False

    # -- messages ----------------------------------------------------------------------------------

    async def test_messages_round_trip(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "t1")
        when = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)
        sent = [
            Message("user", UNICODE_TEXTS[0], name="Alice", created_at=when, metadata={"k": 1}),
            Message("assistant", UNICODE_TEXTS[1], name="Assistant"),
            Message("user", UNICODE_TEXTS[2]),
            Message("system", UNICODE_TEXTS[3]),
            Message("tool", "42", name="calculator"),
        ]
        await backend.add_messages("t1", sent)
        got = await backend.get_messages("t1")
        assert [(m.role, m.content, m.name) for m in got] == [
            (m.role, m.content, m.name) for m in sent
        ]
        assert got[0].created_at == when
        assert got[0].metadata == {"k": 1}
        assert [m.content for m in await backend.get_messages("t1", limit=2)] == [
            UNICODE_TEXTS[3],
            "42",
        ]

    async def test_a_messages_uuid_is_the_same_in_every_read(self, backend: Backend) -> None:
        """A backend may keep no ids for messages (`uuid` None); one that does shows each
        message's own in every read, never one given with the write."""
        await _user_thread(backend, "alice", "t1")
        await backend.add_messages("t1", [Message("user", "one"), Message("assistant", "two")])
        await backend.add_messages("t1", [Message("user", "one", uuid="given-not-kept")])
        whole = [m.uuid for m in await backend.get_messages("t1")]
        latest = [m.uuid for m in await backend.get_messages("t1", limit=2)]
        listed = [m.uuid for m in await self._all(functools.partial(backend.list_messages, "t1"))]
        assert whole == listed and latest == whole[1:] and "given-not-kept" not in whole
        assert not any(whole) or len({uuid for uuid in whole if uuid}) == 3

    async def test_a_messages_metadata_is_merged_by_its_uuid(self, backend: Backend) -> None:
        """An update merges onto the message's metadata (None removes a key), changes nothing
        else, and every later read shows it; a backend that keeps no message ids has none to
        update (every uuid is unknown to it)."""
        await _user_thread(backend, "alice", "t1")
        first = Message("user", "I live in Oslo.", metadata={"source": "web", "lang": "en"})
        await backend.add_messages("t1", [first, Message("assistant", "Noted.")])
        stored = await backend.get_messages("t1")
        uuid = stored[0].uuid
        if uuid is None:
            with pytest.raises(NotFoundError):
                await backend.update_message_metadata("t1", "no-such-message", {"a": 1})
            return
        updated = await backend.update_message_metadata(
            "t1", uuid, {"lang": None, "reviewed": True, "tags": ["home", "city"]}
        )
        assert updated.metadata == {"source": "web", "reviewed": True, "tags": ["home", "city"]}
        assert (updated.uuid, updated.content, updated.role) == (uuid, first.content, "user")
        again = await backend.get_messages("t1")
        assert again[0].metadata == updated.metadata and again[0].content == first.content
        assert again[0].created_at == stored[0].created_at
        assert again[1].metadata == stored[1].metadata  # the other message is untouched
        listed = await self._all(functools.partial(backend.list_messages, "t1"))
        assert listed[0].metadata == updated.metadata

    async def test_a_message_update_checks_its_thread_and_its_keys(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "t1")
        await _user_thread(backend, "alice", "t2")
        await backend.add_messages("t1", [Message("user", "hello", metadata={"k0": 0})])
        [message] = await backend.get_messages("t1")
        with pytest.raises(NotFoundError):
            await backend.update_message_metadata("missing", message.uuid or "x", {"a": 1})
        with pytest.raises(NotFoundError):
            await backend.update_message_metadata("t1", "no-such-message", {"a": 1})
        if message.uuid is None:
            return
        with pytest.raises(NotFoundError):  # a uuid of another thread's message
            await backend.update_message_metadata("t2", message.uuid, {"a": 1})
        with pytest.raises(ValueError, match="metadata"):  # 11 keys in the end
            await backend.update_message_metadata(
                "t1", message.uuid, {f"k{n}": n for n in range(1, 11)}
            )
        [unchanged] = await backend.get_messages("t1")
        assert unchanged.metadata == {"k0": 0}

    async def test_messages_for_unknown_thread_are_not_found(self, backend: Backend) -> None:
        with pytest.raises(NotFoundError):
            await backend.add_messages("missing", [Message("user", "hello")])
        with pytest.raises(NotFoundError):
            await backend.get_messages("missing")

    async def test_errors_are_typed(self, backend: Backend) -> None:
        with pytest.raises(BackendError):
            await backend.get_context("missing")

    async def test_an_id_with_half_a_character_is_the_callers_error(self, backend: Backend) -> None:
        # A lone surrogate has no UTF-8 form, so no file or request can hold it: the caller
        # must fix the id (a ValueError, as `check_id` gives), and the backend stays usable.
        half = "\ud83d"
        await _user_thread(backend, "u", "t")
        calls: list[Callable[[], Awaitable[object]]] = [
            lambda: backend.ensure_user(UserProfile(f"eve{half}")),
            lambda: backend.ensure_thread(f"t{half}", "u"),
            lambda: backend.search(SearchRequest("hi", user_id=f"u{half}")),
        ]
        for call in calls:
            with pytest.raises(ValueError, match="lone surrogate"):
                await call()
        await backend.add_messages("t", [Message("user", "I live in Oslo.")])
        assert [m.content for m in await backend.get_messages("t")] == ["I live in Oslo."]

    # -- context -----------------------------------------------------------------------------------

    async def test_new_user_has_no_context(self, backend: Backend) -> None:
        await _user_thread(backend, "newcomer", "t-new")
        context = await backend.add_messages(
            "t-new",
            [Message("user", "Hello there, what do you know about me?")],
            return_context=True,
        )
        assert context is None or not context.strip()

    async def test_context_recalls_an_earlier_thread(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "session-1")
        await backend.add_messages(
            "session-1",
            [
                Message("user", "My sister Beatrix moved to Lisbon last spring.", name="Alice"),
                Message("assistant", "That sounds exciting!", name="Assistant"),
            ],
        )
        await backend.ensure_thread("session-2", "alice")
        context = await backend.add_messages(
            "session-2",
            [Message("user", "Where does my sister Beatrix live now?", name="Alice")],
            return_context=True,
        )
        assert context is not None
        assert "Lisbon" in context
        assert context == await backend.get_context("session-2")

    # -- search ------------------------------------------------------------------------------------

    async def _seed_search(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "t1")
        await backend.add_messages(
            "t1",
            [
                Message("user", "I adopted a greyhound named Comet.", name="Alice"),
                Message("user", "I work as a marine biologist in Halifax.", name="Alice"),
            ],
        )

    @pytest.mark.parametrize("scope", ["edges", "nodes", "episodes"])
    async def test_search_each_scope_finds_stored_memory(
        self, backend: Backend, scope: str
    ) -> None:
        if not backend.capabilities.supports(scope):
            pytest.skip(f"backend does not support scope {scope}")
        await self._seed_search(backend)
        results = await backend.search(
            SearchRequest(query="greyhound Comet", user_id="alice", scope=scope, limit=5)  # type: ignore[arg-type]
        )
        assert results.scope == scope
        found = [e.fact for e in results.edges] + [n.name for n in results.nodes]
        found += [e.content for e in results.episodes]
        assert any("Comet" in text for text in found), found
        assert len(found) <= 5

    async def test_search_auto_returns_a_context_block(self, backend: Backend) -> None:
        if not backend.capabilities.supports("auto"):
            pytest.skip("backend does not support scope auto")
        await self._seed_search(backend)
        results = await backend.search(
            SearchRequest(
                query="Where does Alice work?", user_id="alice", scope="auto", reranker=None
            )
        )
        assert results.context is not None and "Halifax" in results.context

    async def test_unsupported_reranker_is_a_typed_error(self, backend: Backend) -> None:
        caps = backend.capabilities
        pairs = [
            (s, r)
            for s in caps.scopes
            if s != "auto"
            for r in RERANKERS
            if r not in caps.rerankers[s]
        ]
        if not pairs:
            pytest.skip("backend supports every reranker")
        scope, reranker = pairs[0]
        await self._seed_search(backend)
        with pytest.raises(UnsupportedError):
            await backend.search(
                SearchRequest(query="Comet", user_id="alice", scope=scope, reranker=reranker)  # type: ignore[arg-type]
            )

    async def test_users_never_see_each_other(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "ta")
        await _user_thread(backend, "bob", "tb")
        await backend.add_messages("ta", [Message("user", "My locker code is ZEBRA-7781.")])
        await backend.add_messages("tb", [Message("user", "My locker code is unknown to me.")])
        for scope in [
            s for s in ("edges", "nodes", "episodes") if backend.capabilities.supports(s)
        ]:
            results = await backend.search(
                SearchRequest(query="locker code ZEBRA-7781", user_id="bob", scope=scope)
            )
            assert "ZEBRA" not in results.model_dump_json()
        context = await backend.add_messages(
            "tb", [Message("user", "What is my locker code ZEBRA?")], return_context=True
        )
        assert "ZEBRA-7781" not in (context or "")

    async def test_shared_graph_is_its_own_scope(self, backend: Backend) -> None:
        await backend.ensure_graph("handbook")
        await _user_thread(backend, "alice", "ta")
        await backend.add_data(
            "Refunds are processed within 14 days by the Finance team.",
            type="text",
            graph_id="handbook",
        )
        await backend.add_messages("ta", [Message("user", "I asked Finance about my refund.")])
        graph_hits = await backend.search(
            SearchRequest(query="refund Finance", graph_id="handbook", scope="edges")
        )
        assert graph_hits.edges and all("14 days" in e.fact for e in graph_hits.edges)
        user_hits = await backend.search(
            SearchRequest(query="refund Finance", user_id="alice", scope="edges")
        )
        assert user_hits.edges and all("14 days" not in e.fact for e in user_hits.edges)

    async def test_add_data_json_is_searchable(self, backend: Backend) -> None:
        await backend.ensure_user(UserProfile("alice"))
        payload = json.dumps({"favourite_colour": "turquoise", "pets": ["Comet"]})
        episode = await backend.add_data(payload, type="json", user_id="alice")
        assert episode.uuid
        results = await backend.search(
            SearchRequest(query="favourite colour turquoise", user_id="alice", scope="edges")
        )
        assert any("turquoise" in e.fact for e in results.edges)

    async def test_add_data_for_unknown_user_is_not_found(self, backend: Backend) -> None:
        with pytest.raises(NotFoundError):
            await backend.add_data("hello", type="text", user_id="nobody")

    async def test_delete_thread_touches_only_that_thread(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "keep")
        await backend.ensure_thread("drop", "alice")
        await backend.add_messages("keep", [Message("user", "Keep this about kayaks.")])
        await backend.add_messages("drop", [Message("user", "Drop this about kites.")])
        await backend.delete_thread("drop")
        with pytest.raises(NotFoundError):
            await backend.get_messages("drop")
        assert [m.content for m in await backend.get_messages("keep")] == [
            "Keep this about kayaks."
        ]

    # -- managing users and threads ----------------------------------------------------------------

    async def _all(self, list_page: Any) -> list[Any]:
        """Every item of a listing, read two at a time through the cursors."""
        items: list[Any] = []
        cursor: str | None = None
        while True:
            page = await list_page(cursor=cursor, limit=2)
            assert len(page.items) <= 2
            items.extend(page.items)
            if page.next_cursor is None:
                return items
            cursor = page.next_cursor

    async def test_delete_user_removes_everything_of_theirs(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "a1")
        await backend.ensure_thread("a2", "alice")
        await _user_thread(backend, "bob", "b1")
        secret = "My vault passphrase is QUOKKA-HALIBUT-93."
        await backend.add_messages("a1", [Message("user", secret, name="Alice")])
        await backend.add_messages("a2", [Message("user", "I keep bees named Quokka.")])
        await backend.add_data("Alice's vault is in Quokka Street.", type="text", user_id="alice")
        await backend.add_messages("b1", [Message("user", "My passphrase is QUOKKA-BOB.")])

        await backend.delete_user("alice")

        for thread_id in ("a1", "a2"):
            with pytest.raises(NotFoundError):
                await backend.get_messages(thread_id)
        with pytest.raises(NotFoundError):
            await backend.get_user("alice")
        with pytest.raises(NotFoundError):
            await backend.list_threads("alice")
        with pytest.raises(NotFoundError):
            await backend.delete_user("alice")
        assert [u.user_id for u in await self._all(backend.list_users)] == ["bob"]
        assert [m.content for m in await backend.get_messages("b1")] == [
            "My passphrase is QUOKKA-BOB."
        ]
        # the same ids start from nothing
        await _user_thread(backend, "alice", "a1")
        assert await backend.get_messages("a1") == []
        for scope in [
            s for s in ("edges", "nodes", "episodes") if backend.capabilities.supports(s)
        ]:
            results = await backend.search(
                SearchRequest(query="vault passphrase QUOKKA", user_id="alice", scope=scope)
            )
            assert "QUOKKA" not in results.model_dump_json().upper(), scope

    async def test_delete_unknown_user_is_not_found(self, backend: Backend) -> None:
        with pytest.raises(NotFoundError):
            await backend.delete_user("nobody")

    async def test_get_user_returns_the_profile(self, backend: Backend) -> None:
        await backend.ensure_user(
            UserProfile("ada", first_name="Ada", last_name="Lovelace", email="ada@example.com")
        )
        user = await backend.get_user("ada")
        assert (user.user_id, user.first_name, user.last_name, user.email) == (
            "ada",
            "Ada",
            "Lovelace",
            "ada@example.com",
        )
        assert user.created_at is not None
        with pytest.raises(NotFoundError):
            await backend.get_user("nobody")

    async def test_list_users_pages_in_creation_order(self, backend: Backend) -> None:
        assert (await backend.list_users()).items == []
        names = ["zed", "amy", "mo", "kim", "bo"]
        for name in names:
            await backend.ensure_user(UserProfile(name, first_name=name.title()))
        users = await self._all(backend.list_users)
        assert [u.user_id for u in users] == names
        assert [u.first_name for u in users] == [name.title() for name in names]
        last = await backend.list_users(limit=5)
        assert len(last.items) == 5 and last.next_cursor is None

    async def test_list_threads_pages_the_users_own(self, backend: Backend) -> None:
        await backend.ensure_user(UserProfile("alice"))
        await _user_thread(backend, "bob", "bob-1")
        ids = ["t-c", "t-a", "t-b"]
        for thread_id in ids:
            await backend.ensure_thread(thread_id, "alice")
        listing = functools.partial(backend.list_threads, "alice")
        threads = await self._all(listing)
        assert [(t.thread_id, t.user_id) for t in threads] == [(i, "alice") for i in ids]
        assert all(t.created_at is not None for t in threads)
        with pytest.raises(NotFoundError):
            await backend.list_threads("nobody")

    async def test_list_messages_pages_oldest_first(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "t1")
        when = datetime(2023, 1, 2, 3, 4, 5, tzinfo=UTC)
        sent = [
            Message("user" if n % 2 else "assistant", f"message {n}", created_at=when)
            for n in range(7)
        ]
        await backend.add_messages("t1", sent)
        got = await self._all(functools.partial(backend.list_messages, "t1"))
        assert [(m.role, m.content) for m in got] == [(m.role, m.content) for m in sent]
        assert all(m.created_at == when for m in got)
        with pytest.raises(NotFoundError):
            await backend.list_messages("missing")

    async def test_list_data_pages_the_users_data_only(self, backend: Backend) -> None:
        await _user_thread(backend, "alice", "t1")
        await backend.ensure_user(UserProfile("bob"))
        await backend.add_messages("t1", [Message("user", "A message is not data.")])
        when = datetime(2022, 6, 1, 8, 0, tzinfo=UTC)
        await backend.add_data(
            "First note.", type="text", user_id="alice", created_at=when, metadata={"src": "crm"}
        )
        await backend.add_messages("t1", [Message("user", "Another message.")])
        await backend.add_data("Second note.", type="text", user_id="alice")
        await backend.add_data('{"plan": "pro"}', type="json", user_id="alice")
        await backend.add_data("Bob's note.", type="text", user_id="bob")
        items = await self._all(functools.partial(backend.list_data, "alice"))
        assert [(e.content, e.source) for e in items] == [
            ("First note.", "text"),
            ("Second note.", "text"),
            ('{"plan": "pro"}', "json"),
        ]
        assert (items[0].created_at, items[0].metadata) == (when, {"src": "crm"})
        with pytest.raises(NotFoundError):
            await backend.list_data("nobody")

    async def test_list_facts_pages_what_was_learned_of_the_user(self, backend: Backend) -> None:
        await self._seed_search(backend)
        await _user_thread(backend, "bob", "tb")
        await backend.add_messages("tb", [Message("user", "I adopted a cat named Nimbus.")])
        facts = await self._all(functools.partial(backend.list_facts, "alice"))
        assert any("Comet" in fact.fact for fact in facts)
        assert any("Halifax" in fact.fact for fact in facts)
        assert not any("Nimbus" in fact.fact for fact in facts)
        assert all(fact.uuid and fact.created_at is not None for fact in facts)
        with pytest.raises(NotFoundError):
            await backend.list_facts("nobody")

    @pytest.mark.parametrize("limit", [0, -1, MAX_PAGE_SIZE + 1])
    async def test_bad_page_sizes_are_refused(self, backend: Backend, limit: int) -> None:
        await _user_thread(backend, "alice", "t1")
        with pytest.raises(ValueError, match="limit"):
            await backend.list_users(limit=limit)
        with pytest.raises(ValueError, match="limit"):
            await backend.list_threads("alice", limit=limit)
        with pytest.raises(ValueError, match="limit"):
            await backend.list_messages("t1", limit=limit)
        with pytest.raises(ValueError, match="limit"):
            await backend.list_data("alice", limit=limit)
        with pytest.raises(ValueError, match="limit"):
            await backend.list_facts("alice", limit=limit)
        with pytest.raises(ValueError, match="cursor"):
            await backend.list_users(cursor="")

    async def test_close_is_idempotent(self, backend: Backend) -> None:
        await backend.aclose()
        await backend.aclose()
