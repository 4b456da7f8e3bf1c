"""`GET /openapi.json` documents exactly the routes the app serves, with resolvable schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from starlette.routing import Route

from zepkit.server import create_app


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return found + [ref for item in value.values() for ref in _refs(item)]
    if isinstance(value, list):
        return [ref for item in value for ref in _refs(item)]
    return []


async def test_the_document_matches_the_routes(server: Any, tmp_path: Path) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"{server.root}/openapi.json")  # no key needed
    assert answer.status_code == 200
    document = answer.json()
    assert document["openapi"].startswith("3.1")
    documented = {
        (path, method.upper()) for path, item in document["paths"].items() for method in item
    }
    app = create_app(tmp_path, keys=None)
    served = {
        (route.path, method)
        for route in app.routes
        if isinstance(route, Route) and route.path != "/openapi.json"
        for method in route.methods or ()
        if method != "HEAD"
    }
    assert documented == served
    assert {"/api/v4/threads/{uuid}/messages", "/api/v2/graph/search"} <= {p for p, _ in served}
    schemas = document["components"]["schemas"]
    for ref in _refs(document):
        assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] in schemas, ref
    add = schemas["V4AddMessages"]
    assert add["properties"]["messages"]["maxItems"] == 30
    assert "Api-Key" not in json.dumps(document["paths"])  # no key is ever in the document


async def test_every_operation_has_an_id_and_the_error_shape(server: Any) -> None:
    async with httpx.AsyncClient() as http:
        document = (await http.get(f"{server.root}/openapi.json")).json()
    ids = []
    for path, item in document["paths"].items():
        for operation in item.values():
            ids.append(operation["operationId"])
            if path != "/healthz":
                assert "4XX" in operation["responses"]
    assert len(ids) == len(set(ids))
