"""The OpenAPI 3.1 document of what the server serves, built from the same route tables that
make the routes (so the two cannot drift), with the request bodies' JSON schemas and Zep's
error shape. Served at `GET /openapi.json`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from zepkit.core import __version__
from zepkit.server.endpoints import Endpoint

_PARAM = re.compile(r"{(\w+)}")
_REF = "#/components/schemas/{model}"
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "request_id"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "param": {"type": "string", "description": "the field at fault"},
                "request_id": {"type": "string"},
            },
        }
    },
}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _operation(prefix: str, endpoint: Endpoint, schemas: dict[str, Any]) -> dict[str, Any]:
    dialect = "v4" if prefix.endswith("v4") else "v3"
    parameters: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _PARAM.findall(endpoint.path)
    ]
    parameters += [
        {"name": name, "in": "query", "required": False, "schema": {"type": "string"}}
        for name in endpoint.query
    ]
    operation: dict[str, Any] = {
        "summary": endpoint.summary,
        "operationId": f"{dialect}_{endpoint.handler.__name__}",
        "tags": [dialect],
        "parameters": parameters,
        "responses": {
            str(endpoint.status): {"description": "success", "content": _json({"type": "object"})},
            "4XX": {
                "description": "Zep-shaped error",
                "content": _json({"$ref": _REF.format(model="Error")}),
            },
        },
    }
    if endpoint.body is not None:
        name = f"{dialect.upper()}{endpoint.body.__name__}"
        schema = endpoint.body.model_json_schema(ref_template=_REF)
        schemas.update(schema.pop("$defs", {}))
        schemas[name] = schema
        operation["requestBody"] = {
            "required": True,
            "content": _json({"$ref": _REF.format(model=name)}),
        }
    return operation


def document(dialects: Iterable[tuple[str, Sequence[Endpoint]]]) -> dict[str, Any]:
    schemas: dict[str, Any] = {"Error": ERROR_SCHEMA}
    paths: dict[str, dict[str, Any]] = {
        "/healthz": {
            "get": {
                "summary": "Liveness (no key needed)",
                "operationId": "healthz",
                "security": [],
                "responses": {"200": {"description": "serving"}},
            }
        }
    }
    for prefix, endpoints in dialects:
        for endpoint in endpoints:
            item = paths.setdefault(prefix + endpoint.path, {})
            item[endpoint.method.lower()] = _operation(prefix, endpoint, schemas)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "zepkit-server",
            "version": __version__,
            "description": "Zep-compatible memory API: v4 under /api/v4, v3 under /api/v2.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "ApiKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`Api-Key <key>`, as Zep's SDKs send it",
                }
            },
        },
        "security": [{"ApiKey": []}],
    }
