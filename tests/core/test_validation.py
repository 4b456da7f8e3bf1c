from __future__ import annotations

import json

import pytest

from zepkit.core import MAX_MESSAGE_CHARS, Message
from zepkit.core.validation import chunk_data, prepare_messages, split_text


def _words(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("size", [50, 333, 4096])
def test_split_text_never_loses_a_word(size: int) -> None:
    text = " ".join(f"word{i}." if i % 7 == 0 else f"w{i}" for i in range(3000))
    text += "\n\nA second paragraph. " * 40 + "x" * (size * 2)  # and one unbreakable run
    pieces = split_text(text, size)
    assert all(0 < len(piece) <= size for piece in pieces)
    assert "".join(_words(" ".join(pieces))) == "".join(_words(text))


def test_split_prefers_paragraph_then_sentence_boundaries() -> None:
    text = ("First paragraph sentence one. Sentence two." + "\n\n") * 3
    pieces = split_text(text.strip(), 50)
    assert pieces[0] == "First paragraph sentence one. Sentence two."


def test_prepare_messages_splits_oversized_and_skips_empty() -> None:
    big = "Emoji 🍜 and CJK 漢字. " * 600
    prepared = prepare_messages(
        [
            Message("user", "  "),
            Message("user", big, name="A", metadata={"k": "v"}),
            Message("assistant", ""),
        ]
    )
    assert len(prepared) > 1
    assert all(len(m.content) <= MAX_MESSAGE_CHARS for m in prepared)
    assert all(m.role == "user" and m.name == "A" and m.metadata == {"k": "v"} for m in prepared)
    assert "".join(_words(" ".join(m.content for m in prepared))) == "".join(_words(big))


def test_prepare_messages_rejects_non_messages() -> None:
    with pytest.raises(TypeError, match=r"messages\[1\]"):
        prepare_messages([Message("user", "ok"), {"role": "user", "content": "dict"}])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "value",
    [
        [{"id": i, "text": "item " * 20} for i in range(400)],
        {f"key{i}": "value " * 30 for i in range(300)},
        {"only": "z" * 25_000},
        ['q"uote\\ ' * 3000],
    ],
)
def test_json_chunks_are_valid_json_within_the_limit(value: object) -> None:
    data = json.dumps(value)
    chunks = chunk_data(data, "json", 10_000)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk) <= 10_000
        json.loads(chunk)


def test_text_chunks_fit() -> None:
    text = "Sentence here. " * 2000  # 30,000 characters: whole sentences, 666 per chunk
    chunks = chunk_data(text, "text", 10_000)
    assert len(chunks) == 4
    assert all(len(c) <= 10_000 and c.rstrip().endswith("here.") for c in chunks)
    assert " ".join(chunks).split() == text.split()
