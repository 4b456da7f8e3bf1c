"""`zepkit.core.spi.as_memory`: what an adapter was given as memory, made a `MemoryLoop`. A real
`zep_cloud.AsyncZep` (talking to the HTTP-level fake) becomes one loop on Zep Cloud, shared while
in use; a loop passes through; anything else is refused by name."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import pytest
from zep_cloud import Zep
from zep_cloud.client import AsyncZep

from zepkit.core import Identity, MemoryLoop
from zepkit.core.spi import as_memory
from zepkit.zep import ZepBackend
from zepkit.zep.testing import FakeZep


async def test_a_loop_passes_through() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        assert as_memory(memory) is memory


async def test_a_zep_client_becomes_one_loop_on_zep_cloud() -> None:
    fake = FakeZep()
    client = fake.client()
    loop = as_memory(client)
    assert isinstance(loop.backend, ZepBackend)
    assert loop.backend.client is client
    assert not loop.backend.owns_client  # the client stays the caller's
    assert as_memory(client) is loop  # pieces given the same client share its loop
    assert as_memory(fake.client()) is not loop
    identity = Identity(user_id="ana", thread_id="t1")
    await loop.begin_turn(identity, "I moved to Lisbon last spring.")
    await loop.capture_reply(identity, "Noted.")
    assert [m.role for m in await loop.get_messages("t1")] == ["user", "assistant"]
    assert fake.calls("POST", "/users")  # through the caller's client, to the fake
    await loop.aclose()
    assert not client._client_wrapper.httpx_client.httpx_client.is_closed


async def test_a_subclass_of_the_client_is_a_client_too() -> None:
    class MyZep(AsyncZep):
        pass

    fake = FakeZep()
    client = MyZep(
        api_key="test", base_url="http://zep.test/api/v4", httpx_client=fake.http_client()
    )
    loop = as_memory(client)
    assert isinstance(loop.backend, ZepBackend) and loop.backend.client is client
    await loop.aclose()


async def test_the_loop_is_shared_only_while_in_use() -> None:
    """The cache keeps no loop alive: once nothing holds it, the client gets a new one."""
    client = FakeZep().client()
    gone = weakref.ref(as_memory(client))
    gc.collect()
    assert gone() is None
    loop = as_memory(client)
    assert as_memory(client) is loop
    await loop.aclose()


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ("not memory", "got str"),
        (object(), "got object"),
        (Zep(api_key="test"), "got zep_cloud.client.Zep (a synchronous Zep client"),
    ],
    ids=["str", "object", "sync-client"],
)
def test_anything_else_is_refused_by_name(given: object, named: str) -> None:
    with pytest.raises(TypeError, match=r"MemoryLoop or a zep_cloud\.AsyncZep client") as raised:
        as_memory(given)
    assert named in str(raised.value)


def test_recognising_a_client_imports_no_zep_code() -> None:
    """Only a real client brings in the Zep backend: the check reads class names."""
    code = (
        "import sys; from zepkit.core.spi import as_memory\n"
        "try:\n    as_memory('x')\nexcept TypeError:\n    pass\n"
        "assert 'zep_cloud' not in sys.modules and 'zepkit.zep' not in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
