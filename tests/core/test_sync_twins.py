"""`SyncMemory`'s twins: each repeats its coroutine's signature and works on the local engine."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from zepkit.core import Identity, MemoryLoop, Message, NotFoundError, SyncMemory

NOT_TWINNED = {"run_search", "aclose"}  # strict internals / `close` is aclose's twin


def _coroutine_methods() -> list[str]:
    return sorted(
        name
        for name, value in inspect.getmembers(MemoryLoop)
        if not name.startswith("_")
        and inspect.iscoroutinefunction(value)
        and name not in NOT_TWINNED
    )


@pytest.mark.parametrize("name", _coroutine_methods())
def test_each_twin_repeats_its_coroutines_signature(name: str) -> None:
    twin = inspect.signature(getattr(SyncMemory, name))
    original = inspect.signature(getattr(MemoryLoop, name))
    assert twin.parameters == original.parameters  # names, kinds, defaults and annotations
    assert twin.return_annotation == original.return_annotation


def test_every_operation_through_the_blocking_api(tmp_path: Path) -> None:
    sync = MemoryLoop.local(tmp_path / "memory.db").sync
    ana = Identity(user_id="ana", thread_id="ana-1", first_name="Ana")
    assert sync.ensure_user("ana", first_name="Ana", email="ana@example.com") is True
    assert sync.get_user("ana").email == "ana@example.com"
    assert sync.ensure_thread("ana-1", user_id="ana") is True
    assert sync.ensure_graph("policies") is True
    sync.provision(ana)
    assert sync.begin_turn(ana, "I keep bees on my roof.", turn_id="1", recall_budget=None) == ""
    assert sync.capture_reply(ana, "Lovely!", turn_id="1", name="Coach") is True
    assert sync.capture_reply(ana, "partial", turn_id="2", partial=True) is False
    sync.add_messages("ana-1", [Message("user", "The hives are on the north side.")])
    later = Identity(user_id="ana", thread_id="ana-2")
    assert "bees" in sync.begin_turn(later, "How are my bees?")
    assert "bees" in (sync.get_context("ana-2") or "")
    assert [m.content for m in sync.get_messages("ana-1", limit=1)] == [
        "The hives are on the north side."
    ]
    assert sync.search("bees", user_id="ana", scope="edges", limit=5).edges
    [episode] = sync.add_data('{"hives": 2}', type="json", user_id="ana", metadata={"k": "v"})
    assert [e.uuid for e in sync.list_data("ana", limit=5).items] == [episode.uuid]
    assert sync.list_facts("ana").items
    assert [u.user_id for u in sync.list_users().items] == ["ana"]
    assert [t.thread_id for t in sync.list_threads("ana").items] == ["ana-1", "ana-2"]
    assert [m.name for m in sync.list_messages("ana-1").items][1] == "Coach"
    sync.drain()
    assert sync.replay_outbox(failed=True) == 0
    status = sync.outbox_status()
    assert status is not None and status.pending == 0
    sync.delete_thread("ana-1")
    with pytest.raises(NotFoundError):
        sync.list_messages("ana-1")
    sync.delete_user("ana", vacuum=True)
    with pytest.raises(NotFoundError):
        sync.get_user("ana")
    sync.close()
