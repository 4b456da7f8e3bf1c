"""Two backends on one file, as two processes would be, under random turns of four users: writes
with and without a block, searches of every scope, blocks of a thread, deleted threads, deleted
users who come back, thread ids taken again by other users. Every text carries its user's mark
(and the generation of that user, which a delete ends); no block or search of a user may show
another's mark, and a lexical search for a message's own word finds it while it is stored."""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import Message
from zepkit.core._errors import ConflictError
from zepkit.core.spi import SearchRequest, UserProfile
from zepkit.local import LocalBackend

WORDS = [
    "i",
    "like",
    "hiking",
    "coffee",
    "lisbon",
    "dog",
    "puppy",
    "sister",
    "works",
    "nurse",
    "moved",
    "austin",
    "peanuts",
]
MARK = re.compile(r"usr(\d)gen(\d+)")
USERS = 4


class _Model:
    """What is stored, as the test believes it, and the checks against it."""

    def __init__(self, seed: int, backends: list[LocalBackend]) -> None:
        self.rng = random.Random(seed)
        self.backends = backends
        self.generation = dict.fromkeys(range(USERS), 0)
        self.users: set[int] = set()
        self.threads: dict[str, tuple[int, int]] = {}  # thread id -> (user, generation)
        self.stored: dict[str, tuple[int, int, str]] = {}  # a message's word -> owner, thread
        self.written = 0
        self.log: list[str] = []

    def owner(self, user: int) -> tuple[int, int]:
        return user, self.generation[user]

    def own_threads(self, user: int) -> list[str]:
        return [thread for thread, owner in self.threads.items() if owner == self.owner(user)]

    def check(self, text: str, user: int, where: str) -> None:
        for mark in MARK.finditer(text):
            seen = (int(mark.group(1)), int(mark.group(2)))
            assert seen == self.owner(user), f"{where} of user {user} shows {seen}: {text!r}"

    async def step(self) -> None:
        backend = self.rng.choice(self.backends)
        user, roll = self.rng.randrange(USERS), self.rng.random()
        user_id = f"user-{user}"
        if user not in self.users or roll < 0.03:
            await backend.ensure_user(UserProfile(user_id))
            self.users.add(user)
            self.log.append(f"ensure user {user}")
        elif not self.own_threads(user) or roll < 0.1:
            await self.take_thread(backend, user, f"t{self.rng.randrange(10)}")
        elif roll < 0.55:
            await self.write(backend, user)
        elif roll < 0.59:
            thread = self.rng.choice(self.own_threads(user))
            await backend.delete_thread(thread)
            del self.threads[thread]
            self.stored = {k: v for k, v in self.stored.items() if v[2] != thread}
            self.log.append(f"delete thread {thread}")
        elif roll < 0.61:
            await backend.delete_user(user_id)
            self.stored = {k: v for k, v in self.stored.items() if v[:2] != self.owner(user)}
            self.threads = {k: v for k, v in self.threads.items() if v != self.owner(user)}
            self.generation[user] += 1
            self.users.discard(user)
            self.log.append(f"delete user {user}")
        elif roll < 0.88:
            await self.search(backend, user)
        else:
            thread = self.rng.choice(self.own_threads(user))
            self.check(await backend.get_context(thread) or "", user, "a thread's block")
            self.log.append(f"block of {thread}")

    async def take_thread(self, backend: LocalBackend, user: int, thread: str) -> None:
        held = self.threads.get(thread)
        if held is not None and held != self.owner(user):
            with pytest.raises(ConflictError):
                await backend.ensure_thread(thread, f"user-{user}")
            return
        await backend.ensure_thread(thread, f"user-{user}")
        self.threads[thread] = self.owner(user)
        self.log.append(f"thread {thread} for user {user}")

    async def write(self, backend: LocalBackend, user: int) -> None:
        thread = self.rng.choice(self.own_threads(user))
        messages = []
        for _ in range(self.rng.choice([1, 1, 2, 4])):
            self.written += 1
            word = f"said{self.written}x"
            user_mark = "usr{}gen{}".format(*self.owner(user))
            text = f"{' '.join(self.rng.sample(WORDS, 5))} {user_mark} {word}."
            messages.append(Message(self.rng.choice(["user", "user", "assistant"]), text))
            self.stored[word] = (*self.owner(user), thread)
        block = await backend.add_messages(thread, messages, return_context=self.rng.random() < 0.5)
        self.check(block or "", user, "the block of a write")
        self.log.append(f"wrote {len(messages)} to {thread}")

    async def search(self, backend: LocalBackend, user: int) -> None:
        scope: Any = self.rng.choice(["episodes", "edges", "nodes"])
        own = [word for word, owner in self.stored.items() if owner[:2] == self.owner(user)]
        word = self.rng.choice(own) if own and self.rng.random() < 0.7 else None
        query = " ".join([*([word] if word else []), *self.rng.sample(WORDS, 2)])
        found = await backend.search(SearchRequest(query, user_id=f"user-{user}", scope=scope))
        texts = [e.content for e in found.episodes] + [f.fact for f in found.edges]
        texts += [f"{n.name} {n.summary}" for n in found.nodes]
        for text in texts:
            self.check(text, user, f"a search of {scope}")
        if word is not None and scope == "episodes":
            assert any(word in text for text in texts), f"{word} is stored but not found"
        self.log.append(f"searched {scope} of user {user}")


HYBRID = pytest.param(
    "hybrid",
    marks=pytest.mark.skipif(
        importlib.util.find_spec("numpy") is None, reason="dense retrieval needs numpy"
    ),
)


@pytest.mark.parametrize("retriever", ["lexical", HYBRID])
@pytest.mark.parametrize("seed", range(3))
async def test_no_user_sees_another_and_nothing_stored_is_missed(
    db_path: Path, words: Any, retriever: str, seed: int
) -> None:
    options: dict[str, Any] = {"retriever": retriever}
    if retriever == "hybrid":
        options["embedder"] = words()
    backends = [LocalBackend(db_path, **options), LocalBackend(db_path, **options)]
    model = _Model(seed, backends)
    try:
        for _ in range(200):
            try:
                await model.step()
            except AssertionError as failure:
                raise AssertionError(f"seed {seed}, after: {model.log[-6:]}") from failure
    finally:
        for backend in backends:
            await backend.aclose()
    assert sum(entry.startswith("searched") for entry in model.log) > 30
    assert model.written > 60
