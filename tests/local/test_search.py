"""Search: every scope, isolation between graphs, rerankers, limits and hostile queries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from zepkit.core._backend import Capabilities, SearchRequest, UserProfile
from zepkit.core._errors import NotFoundError, UnsupportedError
from zepkit.core._models import Message
from zepkit.local import LocalBackend

T0 = datetime(2024, 1, 1, tzinfo=UTC)


async def test_capabilities(backend: LocalBackend) -> None:
    both = frozenset({"rrf", "mmr"})
    assert backend.capabilities == Capabilities(
        rerankers={"edges": both, "nodes": both, "episodes": both, "auto": frozenset()},
        dense_vectors=backend.retriever != "lexical",
    )


async def test_edges_scope_returns_scored_facts(alice: LocalBackend) -> None:
    await alice.add_messages(
        "a1",
        [
            Message("user", "I adopted a greyhound called Pixel.", created_at=T0),
            Message("assistant", "Greyhounds love short sprints."),
        ],
    )
    found = await alice.search(SearchRequest("greyhound Pixel", user_id="alice"))
    assert found.scope == "edges"
    assert found.edges[0].fact == "user: I adopted a greyhound called Pixel."
    assert found.edges[0].valid_at == T0
    assert found.edges[0].name == "STATEMENT"
    assert all(fact.score is not None for fact in found.edges)
    scores = [fact.score or 0.0 for fact in found.edges]
    assert scores == sorted(scores, reverse=True)


async def test_nodes_scope_ranks_entities_with_summaries(alice: LocalBackend) -> None:
    await alice.add_messages(
        "a1",
        [
            Message("user", "My brother Tomas lives in Kyoto."),
            Message("user", "Tomas teaches judo."),
            Message("user", "I prefer tea to coffee."),
        ],
    )
    found = await alice.search(SearchRequest("Tomas judo", user_id="alice", scope="nodes"))
    names = [entity.name for entity in found.nodes]
    assert names[0] == "Tomas"
    assert "Alice Smith" in names
    assert found.nodes[0].summary == "My brother Tomas lives in Kyoto. Tomas teaches judo."
    assert all(entity.score is not None for entity in found.nodes)


async def test_episodes_scope_returns_the_messages(alice: LocalBackend) -> None:
    await alice.add_messages(
        "a2", [Message("user", "Book a table at Sushi Zen.", name="Al", metadata={"x": 1})]
    )
    found = await alice.search(SearchRequest("sushi", user_id="alice", scope="episodes"))
    [episode] = found.episodes
    assert (episode.content, episode.role, episode.name, episode.thread_id) == (
        "Book a table at Sushi Zen.",
        "user",
        "Al",
        "a2",
    )
    assert (episode.source, episode.metadata) == ("message", {"x": 1})
    assert episode.score is not None and episode.created_at is not None


async def test_auto_scope_returns_a_context_block(alice: LocalBackend) -> None:
    await alice.add_messages("a1", [Message("user", "I grow chillies on my balcony.")])
    found = await alice.search(
        SearchRequest("chillies", user_id="alice", scope="auto", reranker=None)
    )
    assert found.scope == "auto" and not found.edges
    assert found.context is not None
    assert "<FACTS>" in found.context and "I grow chillies on my balcony." in found.context
    assert "<ENTITIES>" in found.context and "Alice Smith" in found.context


async def test_limit_is_respected(alice: LocalBackend) -> None:
    await alice.add_messages(
        "a1", [Message("user", f"Waffle recipe number {n} uses butter.") for n in range(30)]
    )
    for scope in ("edges", "nodes", "episodes"):
        for limit in (1, 7, 50):
            found = await alice.search(
                SearchRequest("waffle butter", user_id="alice", scope=scope, limit=limit)
            )
            assert 0 < len(found.edges or found.nodes or found.episodes) <= limit
    found = await alice.search(SearchRequest("waffle", user_id="alice", limit=7))
    assert len(found.edges) == 7


async def test_users_never_see_each_other(backend: LocalBackend) -> None:
    same = [Message("user", "I hide the spare key under the blue flowerpot.")]
    for user in ("a", "b"):
        await backend.ensure_user(UserProfile(user))
        await backend.ensure_thread(f"t-{user}", user)
        await backend.add_messages(f"t-{user}", same)
    seen: dict[str, set[str]] = {}
    for user in ("a", "b"):
        uuids: set[str] = set()
        for scope in ("edges", "nodes", "episodes"):
            found = await backend.search(
                SearchRequest("spare key flowerpot", user_id=user, scope=scope, limit=50)
            )
            items = found.edges or found.nodes or found.episodes
            uuids |= {item.uuid for item in items}
            if scope == "edges":
                assert len(found.edges) == 1
            if scope == "episodes":
                assert [e.thread_id for e in found.episodes] == [f"t-{user}"]
            if scope == "nodes":
                assert [e.name for e in found.nodes] == [user]
        seen[user] = uuids
    assert seen["a"] and seen["b"] and not seen["a"] & seen["b"]


async def test_shared_graph_is_separate_from_a_user_of_the_same_id(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("x"))
    await backend.add_data("The user graph mentions pelicans.", type="text", user_id="x")
    await backend.add_data("The shared graph mentions pelicans.", type="text", graph_id="x")
    as_user = await backend.search(SearchRequest("pelicans", user_id="x"))
    as_graph = await backend.search(SearchRequest("pelicans", graph_id="x"))
    assert [f.fact for f in as_user.edges] == ["The user graph mentions pelicans."]
    assert [f.fact for f in as_graph.edges] == ["The shared graph mentions pelicans."]


async def test_unknown_user_raises_and_unknown_graph_is_empty(backend: LocalBackend) -> None:
    with pytest.raises(NotFoundError):
        await backend.search(SearchRequest("anything", user_id="ghost"))
    with pytest.raises(NotFoundError):
        await backend.add_data("hello", type="text", user_id="ghost")
    found = await backend.search(SearchRequest("anything", graph_id="ghost", scope="nodes"))
    assert found.is_empty() and found.scope == "nodes"


async def test_add_data_creates_a_shared_graph(backend: LocalBackend) -> None:
    await backend.add_data("Office wifi password rotates monthly.", type="text", graph_id="ops")
    assert await backend.ensure_graph("ops") is False


async def test_exactly_one_target_is_required(backend: LocalBackend) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        await backend.search(SearchRequest("q"))
    with pytest.raises(ValueError, match="exactly one"):
        await backend.add_data("d", type="text", user_id="u", graph_id="g")


@pytest.mark.parametrize(
    ("scope", "reranker"),
    [
        ("observations", None),
        ("thread_summaries", "rrf"),
        ("edges", "cross_encoder"),
        ("nodes", "node_distance"),
        ("episodes", "episode_mentions"),
        ("auto", "rrf"),
    ],
)
async def test_unsupported_scope_or_reranker(
    alice: LocalBackend, scope: str, reranker: str
) -> None:
    request = SearchRequest("q", user_id="alice", scope=scope, reranker=reranker)  # type: ignore[arg-type]
    with pytest.raises(UnsupportedError, match="supported: edges with mmr, rrf or none"):
        await alice.search(request)


async def test_stop_word_only_query_is_empty(alice: LocalBackend) -> None:
    await alice.add_messages("a1", [Message("user", "It is what it is and I am who I am.")])
    for scope in ("edges", "nodes", "episodes"):
        found = await alice.search(SearchRequest("it is what I am", user_id="alice", scope=scope))
        assert found.is_empty()
    auto = SearchRequest("the of and", user_id="alice", scope="auto", reranker=None)
    assert (await alice.search(auto)).context is None


HOSTILE = [
    '"',
    '""',
    "'",
    "AND",
    "OR NOT",
    "lisbon AND",
    "NOT lisbon",
    "*",
    "lisb*",
    "^lisbon",
    "content: lisbon",
    "text:lisbon",
    "gtag:g1",
    "(",
    ")",
    "(lisbon",
    "NEAR(lisbon trip)",
    "NEAR(lisbon trip, 2)",
    "{content text}: lisbon",
    "lisbon + trip - x",
    "\\",
    "\x00",
    "a" * 400,
    "lisbon" + '"' * 30,
]


@pytest.mark.parametrize("query", HOSTILE)
async def test_fts_syntax_in_queries_never_raises(alice: LocalBackend, query: str) -> None:
    await alice.add_messages("a1", [Message("user", "Our Lisbon trip was great.")])
    for scope in ("edges", "nodes", "episodes"):
        await alice.search(SearchRequest(query, user_id="alice", scope=scope))
    await alice.search(SearchRequest(query, user_id="alice", scope="auto", reranker=None))


async def test_rrf_lets_lexical_match_win_and_recency_break_ties(alice: LocalBackend) -> None:
    old, new = T0, T0 + timedelta(days=300)
    await alice.add_messages(
        "a1",
        [
            Message("user", "Kayak trip to Norway fjords with a kayak guide.", created_at=old),
            Message("user", "Norway has long winters.", created_at=new),
            Message("user", "The kayak needs new paint.", created_at=old),
            Message("user", "The kayak needs new paint.", created_at=new),
        ],
    )
    found = await alice.search(SearchRequest("kayak norway fjords", user_id="alice", limit=4))
    facts = [(f.fact, f.valid_at) for f in found.edges]
    assert facts[0] == ("user: Kayak trip to Norway fjords with a kayak guide.", old)
    paint = [when for fact, when in facts if "paint" in fact]
    assert paint == [new]  # the same fact said twice is one fact, dated by its latest telling


async def test_mmr_with_lambda_zero_diversifies_duplicates_away(alice: LocalBackend) -> None:
    duplicates = [
        Message("user", f"I like green tea{ending}")
        for ending in (".", ", truly.", ", really.", ", a lot.", " so much.")
    ]
    others = [
        Message("user", "Green tea ceremonies in Kyoto are calm."),
        Message("user", "My green bicycle has a tea holder."),
    ]
    await alice.add_messages("a1", duplicates + others)

    relevance = await alice.search(
        SearchRequest("green tea", user_id="alice", reranker="mmr", mmr_lambda=1.0, limit=3)
    )
    assert all("I like green tea" in f.fact for f in relevance.edges)
    assert len(relevance.edges) == 3

    diverse = await alice.search(
        SearchRequest("green tea", user_id="alice", reranker="mmr", mmr_lambda=0.0, limit=3)
    )
    chosen = [f.fact for f in diverse.edges]
    assert sum("I like green tea" in fact for fact in chosen) == 1
    assert len(set(chosen)) == 3
    scores = [f.score or 0.0 for f in diverse.edges]
    assert scores == sorted(scores, reverse=True)


async def test_mmr_default_lambda_and_other_scopes(alice: LocalBackend) -> None:
    await alice.add_messages(
        "a1", [Message("user", "Rome has great pasta."), Message("user", "Pasta in Rome!")]
    )
    for scope in ("edges", "nodes", "episodes"):
        found = await alice.search(
            SearchRequest("rome pasta", user_id="alice", scope=scope, reranker="mmr")
        )
        assert not found.is_empty()


KINDS_SAID = [
    "I'm allergic to peanuts.",
    "My cat is called Pepper.",
    "My sister Ingrid lives in Copenhagen.",
    "I work as an architect.",
    "I play chess online every evening.",
    "I run about 30 km a week.",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("allergies", "peanuts"),
        ("the user's pets", "Pepper"),
        ("family members", "Ingrid"),
        ("occupation", "architect"),
        ("hobbies", "chess"),
        ("exercise habits", "30 km"),
    ],
)
async def test_a_search_naming_a_kind_finds_the_profile_statements_of_that_kind(
    lexical: LocalBackend, query: str, expected: str
) -> None:
    await lexical.ensure_user(UserProfile("maya", first_name="Maya"))
    for n, sentence in enumerate(KINDS_SAID):
        await lexical.ensure_thread(f"t{n}", "maya")
        await lexical.add_messages(f"t{n}", [Message("user", sentence)])
    found = await lexical.search(SearchRequest(query, user_id="maya", limit=3))
    assert expected in found.edges[0].fact


async def test_a_search_for_diet_finds_food_allergies_too(lexical: LocalBackend) -> None:
    await lexical.ensure_user(UserProfile("maya", first_name="Maya"))
    await lexical.ensure_thread("t1", "maya")
    said = ["I'm allergic to shellfish.", "I'm lactose intolerant.", "I broke my wrist in May."]
    await lexical.add_messages("t1", [Message("user", sentence) for sentence in said])
    found = await lexical.search(SearchRequest("dietary restrictions", user_id="maya"))
    facts = [fact.fact for fact in found.edges]
    assert len(facts) == 2
    assert any("shellfish" in fact for fact in facts) and any("lactose" in fact for fact in facts)


async def test_a_search_for_vision_or_hearing_finds_what_the_user_said_of_them(
    lexical: LocalBackend,
) -> None:
    await lexical.ensure_user(UserProfile("maya", first_name="Maya"))
    await lexical.ensure_thread("t1", "maya")
    said = ["I'm very short-sighted.", "I wear hearing aids.", "I'm colorblind."]
    await lexical.add_messages("t1", [Message("user", sentence) for sentence in said])
    for query in ("vision problems", "hearing", "eyesight"):  # health, all three
        found = await lexical.search(SearchRequest(query, user_id="maya"))
        assert len(found.edges) == 3
    found = await lexical.search(SearchRequest("hearing", user_id="maya"))
    assert "hearing aids" in found.edges[0].fact  # the word it shares leads


async def test_words_the_query_shares_outrank_the_kind_it_names(lexical: LocalBackend) -> None:
    backend = lexical
    await backend.ensure_user(UserProfile("maya", first_name="Maya"))
    await backend.ensure_thread("t1", "maya")
    await backend.add_messages(
        "t1",
        [
            Message("user", "I'm allergic to peanuts."),
            Message("user", "My cat Pepper is scared of the vacuum cleaner."),
        ],
    )
    found = await backend.search(SearchRequest("vacuum cleaner allergies", user_id="maya"))
    assert "vacuum" in found.edges[0].fact and "peanuts" in found.edges[1].fact
    plain = await backend.search(SearchRequest("vacuum cleaner", user_id="maya"))
    assert not any("peanuts" in edge.fact for edge in plain.edges)  # no kind named: no extras


async def test_a_kind_never_brings_another_users_statements(lexical: LocalBackend) -> None:
    backend = lexical
    for user, sentence in (("maya", "I'm allergic to peanuts."), ("omar", "I'm allergic to cats.")):
        await backend.ensure_user(UserProfile(user))
        await backend.ensure_thread(f"{user}-t", user)
        await backend.add_messages(f"{user}-t", [Message("user", sentence)])
    found = await backend.search(SearchRequest("allergies", user_id="maya"))
    assert [edge.fact for edge in found.edges] == ["user: I'm allergic to peanuts."]
