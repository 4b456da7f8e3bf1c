"""Tokenising, query terms, sentences and proper-noun spans."""

from __future__ import annotations

import random

import pytest

from zepkit.local import text
from zepkit.local.text import proper_nouns, query_terms, sentences, split_turns


def test_query_terms_drop_stop_words_short_tokens_and_duplicates() -> None:
    assert query_terms("What did I say about the Lisbon trip? Lisbon, a trip!") == [
        "say",
        "lisbon",
        "trip",
    ]


def test_query_terms_are_capped() -> None:
    assert len(query_terms(" ".join(f"word{n}" for n in range(100)))) == 32


def test_query_terms_of_stop_words_only_are_empty() -> None:
    assert query_terms("and the of it is what I a") == []


def test_sentences_split_at_end_punctuation_and_lines() -> None:
    text = "I moved to Lisbon. Mr. Silva helped! Is 3.5 km far?\nNew line\n\n我很好。你呢？ ..."
    assert sentences(text) == [
        "I moved to Lisbon.",
        "Mr. Silva helped!",
        "Is 3.5 km far?",
        "New line",
        "我很好。",
        "你呢？",
    ]


def test_the_split_read_from_spaces_parts_text_exactly_where_the_full_split_does() -> None:
    # Every end mark, closing quote and bracket, kind of space and line break, in random order:
    # the split for text without full-width marks must part it at the same places.
    rng = random.Random(20261205)
    alphabet = [*".!?…\"'”’)] \n\t\r\x0b\u00a0\u2028ab😅🤦🏽\ufe0f\u200d♀", "。", "！", "？"]
    for _ in range(30000):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        if not any(mark in sample for mark in "。！？"):
            assert text._SPACE_BOUNDARY.split(sample) == text._BOUNDARY.split(sample), sample
    assert sentences("Done. \n\t Next!) Then “this.” And\u00a0so.\u2028on") == [
        "Done.",
        "Next!)",
        "Then “this.”",
        "And\u00a0so.",
        "on",
    ]


def test_a_quotation_ending_in_a_mark_inside_a_sentence_does_not_end_it() -> None:
    said = "Please stop saying 'Great question!' every time, it's patronizing. I'm a litigator."
    assert sentences(said) == [
        "Please stop saying 'Great question!' every time, it's patronizing.",
        "I'm a litigator.",
    ]
    assert sentences('He said "Hi!" Then he left.') == ['He said "Hi!"', "Then he left."]


def test_a_numbering_abbreviation_before_its_number_does_not_end_a_sentence() -> None:
    said = "I'm playing Chopin Ballade No. 1 and a Debussy prelude. The coda is hard."
    assert sentences(said) == [
        "I'm playing Chopin Ballade No. 1 and a Debussy prelude.",
        "The coda is hard.",
    ]
    assert sentences("Are you coming? No. Sorry.") == ["Are you coming?", "No.", "Sorry."]


def test_an_ordinal_written_with_its_dot_does_not_end_a_sentence() -> None:
    said = "I am in the 2. Lehrjahr. We learn pneumatics now. Wir wohnen in der 3. Etage."
    assert sentences(said) == [
        "I am in the 2. Lehrjahr.",
        "We learn pneumatics now.",
        "Wir wohnen in der 3. Etage.",
    ]
    # a count or a year that ends a sentence still ends it
    assert sentences("We have 2. The first is red.") == ["We have 2.", "The first is red."]
    assert sentences("I am 78. Should I see my doctor?") == ["I am 78.", "Should I see my doctor?"]
    assert sentences("I was born in 1990. My parents moved.") == [
        "I was born in 1990.",
        "My parents moved.",
    ]


def test_a_title_before_a_name_does_not_end_a_sentence() -> None:
    said = "Please address me as Mx. Okafor in anything formal. Thanks."
    assert sentences(said) == ["Please address me as Mx. Okafor in anything formal.", "Thanks."]


def test_a_face_emoji_before_a_question_ends_a_sentence_as_a_full_stop_would() -> None:
    said = "7 months pregnant and the nursery is still empty 😅 what are the essentials?"
    assert sentences(said) == [
        "7 months pregnant and the nursery is still empty 😅",
        "what are the essentials?",
    ]
    assert sentences("ugh 🤦\u200d♀️ why me?") == ["ugh 🤦\u200d♀️", "why me?"]
    assert sentences("moving next week 🎉 can you help?") == [
        "moving next week 🎉",
        "can you help?",
    ]
    assert sentences("i love 🍕 so much?") == ["i love 🍕 so much?"]  # a thing, not a face
    # before a statement the emoji stays: news told alone would read as a cheer
    said = "finally unpacked the last box in Denver 🎉 the altitude is no joke."
    assert sentences(said) == [said]


def test_sentences_are_fresh_lists_for_chat_and_documents_alike() -> None:
    short = "I moved to Lisbon. I work at a bakery."
    first = sentences(short)
    first.append("changed by the caller")
    assert sentences(short) == ["I moved to Lisbon.", "I work at a bakery."]  # kept, not shared
    document = " ".join(f"Line {n} of the report." for n in range(400))  # past the kept length
    assert len(document) > 4096
    assert sentences(document)[-1] == "Line 399 of the report." and len(sentences(document)) == 400


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("Then Alice moved to Lisbon in May.", ["Alice", "Lisbon"]),
        ("Yesterday I met Bob Smith at the Bank of Spain.", ["Bob Smith", "Bank of Spain"]),
        ("The Eiffel Tower is in Paris, France.", ["Eiffel Tower", "Paris", "France"]),
        ("I'm going to New York with Alice's brother.", ["New York", "Alice"]),
        ('She said: "Great idea" to O\'Brien.', ["O'Brien"]),
        ("Thanks Bob!", ["Bob"]),
        ("I LOVE THIS SO MUCH", []),
        ("i think so", []),
        ("We went to Café de Flore with José.", ["Café de Flore", "José"]),
    ],
)
def test_proper_nouns(sentence: str, names: list[str]) -> None:
    assert proper_nouns(sentence) == names


def test_split_turns_reads_name_prefixed_lines() -> None:
    text = "Alice: I moved.\nIt is sunny.\nBob Smith: Nice!\nnot a name: x"
    assert split_turns(text) == [
        ("Alice", "I moved.\nIt is sunny."),
        ("Bob Smith", "Nice!\nnot a name: x"),
    ]
    assert split_turns("no speaker at all") == [(None, "no speaker at all")]
