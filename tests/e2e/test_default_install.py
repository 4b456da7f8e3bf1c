"""The default install recalls semantically; an install without the model still works, lexically.

Each test runs in the session whose install it is about (`tests-core` has the `embeddings` extra,
`tests-lexical` has none of it) and is skipped in the other.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from zepkit.local import minilm

OPEN_TWICE_AND_SEARCH = """
import asyncio, logging
logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
from zepkit.core import Identity, MemoryLoop
from zepkit.local import LocalBackend

async def main():
    for _ in range(2):
        backend = LocalBackend(":memory:")
        print(backend.retriever)
        async with MemoryLoop(backend) as memory:
            user = Identity(user_id="ana", thread_id="t1")
            await memory.begin_turn(user, "My brother Tobias plays the trombone.")
            found = await memory.search("trombone", user_id="ana", scope="episodes")
            print(len(found.episodes))

asyncio.run(main())
"""


def _run() -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", OPEN_TWICE_AND_SEARCH],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not minilm.available(), reason="the embeddings extra is not installed")
def test_with_the_default_install_search_is_hybrid() -> None:
    result = _run()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["hybrid", "1", "hybrid", "1"]
    assert "searching lexically" not in result.stderr


@pytest.mark.skipif(minilm.available(), reason="the embeddings extra is installed")
def test_without_the_model_search_is_lexical_and_says_so_once() -> None:
    result = _run()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["lexical", "1", "lexical", "1"]
    told = [line for line in result.stderr.splitlines() if "searching lexically" in line]
    assert len(told) == 1 and "zepkit-core[embeddings]" in told[0]
