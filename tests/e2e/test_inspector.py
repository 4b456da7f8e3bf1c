"""`zepkit ui`: the inspector page's JSON endpoints on a real local database built through
`MemoryLoop`, served on 127.0.0.1 (a free port), and the command that serves it."""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import Identity, MemoryLoop
from zepkit.core._cli import inspector_server
from zepkit.core._inspector.server import InspectorServer, check_loopback

MAYA = Identity(user_id="maya", thread_id="m1", first_name="Maya")
HOSTILE = '<script>alert("memory")</script><img src=x onerror=alert(1)> & "quotes"'
TOLD = (
    "I live in Lisbon and work at the Oceanarium.",
    "My dog Biscuit loves the beach at Cascais.",
    "I'm allergic to peanuts.",
    HOSTILE,
)
QUESTION = "Can you suggest a snack for the beach with Biscuit?"


async def _build(db: Path) -> None:
    async with MemoryLoop.local(db, on_error="raise") as memory:
        for number, text in enumerate(TOLD, start=1):
            await memory.begin_turn(MAYA, text, turn_id=f"t{number}")
            await memory.capture_reply(MAYA, "Noted.", turn_id=f"t{number}")
        later = MAYA.model_copy(update={"thread_id": "m2"})
        await memory.begin_turn(later, "I moved to Porto.", turn_id="p")
        await memory.ensure_user("sam")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("inspector") / "memory.db"
    asyncio.run(_build(db))
    return db


@pytest.fixture
def db(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of the built database for each test (some delete or write)."""
    copy = tmp_path / "memory.db"
    copy.write_bytes(built.read_bytes())
    return copy


@pytest.fixture
def server(db: Path) -> Iterator[InspectorServer]:
    with inspector_server(str(db)).start() as running:
        yield running


class Client:
    def __init__(self, server: InspectorServer) -> None:
        self.server = server

    def request(
        self, method: str, path: str, body: Any = None, **headers: str
    ) -> tuple[int, Any, dict[str, str]]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server.url + path, data=data, method=method)
        for name, value in headers.items():
            request.add_header(name.replace("_", "-"), value)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                raw, status, got = response.read(), response.status, dict(response.headers)
        except urllib.error.HTTPError as error:
            raw, status, got = error.read(), error.code, dict(error.headers)
        kind = got.get("Content-Type", "")
        return status, json.loads(raw) if kind.startswith("application/json") else raw, got

    def get(self, path: str) -> Any:
        status, answer, _ = self.request("GET", path)
        assert status == 200, answer
        return answer

    def post(self, path: str, body: Any, **headers: str) -> tuple[int, Any]:
        headers.setdefault("Content_Type", "application/json")
        headers.setdefault("X_Zepkit_Token", self.server.token)
        status, answer, _ = self.request("POST", path, body, **headers)
        return status, answer


@pytest.fixture
def client(server: InspectorServer) -> Client:
    return Client(server)


def test_users_threads_and_messages(client: Client) -> None:
    users = client.get("api/users")
    assert [(u["user_id"], u["first_name"]) for u in users["items"]] == [
        ("maya", "Maya"),
        ("sam", None),
    ]
    assert users["next_cursor"] is None
    threads = client.get("api/threads?user_id=maya")["items"]
    assert [t["thread_id"] for t in threads] == ["m1", "m2"]
    assert client.get("api/threads?user_id=sam") == {"items": [], "next_cursor": None}
    messages = client.get("api/messages?thread_id=m1")["items"]
    assert [m["content"] for m in messages[::2]] == list(TOLD)
    assert {m["role"] for m in messages} == {"user", "assistant"}
    assert messages[0]["name"] == "Maya" and messages[0]["created_at"]


def test_listings_come_in_pages(client: Client) -> None:
    first = client.get("api/messages?thread_id=m1&limit=3")
    assert len(first["items"]) == 3 and first["next_cursor"]
    rest = client.get(f"api/messages?thread_id=m1&limit=100&cursor={first['next_cursor']}")
    everything = client.get("api/messages?thread_id=m1")["items"]
    assert first["items"] + rest["items"] == everything and rest["next_cursor"] is None
    one = client.get("api/users?limit=1")
    assert [u["user_id"] for u in one["items"]] == ["maya"]
    other = client.get(f"api/users?limit=1&cursor={one['next_cursor']}")
    assert [u["user_id"] for u in other["items"]] == ["sam"]
    for bad in ("0", "101", "x"):
        status, answer, _ = client.request("GET", f"api/users?limit={bad}")
        assert status == 400 and "limit" in answer["error"]


def test_facts_carry_their_validity_ranges(client: Client) -> None:
    listed = client.get("api/facts?user_id=maya")
    facts = {fact["text"]: fact for fact in listed["items"]}
    assert listed["total"] == len(listed["items"])
    moved, lived = facts["Maya: I moved to Porto."], facts["Maya: I live in Lisbon."]
    assert moved["current"] and moved["invalid_at"] is None and moved["thread_id"] == "m2"
    assert not lived["current"]
    assert facts["Maya: I work at the Oceanarium."]["current"]  # said with the home, still so
    assert lived["valid_at"] < lived["invalid_at"] == moved["valid_at"]
    assert lived["ended_by"] == moved["uuid"]


def test_entities_with_summaries(client: Client) -> None:
    listed = client.get("api/entities?user_id=maya")
    entities = {entity["name"]: entity for entity in listed["items"]}
    assert "beach" in entities["Biscuit"]["summary"] and entities["Biscuit"]["mentions"] >= 1
    assert client.get("api/entities?user_id=sam") == {"items": [], "total": 0}


def test_stored_markup_comes_back_as_the_same_text(client: Client, server: InspectorServer) -> None:
    """The JSON carries memory verbatim; the page (HTML) carries none of it, and its policy
    runs only its own script, which shows memory as text (the browser test checks that)."""
    messages = client.get("api/messages?thread_id=m1")["items"]
    assert HOSTILE in [m["content"] for m in messages]
    status, page, headers = client.request("GET", "")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"<script>alert" not in page and b"Biscuit" not in page
    assert server.token.encode() in page
    policy = headers["Content-Security-Policy"]
    assert "script-src 'nonce-" in policy and "default-src 'none'" in policy
    _, _, api_headers = client.request("GET", "api/users")
    assert api_headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("thread_id", ["m2", "a-new-thread"])
def test_the_preview_is_the_block_begin_turn_then_returns(
    client: Client, db: Path, thread_id: str
) -> None:
    before = client.get("api/messages?thread_id=m2")
    status, shown = client.post(
        "api/preview", {"user_id": "maya", "thread_id": thread_id, "message": QUESTION}
    )
    assert status == 200, shown
    assert "peanuts" in shown["block"] and "<ZEP_CONTEXT>" in shown["block"]
    assert shown["chars"] == len(shown["block"])
    assert shown["tokens"] == math.ceil(len(shown["block"]) / 4)
    assert client.get("api/messages?thread_id=m2") == before  # nothing was stored

    async def turn() -> str:
        async with MemoryLoop.local(db, on_error="raise") as memory:
            identity = MAYA.model_copy(update={"thread_id": thread_id})
            return await memory.begin_turn(identity, QUESTION)

    assert asyncio.run(turn()) == shown["block"]


def test_a_preview_with_nothing_to_recall_is_empty(client: Client) -> None:
    status, shown = client.post(
        "api/preview", {"user_id": "sam", "thread_id": "s1", "message": "Hello there"}
    )
    assert status == 200 and shown == {"block": "", "chars": 0, "tokens": 0}


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"user_id": "nobody", "thread_id": "x", "message": "hi"}, 404, "nobody"),
        ({"user_id": "maya", "thread_id": "x", "message": "  "}, 400, "type a message"),
        ({"user_id": "maya", "message": "hi"}, 400, "thread_id"),
        ({"user_id": "sam", "thread_id": "m1", "message": "hi"}, 409, "another user"),
    ],
)
def test_a_bad_preview_is_refused_in_words(
    client: Client, body: dict[str, str], status: int, says: str
) -> None:
    got, answer = client.post("api/preview", body)
    assert got == status and says in answer["error"]


def test_reads_of_unknown_things(client: Client) -> None:
    assert client.request("GET", "api/threads?user_id=nobody")[0] == 404
    assert client.request("GET", "api/facts")[0] == 400
    assert client.request("GET", "api/nothing-here")[0] == 404
    assert client.request("GET", "elsewhere")[0] == 404


def test_posts_need_the_page_token_json_and_the_pages_origin(client: Client) -> None:
    body = {"user_id": "maya", "thread_id": "m2", "message": QUESTION}
    assert client.post("api/preview", body, X_Zepkit_Token="guess")[0] == 403
    assert client.post("api/preview", body, X_Zepkit_Token="")[0] == 403
    evil = client.post("api/preview", body, Origin="http://evil.example")
    assert evil[0] == 403 and "cross-origin" in evil[1]["error"]
    assert client.post("api/preview", body, Content_Type="text/plain")[0] == 415
    own = client.server.url.rstrip("/")
    assert client.post("api/preview", body, Origin=own)[0] == 200


def test_a_foreign_host_name_is_refused(client: Client) -> None:
    """A DNS name rebound to 127.0.0.1 reaches the server with its own Host: no answer."""
    status, answer, _ = client.request("GET", "api/users", Host="evil.example:80")
    assert status == 421 and "Host" in answer["error"]
    assert client.request("GET", "api/users", Host=f"localhost:{client.server.port}")[0] == 200


def test_deleting_needs_the_flag(client: Client, db: Path) -> None:
    status, answer = client.post("api/delete-thread", {"thread_id": "m2", "confirm": "m2"})
    assert status == 403 and "--allow-delete" in answer["error"]
    assert [t["thread_id"] for t in client.get("api/threads?user_id=maya")["items"]] == [
        "m1",
        "m2",
    ]
    status, answer = client.post("api/delete-user", {"user_id": "maya", "confirm": "maya"})
    assert status == 403 and "--allow-delete" in answer["error"]
    assert len(client.get("api/users")["items"]) == 2


def test_deleting_a_thread_with_the_flag_and_its_id_typed_again(db: Path) -> None:
    with inspector_server(str(db), allow_delete=True).start() as server:
        client = Client(server)
        assert client.get("api/info")["allow_delete"] is True
        status, answer = client.post("api/delete-thread", {"thread_id": "m2", "confirm": "m"})
        assert status == 400 and "confirm" in answer["error"]
        status, answer = client.post("api/delete-thread", {"thread_id": "m2", "confirm": "m2"})
        assert (status, answer) == (200, {"deleted": "m2"})
        assert [t["thread_id"] for t in client.get("api/threads?user_id=maya")["items"]] == ["m1"]
        facts = client.get("api/facts?user_id=maya")["items"]
        assert all(fact["thread_id"] != "m2" for fact in facts)
        lived = next(f for f in facts if f["text"] == "Maya: I live in Lisbon.")
        assert lived["current"]  # what the deleted thread had ended holds again
        status, answer = client.post("api/delete-thread", {"thread_id": "m2", "confirm": "m2"})
        assert status == 404


@pytest.mark.parametrize("vacuum", [False, True])
def test_deleting_a_user_with_the_flag_and_its_id_typed_again(db: Path, vacuum: bool) -> None:
    with inspector_server(str(db), allow_delete=True).start() as server:
        client = Client(server)
        body = {"user_id": "maya", "confirm": "Maya", "vacuum": vacuum}
        status, answer = client.post("api/delete-user", body)
        assert status == 400 and "confirm" in answer["error"]
        status, answer = client.post(
            "api/delete-user", {**body, "vacuum": "yes", "confirm": "maya"}
        )
        assert status == 400 and "vacuum" in answer["error"]
        status, answer = client.post("api/delete-user", {**body, "confirm": "maya"})
        assert (status, answer) == (200, {"deleted": "maya", "vacuum": vacuum})
        assert [u["user_id"] for u in client.get("api/users")["items"]] == ["sam"]
        for view in ("threads", "facts", "entities"):
            assert client.request("GET", f"api/{view}?user_id=maya")[0] == 404
        assert client.request("GET", "api/messages?thread_id=m1")[0] == 404
        status, _ = client.post("api/delete-user", {"user_id": "maya", "confirm": "maya"})
        assert status == 404
    assert b"Biscuit" not in db.read_bytes() or not vacuum  # rewritten: no deleted byte left


def test_the_file_is_opened_read_only_without_the_flag(db: Path) -> None:
    db.chmod(0o400)
    try:
        with inspector_server(str(db)).start() as server:
            assert Client(server).get("api/users")
    finally:
        db.chmod(0o600)


def test_a_port_in_use_is_refused_in_words(db: Path, server: InspectorServer) -> None:
    with pytest.raises(ValueError, match="--port N"):
        inspector_server(str(db), port=server.port)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_loopback_hosts_are_served(host: str) -> None:
    check_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "8.8.8.8", "::"])
def test_other_hosts_are_refused(host: str) -> None:
    with pytest.raises(ValueError, match="refusing"):
        check_loopback(host)


def _zepkit(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zepkit.core._cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_the_command_says_where_it_listens_and_stops_cleanly(db: Path, stop: int) -> None:
    process = _zepkit("ui", "--db", str(db), "--port", "0")
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "read-only" in line, process.stderr.read() if process.stderr else ""
        url = line.split(" at ")[1].strip()
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "api/users", timeout=30) as response:
            assert json.loads(response.read())["items"][0]["user_id"] == "maya"
        # A preview too: the whole path, the embedding model included where it is installed.
        with urllib.request.urlopen(url, timeout=30) as response:
            page = response.read().decode()
        token = page.split('name="zepkit-token" content="')[1].split('"')[0]
        body = {"user_id": "maya", "thread_id": "m2", "message": QUESTION}
        request = urllib.request.Request(url + "api/preview", json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        request.add_header("X-Zepkit-Token", token)
        with urllib.request.urlopen(request, timeout=60) as response:
            assert "peanuts" in json.loads(response.read())["block"]
        process.send_signal(stop)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "zepkit ui: stopped" in out and "Traceback" not in err


@pytest.mark.slow
def test_the_command_stops_cleanly_at_once(db: Path) -> None:
    """Stopped at once, while the embedding model may still be loading in the background, it
    ends cleanly (an exit in the middle of that load could abort in native code)."""
    process = _zepkit("ui", "--db", str(db), "--port", "0")
    try:
        assert process.stdout is not None and "read-only" in process.stdout.readline()
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "zepkit ui: stopped" in out


@pytest.mark.slow
def test_the_command_refuses_a_public_address(db: Path) -> None:
    process = _zepkit("ui", "--db", str(db), "--host", "0.0.0.0", "--port", "0")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "refusing" in err and "ssh -L" in err
    assert out == ""
