"""The v3 dialect over a backend the server knows only through the `Backend` protocol, named on
the command line (`zepkit serve --backend module:callable`): two projects share one store, each
in its own namespace, and the zep-cloud 3.x SDK sees the same answers as on the local engine."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from zep_cloud.client import AsyncZep
from zep_cloud.core.api_error import ApiError
from zep_cloud.types import Message

FACTORY_MODULE = """
from pathlib import Path
from zepkit.core import MemoryLoop
from zepkit.local import LocalBackend
from zepkit.testing import SlowBackend

STORE = Path(__file__).parent / "shared-store.db"

def memory(project: str) -> MemoryLoop:
    # wrapped: to the server this is any backend, shared by every project (one store)
    inner = LocalBackend(STORE, retriever="lexical")
    return MemoryLoop(SlowBackend(inner, delay=0), outbox=None)
"""
KEYS = {"alpha": "v3-factory-key-alpha", "bravo": "v3-factory-key-bravo"}


@pytest.fixture
def root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, serve_process: Callable[..., Any]
) -> Iterator[str]:
    """`zepkit serve --backend v3_store:memory` on loopback until the test ends."""
    monkeypatch.delenv("ZEP_API_URL", raising=False)  # the SDK would take it over base_url
    (tmp_path / "v3_store.py").write_text(FACTORY_MODULE)
    env = {
        **os.environ,
        "ZEPKIT_API_KEYS": ",".join(f"{key}={project}" for project, key in KEYS.items()),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }
    args = ["--db", str(tmp_path / "data"), "--backend", "v3_store:memory"]
    with serve_process(args, env, "v3_store:memory") as (_, root):
        yield root
    assert (tmp_path / "shared-store.db").exists()
    assert not (tmp_path / "data" / "alpha.db").exists()  # the data folder holds only ids


def _client(root: str, project: str) -> AsyncZep:
    return AsyncZep(api_key=KEYS[project], base_url=f"{root}/api/v2")


async def test_a_turn_and_its_memory_over_the_wrapped_backend(root: str) -> None:
    zep = _client(root, "alpha")
    await zep.user.add(user_id="alice", first_name="Alice")
    await zep.thread.create(thread_id="chat one", user_id="alice")
    said = Message(role="user", content="I adopted a greyhound named Comet.", name="Alice")
    await zep.thread.add_messages("chat one", messages=[said])
    await zep.thread.create(thread_id="chat-2", user_id="alice")
    asked = Message(role="user", content="What is my greyhound called?")
    answer = await zep.thread.add_messages("chat-2", messages=[asked], return_context=True)
    assert answer.context and "Comet" in answer.context
    context = await zep.thread.get_user_context("chat-2")
    assert context.context and "Comet" in context.context
    history = await zep.thread.get("chat one")
    assert [m.content for m in history.messages or []] == [said.content]
    edges = await zep.graph.search(query="greyhound Comet", user_id="alice")
    assert any("Comet" in e.fact for e in edges.edges or [])
    await zep.graph.add(data="Alice rows on Sundays.", type="text", user_id="alice")
    episodes = await zep.graph.search(query="rows Sundays", user_id="alice", scope="episodes")
    assert any("Sundays" in e.content for e in episodes.episodes or [])
    with pytest.raises(ApiError) as again:
        await zep.thread.create(thread_id="chat one", user_id="alice")
    assert again.value.status_code == 409


async def test_two_projects_on_one_store_never_meet(root: str) -> None:
    alpha, bravo = _client(root, "alpha"), _client(root, "bravo")
    for zep in (alpha, bravo):  # the same ids in both projects: no conflict
        await zep.user.add(user_id="alice")
        await zep.thread.create(thread_id="chat one", user_id="alice")
    said = Message(role="user", content="My locker code is 5521.")
    await alpha.thread.add_messages("chat one", messages=[said])
    found = await bravo.graph.search(query="locker code", user_id="alice", scope="edges")
    assert not found.edges
    assert not (await bravo.thread.get("chat one")).messages
    await bravo.user.delete("alice")
    kept = await alpha.graph.search(query="locker code", user_id="alice", scope="edges")
    assert any("5521" in e.fact for e in kept.edges or [])
