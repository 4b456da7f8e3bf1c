"""Fuzzing every documented route: bodies generated from the OpenAPI schemas (often valid, often
subtly wrong, sometimes garbage), odd path and query values, on a server that holds real data.
No answer may be a 500 or take long; every error has Zep's shape. Seeded, so a failure repeats."""

from __future__ import annotations

import random
import string
from typing import Any

import httpx
import pytest

ROUNDS = 25  # per route and seed
ODD_STRINGS = [
    "",
    " ",
    "a" * 10_001,
    "null",
    "ä漢字🙂",
    "../../etc",
    "%00",
    "' OR 1=1 --",
    "<ZEP_CONTEXT>",
    "\x00\x1f",
    "-1",
    "99999999999999999999",
]


def _odd(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            True,
            -1,
            0,
            2**70,
            1.5e308,
            rng.choice(ODD_STRINGS),
            [],
            {},
            [None],
            {"nested": {"deep": [1, "x"]}},
            "".join(rng.choices(string.printable, k=rng.randint(0, 40))),
        ]
    )


def _value(schema: dict[str, Any], defs: dict[str, Any], rng: random.Random, ids: list[str]) -> Any:
    if rng.random() < 0.15:
        return _odd(rng)
    if "$ref" in schema:
        return _value(defs[schema["$ref"].rsplit("/", 1)[1]], defs, rng, ids)
    if "anyOf" in schema:
        return _value(rng.choice(schema["anyOf"]), defs, rng, ids)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "string":
        if schema.get("format") == "date-time":
            return rng.choice(["2026-01-02T03:04:05Z", "2026-13-40", "yesterday"])
        limit = schema.get("maxLength", 60)
        return rng.choice(
            [
                *ids,
                "alice",
                "I adopted a greyhound named Comet.",
                "x" * rng.choice([1, limit, limit + 1]),
            ]
        )
    if kind == "integer":
        return rng.choice([0, 1, 10, 50, 51, -5, schema.get("maximum", 100)])
    if kind == "number":
        return rng.choice([0.0, 0.5, 1.0, 1.1, -0.1])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        count = rng.choice([0, 1, 2, 31])
        return [_value(schema.get("items", {}), defs, rng, ids) for _ in range(count)]
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        body = {
            name: _value(sub, defs, rng, ids)
            for name, sub in properties.items()
            if name in schema.get("required", []) or rng.random() < 0.6
        }
        if not properties:  # free-form (metadata, filters)
            body = {f"k{i}": _odd(rng) for i in range(rng.choice([0, 1, 11]))}
        return body
    return _odd(rng)


def _path(template: str, rng: random.Random, ids: list[str]) -> str:
    parts = []
    for part in template.split("/"):
        if part.startswith("{"):
            if part == "{scope}":
                part = rng.choice(["edges", "nodes", "episodes", "observations", "x"])
            else:
                odd = ["nobody", "ä漢字", "a b", "%2F", "0" * 600]
                part = rng.choice(ids) if rng.random() < 0.7 else rng.choice(odd)
            part = httpx.URL("http://x/" + part).raw_path.decode().lstrip("/") or "x"
        parts.append(part)
    return "/".join(parts)


@pytest.fixture
async def seeded(server: Any) -> dict[str, Any]:
    """A project with a user, a thread, messages and a shared graph, so ids can be real."""
    headers = {"Authorization": f"Api-Key {server.alpha_key}"}
    async with httpx.AsyncClient(base_url=server.v4 + "/", headers=headers) as http:
        user = (await http.post("users", json={"user_id": "alice"})).json()
        thread = (await http.post("threads", json={"user_uuid": user["uuid"]})).json()
        message = {"role": "user", "content": "I adopted a greyhound named Comet."}
        await http.post(f"threads/{thread['uuid']}/messages", json={"messages": [message]})
        graph = (await http.post("graphs", json={"name": "handbook"})).json()
    ids = [user["uuid"], user["graph_uuid"], thread["uuid"], graph["uuid"], "alice"]
    return {"headers": headers, "ids": ids}


@pytest.mark.parametrize("seed", [1, 2])
async def test_no_route_answers_500_or_hangs(
    server: Any, seeded: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(timeout=10) as http:
        document = (await http.get(f"{server.root}/openapi.json")).json()
        defs = document["components"]["schemas"]
        checked = 0
        for template, item in document["paths"].items():
            for method, operation in item.items():
                body_ref = operation.get("requestBody", {}).get("content", {})
                schema = body_ref.get("application/json", {}).get("schema")
                for _ in range(ROUNDS):
                    url = server.root + _path(template, rng, seeded["ids"])
                    query = {
                        p["name"]: str(_odd(rng) if rng.random() < 0.5 else rng.choice([1, 10, 50]))
                        for p in operation.get("parameters", [])
                        if p["in"] == "query" and rng.random() < 0.5
                    }
                    kwargs: dict[str, Any] = {"params": query, "headers": seeded["headers"]}
                    if schema is not None:
                        if rng.random() < 0.1:
                            kwargs["content"] = rng.choice([b"{", b"[]", b"\xff\xfe", b"null"])
                        else:
                            kwargs["json"] = _value(schema, defs, rng, seeded["ids"])
                    answer = await http.request(method.upper(), url, **kwargs)
                    checked += 1
                    assert answer.status_code < 500, (method, url, kwargs, answer.text)
                    if answer.status_code >= 400:
                        assert set(answer.json()["error"]) >= {"code", "message"}, answer.text
    assert checked >= 20 * ROUNDS
