"""Construction from an API key, and who closes the client."""

from __future__ import annotations

import httpx
import pytest
from zep_cloud.client import AsyncZep

from zepkit.core._backend import Backend
from zepkit.core._errors import ConfigurationError
from zepkit.zep import ZEP_CAPABILITIES, ZepBackend
from zepkit.zep.testing import BASE_URL, FakeZep


def test_is_a_backend(fake: FakeZep) -> None:
    backend = ZepBackend(fake.client())
    assert isinstance(backend, Backend)
    assert backend.capabilities is ZEP_CAPABILITIES
    assert backend.capabilities.rerankers["auto"] == frozenset()
    assert not backend.capabilities.supports("episodes", "cross_encoder")


async def test_a_client_passed_in_is_not_closed(fake: FakeZep) -> None:
    http = fake.http_client()
    backend = ZepBackend(AsyncZep(api_key="test", base_url=BASE_URL, httpx_client=http))
    await backend.aclose()
    await backend.aclose()
    assert not http.is_closed
    await http.aclose()


async def test_an_owned_client_is_closed(fake: FakeZep) -> None:
    http = fake.http_client()
    client = AsyncZep(api_key="test", base_url=BASE_URL, httpx_client=http)
    backend = ZepBackend(client, owns_client=True)
    await backend.aclose()
    assert http.is_closed
    await backend.aclose()


async def test_from_api_key_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZEP_API_KEY", "from-env")
    backend = ZepBackend.from_api_key(base_url="http://zep.test/api/v4", timeout=5)
    assert backend.owns_client is True
    http: httpx.AsyncClient = backend.client._client_wrapper.httpx_client.httpx_client
    assert backend.client._client_wrapper.api_key == "from-env"
    await backend.aclose()
    assert http.is_closed


@pytest.mark.parametrize("value", [None, "", "   "])
def test_from_api_key_without_a_key(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    monkeypatch.delenv("ZEP_API_KEY", raising=False)
    if value is not None:
        monkeypatch.setenv("ZEP_API_KEY", value)
    with pytest.raises(ConfigurationError, match=r"export ZEP_API_KEY=\.\.\.") as caught:
        ZepBackend.from_api_key()
    assert "api_key=" in str(caught.value)


def test_negative_retries_are_refused(fake: FakeZep) -> None:
    with pytest.raises(ValueError, match="max_retries"):
        ZepBackend(fake.client(), max_retries=-1)
