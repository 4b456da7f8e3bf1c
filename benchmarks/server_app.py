"""The server's own CPU per turn, its ASGI app called in process. Prints JSON.

No HTTP server and no client: each request is the scope, headers and JSON body the zep-cloud
4.x SDK sends, handed to the app as uvicorn would hand it over, and the answer's status is
checked. A turn is `benchmarks/server.py`'s (the user's message with `return_context`, a search
of the user's graph, the reply). Measured: the CPU of the thread that runs the app (routing,
validation, the handlers, the id registry, JSON, and the local engine's calls, which the server
runs on that thread), the least of RUNS runs of TURNS turns, so a busy machine shows less in it
than in wall time. Lexical local engine in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message

from zepkit.server import create_app
from zepkit.server.projects import local_backend

HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"accept", b"*/*"),
    (b"accept-encoding", b"gzip, deflate"),
    (b"connection", b"keep-alive"),
    (b"user-agent", b"zep-cloud/4.0.1"),
    (b"x-fern-language", b"Python"),
    (b"x-fern-sdk-name", b"zep-cloud"),
    (b"x-fern-sdk-version", b"4.0.1"),
    (b"authorization", b"Api-Key unused"),
    (b"content-type", b"application/json"),
]


async def call(app: ASGIApp, path: str, body: dict[str, Any], query: bytes = b"") -> Any:
    """POST `body` to `path` as the SDK sends it: the JSON answer (its status checked)."""
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = [*HEADERS, (b"idempotency-key", str(uuid.uuid4()).encode())]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "root_path": "",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": [*headers, (b"content-length", str(len(data)).encode())],
        "state": {},
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": data, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    if sent[0]["status"] not in (200, 201, 202):
        raise RuntimeError(f"{path} answered {sent[0]['status']}: {sent[1]['body']!r}")
    return json.loads(sent[1]["body"])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--turns", type=int, default=200, help="turns per run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Path(folder), keys=None, backend_factory=local_backend("lexical"))
        async with app.router.lifespan_context(app):
            users = []
            for n in range(8):
                user = await call(app, "/api/v4/users", {"user_id": f"user-{n}"})
                thread = await call(app, "/api/v4/threads", {"user_uuid": user["uuid"]})
                users.append((thread["uuid"], user["uuid"]))
            played = 0

            async def turn() -> None:
                nonlocal played
                thread, graph = users[played % len(users)]
                played += 1
                text = f"I adopted a greyhound named Comet last spring. (note {played})"
                said = {"messages": [{"content": text, "role": "user"}], "return_context": True}
                await call(app, f"/api/v4/threads/{thread}/messages", said)
                search = f"/api/v4/graphs/{graph}/search/edges"
                await call(app, search, {"query": text}, b"page_size=5")
                reply = {"messages": [{"content": f"Noted. ({played})", "role": "assistant"}]}
                await call(app, f"/api/v4/threads/{thread}/messages", reply)

            for _ in range(100):  # warm: caches, the first calls' imports
                await turn()
            best = float("inf")
            for _ in range(args.runs):
                started = time.thread_time()
                for _ in range(args.turns):
                    await turn()
                best = min(best, (time.thread_time() - started) / args.turns)
    print(
        json.dumps(
            {
                "benchmark": "server_app",
                "runs": args.runs,
                "turns_per_run": args.turns,
                "app_thread_cpu_ms_per_turn_least": round(best * 1000, 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
