"""`ZepSearchTool`: what the model may set, the "all" scope, the target, and fail-soft."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from zepkit.core import MemoryLoop
from zepkit.crewai import ZepSearchTool
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend


@pytest.fixture
def memory() -> Iterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    loop.sync.ensure_user("lee")
    loop.sync.add_data("Lee's brother Tomas repairs vintage bicycles in Porto.", user_id="lee")
    yield loop
    loop.sync.close()


def test_query_only_tool_exposes_only_the_query(memory: MemoryLoop) -> None:
    tool = ZepSearchTool(memory, user_id="lee")
    assert set(tool.args_schema.model_json_schema()["properties"]) == {"query"}
    assert "Porto" in tool.run(query="Tomas bicycles")
    # The scope is not the model's to set: CrewAI drops the extra argument, or zepkit refuses it.
    sneaky = tool.run(query="Tomas bicycles", scope="nodes")
    assert sneaky == tool.run(query="Tomas bicycles") or sneaky.startswith("Error: unknown")


def test_query_and_scope_offers_all(memory: MemoryLoop) -> None:
    tool = ZepSearchTool(memory, user_id="lee", model_sets="query_and_scope")
    schema = tool.args_schema.model_json_schema()
    scope = schema["properties"]["scope"]
    assert {"edges", "nodes", "episodes", "all"} <= set(scope["enum"])
    assert "all:" in tool.description
    everything = tool.run(query="Tomas bicycles Porto", scope="all")
    assert "Episodes:\n- Lee's brother Tomas" in everything
    episodes = tool.run(query="Tomas bicycles", scope="episodes")
    assert episodes.startswith("- Lee's brother Tomas")


def test_pinned_scope_all(memory: MemoryLoop) -> None:
    tool = ZepSearchTool(memory, user_id="lee", scope="all")
    assert "Episodes:" in tool.run(query="Tomas bicycles")


def test_the_target_is_fixed_at_construction(memory: MemoryLoop) -> None:
    other = ZepSearchTool(memory, user_id="someone-else")
    assert "Porto" not in other.run(query="Tomas bicycles")
    memory.sync.add_data("The shop opens at 9am.", graph_id="shop")
    shared = ZepSearchTool(memory, graph_id="shop", scope="episodes")
    assert "9am" in shared.run(query="shop opens")
    with pytest.raises(ValueError, match="exactly one"):
        ZepSearchTool(memory, user_id="lee", graph_id="shop")
    with pytest.raises(ValueError, match="exactly one"):
        ZepSearchTool(memory)
    with pytest.raises(ValueError, match="scope"):
        ZepSearchTool(memory, user_id="lee", scope="everything")


def test_bad_input_comes_back_as_a_sentence(memory: MemoryLoop) -> None:
    tool = ZepSearchTool(memory, user_id="lee", model_sets="query_and_scope")
    assert tool.run(query="   ").startswith("Error")
    assert tool.run(query="  ", scope="all").startswith("Error")


def test_failing_backend_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    memory = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    tool = ZepSearchTool(memory, user_id="lee", scope="all")
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        text = tool.run(query="bicycles")
    assert "failed" in text or text == "No results found."
    assert caplog.records
    memory.sync.close()
