"""The direct route table finds exactly the route and parameters Starlette's router would, and
leaves everything else (unknown paths, other methods, trailing slashes) to Starlette."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.routing import Match, Route

from zepkit.server import create_app
from zepkit.server.dispatch import DirectApp, Routes


def _sample(path: str) -> str:
    """`path` with each parameter filled in with a value of its own."""
    parts = path.split("/")
    return "/".join(f"v{n}-x" if p.startswith("{") else p for n, p in enumerate(parts))


def test_every_route_is_found_as_starlette_finds_it(tmp_path: Path) -> None:
    app = create_app(tmp_path, keys=None)
    assert isinstance(app, DirectApp)
    routes = [r for r in app.routes if isinstance(r, Route) and r.path.startswith("/api/")]
    assert len(routes) > 20
    for route in routes:
        for method in route.methods or ():
            if method == "HEAD":
                continue
            path = _sample(route.path)
            found = app.direct.match(method, path)
            assert found is not None, (method, path)
            endpoint, params = found
            scope = {"type": "http", "method": method, "path": path, "root_path": ""}
            matched = [r for r in routes if r.matches(scope)[0] is Match.FULL]
            assert matched and matched[0].endpoint is endpoint, (method, path)
            assert params == matched[0].matches(scope)[1]["path_params"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v4/threads/abc/messages/"),  # trailing slash
        ("POST", "/api/v4/threads//messages"),  # empty parameter
        ("HEAD", "/api/v4/threads/abc/messages"),  # Starlette answers HEAD for GET
        ("PUT", "/api/v4/threads/abc/messages"),
        ("POST", "/api/v4/nowhere"),
        ("GET", "/healthz"),
        ("GET", "/"),
    ],
)
def test_what_the_table_does_not_hold_is_left_to_starlette(
    tmp_path: Path, method: str, path: str
) -> None:
    assert create_app(tmp_path, keys=None).direct.match(method, path) is None


def test_a_route_with_a_parameter_for_its_resource_is_refused() -> None:
    async def endpoint(request: Any) -> Any:
        raise AssertionError

    with pytest.raises(ValueError, match="must be literal"):
        Routes().add("GET", "/api/v4/{what}", endpoint)
    with pytest.raises(ValueError, match="whole-segment"):
        Routes().add("GET", "/api/v4/users/{uuid:int}", endpoint)


async def test_served_directly_and_through_starlette_alike(tmp_path: Path) -> None:
    """A route served by the table, an unknown path and a wrong method answer in Zep's shape."""
    app = create_app(tmp_path, keys=None)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://test") as http,
    ):
        created = await http.post("/api/v4/users", json={"user_id": "ada"})
        assert created.status_code == 201
        uuid = created.json()["uuid"]
        assert (await http.get(f"/api/v4/users/{uuid}")).json()["user_id"] == "ada"
        missing = await http.get("/api/v4/users/nobody")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
        unknown = await http.get("/api/v4/nowhere")
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
        wrong = await http.put(f"/api/v4/users/{uuid}")
        assert wrong.status_code == 405
        assert wrong.json()["error"]["code"] == "method_not_allowed"
