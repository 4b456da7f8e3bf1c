"""The default extractor and the extractor plug-in point, seen through search."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import DataType, Message
from zepkit.local import ExtractedStatement, Extractor, LocalBackend, RuleExtractor


def test_rule_extractor_makes_one_statement_per_sentence_with_speaker() -> None:
    found = RuleExtractor().extract(
        "I moved to Lisbon in May. My sister Maria lives in Porto! ...",
        speaker="Alice",
        source="message",
    )
    assert [s.text for s in found] == [
        "Alice: I moved to Lisbon in May.",
        "Alice: My sister Maria lives in Porto!",
    ]
    assert [s.entities for s in found] == [("Lisbon",), ("Maria", "Porto")]


def test_rule_extractor_flattens_json_leaves() -> None:
    data = {"name": "Ana", "address": {"city": "Lisbon", "zip": 1100}, "tags": ["a b", None]}
    found = RuleExtractor().extract(json.dumps(data), speaker=None, source="json")
    assert [s.text for s in found] == [
        "name: Ana",
        "address.city: Lisbon",
        "address.zip: 1100",
        "tags: a b",
    ]


def test_rule_extractor_is_an_extractor() -> None:
    assert isinstance(RuleExtractor(), Extractor)


async def test_facts_are_attributed_to_name_else_role(alice: LocalBackend) -> None:
    await alice.add_messages(
        "a1",
        [
            Message("user", "I play the cello on Sundays.", name="Alice"),
            Message("assistant", "The cello is a lovely instrument."),
        ],
    )
    found = await alice.search(SearchRequest("cello", user_id="alice", reranker=None))
    by_speaker = {fact.source_node_name: fact.fact for fact in found.edges}
    assert by_speaker == {
        "Alice": "Alice: I play the cello on Sundays.",
        "assistant": "assistant: The cello is a lovely instrument.",
    }
    assert all(fact.valid_at is not None and fact.created_at is not None for fact in found.edges)


async def test_user_entity_is_linked_to_user_statements(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("u-42"))
    await backend.ensure_thread("t", "u-42")
    await backend.add_messages(
        "t",
        [
            Message("user", "I train for the Berlin marathon."),
            Message("assistant", "Marathon training takes patience."),
        ],
    )
    found = await backend.search(SearchRequest("marathon", user_id="u-42", scope="nodes"))
    entities = {entity.name: entity.summary for entity in found.nodes}
    assert entities["u-42"] == "I train for the Berlin marathon."  # no speaker prefix
    assert "Berlin" in entities


async def test_json_data_becomes_leaf_facts(lexical_alice: LocalBackend) -> None:
    # Lexical: a dense retriever also finds the sibling leaf of the same episode.
    alice = lexical_alice
    episode = await alice.add_data(
        json.dumps({"pet": {"kind": "parrot", "name": "Kiwi"}}), type="json", user_id="alice"
    )
    assert episode.source == "json"
    found = await alice.search(SearchRequest("parrot", user_id="alice"))
    assert [fact.fact for fact in found.edges] == ["pet.kind: parrot"]
    assert found.edges[0].source_node_name is None


async def test_invalid_json_data_is_refused(alice: LocalBackend) -> None:
    with pytest.raises(ValueError, match="data"):
        await alice.add_data("{not json", type="json", user_id="alice")


async def test_message_data_is_read_as_a_named_turn(alice: LocalBackend) -> None:
    episode = await alice.add_data("Bob: I restore old sailboats.", type="message", graph_id="club")
    assert (episode.name, episode.source, episode.role) == ("Bob", "message", None)
    found = await alice.search(SearchRequest("sailboats", graph_id="club"))
    assert [(f.fact, f.source_node_name) for f in found.edges] == [
        ("Bob: I restore old sailboats.", "Bob")
    ]
    nodes = await alice.search(SearchRequest("sailboats", graph_id="club", scope="nodes"))
    assert [entity.name for entity in nodes.nodes] == ["Bob"]


async def test_text_without_words_makes_no_facts(alice: LocalBackend) -> None:
    await alice.add_messages("a1", [Message("user", "... !!! 🎉")])
    assert [m.content for m in await alice.get_messages("a1")] == ["... !!! 🎉"]
    assert (await alice.search(SearchRequest("🎉", user_id="alice"))).is_empty()


class ShoutingExtractor:
    """A test extractor: one upper-cased statement per text, mentioning "Loud"."""

    def extract(
        self, text: str, *, speaker: str | None, source: DataType, role: str | None = None
    ) -> Sequence[ExtractedStatement]:
        return [ExtractedStatement(text=text.upper(), entities=("Loud",))]


async def test_a_custom_extractor_replaces_the_default() -> None:
    backend = LocalBackend(extractor=ShoutingExtractor())
    try:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        await backend.add_messages("t", [Message("user", "quiet words. two sentences.")])
        found = await backend.search(SearchRequest("quiet", user_id="u"))
        assert [fact.fact for fact in found.edges] == ["QUIET WORDS. TWO SENTENCES."]
        nodes = await backend.search(SearchRequest("loud", user_id="u", scope="nodes"))
        assert "Loud" in [entity.name for entity in nodes.nodes]
    finally:
        await backend.aclose()


def test_a_users_list_under_a_heading_is_one_statement_about_them() -> None:
    extractor = RuleExtractor()
    text = "About me:\n- 34\n- nurse\n- vegan\n\nThanks!"
    [told] = extractor.extract(text, speaker="Kim", source="message", role="user")
    assert told.text == "Kim: About me: 34; nurse; vegan."
    assert told.profile is not None  # each item alone named no one
    listed = extractor.extract(
        "My allergies:\n1. peanuts\n2. shellfish", speaker="Kim", source="message", role="user"
    )
    assert [s.text for s in listed] == ["Kim: My allergies: peanuts; shellfish."]
    # an assistant's list is read line by line, as before
    said = extractor.extract(
        "Options:\n- tofu\n- tempeh", speaker="bot", source="message", role="assistant"
    )
    assert [s.text for s in said] == ["bot: Options:", "bot: - tofu", "bot: - tempeh"]


def test_a_sentence_shouted_in_capitals_is_read_as_typed_in_lower_case() -> None:
    extractor = RuleExtractor()
    [news] = extractor.extract("WE GOT ENGAGED!!", speaker="Kim", source="message", role="user")
    assert news.text == "Kim: WE GOT ENGAGED!!"  # stored as said
    assert news.profile is not None and news.topics == ("relationship",)
    thanks = extractor.extract("THANK YOU SO MUCH!!", speaker="Kim", source="message", role="user")
    assert thanks == []
