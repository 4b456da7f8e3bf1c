from __future__ import annotations

import json

import pytest

from zepkit.core import MAX_MESSAGE_CHARS, Message
from zepkit.core._validation import chunk_data, prepare_messages, split_text


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


def _content(value: object) -> str:
    """Every string value (not key) and number of a JSON value in document order, without the
    whitespace that chunking may drop at a cut."""
    if isinstance(value, dict):
        return "".join(_content(v) for v in value.values())
    if isinstance(value, list):
        return "".join(_content(item) for item in value)
    return "".join(value.split()) if isinstance(value, str) else json.dumps(value)


AWKWARD_JSON = {
    "long nested keys": {"a" * 1500: {"b" * 1500: "word " * 4000}},
    "long keys over a list": {"a" * 1000: {"b" * 1000: ["w " * 10] * 1000}},
    "two nested 5,000-character values": {
        "profile": {"notes": {"long": "x" * 5000}},
        "history": {"log": {"long": "y" * 5000}},
        "items": [{"id": i, "text": "item " * 20} for i in range(150)],
    },
    "escapes everywhere": {"quotes": '"\\' * 6000, "controls": "\x01\n" * 3000},
    "deep but allowed": {"k": [[[[[[[[{"v": "deep words " * 2000}]]]]]]]]},
    "one huge list item": [["z" * 25_000]],
}


@pytest.mark.parametrize("name", list(AWKWARD_JSON))
def test_json_chunking_terminates_near_the_input_size(name: str) -> None:
    data = json.dumps(AWKWARD_JSON[name], ensure_ascii=False)
    chunks = chunk_data(data, "json", 10_000)
    assert len(chunks) > 1
    assert all(len(chunk) <= 10_000 for chunk in chunks)
    assert sum(len(chunk) for chunk in chunks) <= len(data) * 1.5
    content = "".join(_content(json.loads(chunk)) for chunk in chunks)
    assert content == _content(AWKWARD_JSON[name])


def test_json_chunk_paths_keep_their_keys() -> None:
    value = {"order": {"items": ["apple pie " * 50 for _ in range(60)]}}
    chunks = [json.loads(c) for c in chunk_data(json.dumps(value), "json", 10_000)]
    assert len(chunks) > 1
    assert all(list(c) == ["order"] and list(c["order"]) == ["items"] for c in chunks)
    assert [i for c in chunks for i in c["order"]["items"]] == value["order"]["items"]


@pytest.mark.parametrize("depth", [65, 5000])
async def test_too_deep_json_is_a_clear_error(depth: int) -> None:
    from zepkit.core import MemoryLoop

    data = "[" * depth + "1" + "]" * depth
    async with MemoryLoop.local() as memory:
        with pytest.raises(ValueError, match="nested"):
            await memory.add_data(data, type="json", user_id="u")


@pytest.mark.parametrize(
    "value",
    [
        {"a" * 5000: {"b" * 5000: "word " * 4000}},
        {"a" * 4900: {"b" * 4900: "word " * 4000}},
        {"a" * 4000: {"b" * 4000: ["w " * 10] * 1000}},
    ],
)
def test_keys_longer_than_half_a_chunk_are_refused(value: object) -> None:
    with pytest.raises(ValueError, match="keys"):
        chunk_data(json.dumps(value), "json", 10_000)
