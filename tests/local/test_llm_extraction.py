"""LLM extraction off the turn's path, against a scripted OpenAI-compatible endpoint.

The endpoint is played through `httpx.MockTransport`: each call answers with the next scripted
reply, so what the model is shown and what the engine stores from its answer are both checked.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import ConfigurationError
from zepkit.core._models import Message
from zepkit.core._sqlite import open_connection
from zepkit.local import LocalBackend
from zepkit.local.llm import LLMError, LLMExtractor, chat_url, parse_output
from zepkit.local.llmworker import ExtractionWorker, OwnConnection, prompt_of

Answer = dict[str, Any] | str | BaseException | Callable[[dict[str, Any]], Any]


class ScriptedModel:
    """Answers each call with the next scripted reply: a dict (sent as the JSON content), raw
    text, an exception to raise, or a function of the prompt. Records every request."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        self.gate: threading.Event | None = None
        """When given, each call waits for it: a slow model the test releases."""

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        if self.gate is not None:
            self.gate.wait(10)
        reply = self.answers.pop(0) if self.answers else answer()
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply(self.prompt(len(self.requests) - 1))
        content = reply if isinstance(reply, str) else json.dumps(reply)
        return httpx.Response(
            200,
            json={
                "choices": [{"message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340},
            },
        )

    def prompt(self, call: int) -> dict[str, Any]:
        """What the model was shown in call `call` (from 0)."""
        return dict(json.loads(self.requests[call]["messages"][1]["content"]))

    def extractor(self, **options: Any) -> LLMExtractor:
        settings: dict[str, Any] = {"backoff_seconds": 0.0, "idle_seconds": 3600.0}
        settings.update(options)
        return LLMExtractor(
            "http://model.test/v1", "scripted", transport=httpx.MockTransport(self), **settings
        )


def fact(
    text: str,
    message: int = 1,
    *,
    entities: tuple[str, ...] = (),
    about_user: bool = True,
    valid_at: str | None = None,
    supersedes: tuple[int, ...] = (),
) -> dict[str, Any]:
    return {
        "fact": text,
        "message": message,
        "entities": list(entities),
        "about_user": about_user,
        "valid_at": valid_at,
        "supersedes": list(supersedes),
    }


def answer(
    *facts: dict[str, Any], entities: dict[str, str] | None = None, user: str | None = None
) -> dict[str, Any]:
    return {
        "facts": list(facts),
        "entities": [{"name": n, "summary": s} for n, s in (entities or {}).items()],
        "user_summary": user,
    }


async def _setup(backend: LocalBackend, user: str = "maya", *threads: str) -> None:
    await backend.ensure_user(UserProfile(user, first_name=user.title()))
    for thread in threads or (f"{user}-1",):
        await backend.ensure_thread(thread, user)


def _rows(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


async def test_without_an_extractor_nothing_is_queued_or_called(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZEPKIT_LLM_BASE_URL", raising=False)
    async with LocalBackend(db_path) as backend:
        await _setup(backend)
        await backend.add_messages("maya-1", [Message("user", "I live in Lisbon.")])
        with pytest.raises(ConfigurationError, match="off"):
            await backend.extract_pending()
    assert _rows(db_path, "SELECT count(*) FROM llm_jobs") == [(0,)]
    assert _rows(db_path, "SELECT count(*) FROM statements WHERE origin IS NOT NULL") == [(0,)]


async def test_jobs_are_written_with_the_messages_once_per_message(db_path: Path) -> None:
    model = ScriptedModel()
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        await _setup(backend)
        said = [
            Message("user", "I live in Lisbon."),
            Message("assistant", "Lovely city."),
            Message("system", "internal note"),
        ]
        await backend.add_messages("maya-1", said, idempotency_key="w1")
        await backend.add_messages("maya-1", said, idempotency_key="w1")  # a replay
    assert _rows(db_path, "SELECT user_turn, state FROM llm_jobs ORDER BY message") == [
        (1, "pending"),
        (0, "pending"),
    ]
    assert model.requests == []  # nothing was called on the turn's path


async def test_a_batch_becomes_facts_entities_and_summaries(db_path: Path) -> None:
    model = ScriptedModel(
        answer(
            fact("Maya lives in Lisbon", 1, entities=("Lisbon",)),
            fact("Maya's dog Biscuit is a border collie", 3, entities=("Biscuit",)),
            entities={"Biscuit": "Maya's border collie, who loves the beach at Cascais."},
            user="Maya lives in Lisbon with her border collie Biscuit.",
        )
    )
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        await _setup(backend, "maya", "maya-1", "maya-2")
        await backend.add_messages(
            "maya-1",
            [
                Message("user", "I just moved to Lisbon.", name="Maya"),
                Message("assistant", "Welcome to Lisbon!"),
                Message("user", "My dog Biscuit is a border collie.", name="Maya"),
            ],
        )
        run = await backend.extract_pending()
        assert (run.calls, run.facts, run.failures) == (1, 2, 0)

        [request] = model.requests
        assert request["model"] == "scripted"
        assert request["response_format"]["type"] == "json_schema"
        shown = model.prompt(0)
        assert shown["user"] == "Maya"
        assert [(m["id"], m["role"]) for m in shown["messages"]] == [
            (1, "user"),
            (2, "assistant"),
            (3, "user"),
        ]

        found = await backend.search(SearchRequest("Lisbon", user_id="maya"))
        assert "Maya lives in Lisbon." in [f.fact for f in found.edges]
        nodes = await backend.search(SearchRequest("Biscuit", user_id="maya", scope="nodes"))
        assert nodes.nodes[0].summary.startswith("Maya's border collie")

        await backend.add_messages("maya-2", [Message("user", "Where should Biscuit and I go?")])
        block = await backend.get_context("maya-2")
    assert block is not None
    assert "<USER_SUMMARY>" in block and "with her border collie Biscuit" in block
    # The model's facts stand for the turns it read, in place of the rules' sentences.
    assert "Maya's dog Biscuit is a border collie." in block
    assert "Maya: My dog Biscuit is a border collie." not in block
    assert "Biscuit: Maya's border collie, who loves the beach" in block
    assert _rows(db_path, "SELECT count(*) FROM llm_jobs") == [(1,)]  # maya-2's turn waits
    assert _rows(db_path, "SELECT ok, prompt_tokens, completion_tokens FROM llm_usage") == [
        (1, 300, 40)
    ]


async def test_a_newer_fact_supersedes_by_the_small_number_it_was_shown(db_path: Path) -> None:
    model = ScriptedModel(
        answer(fact("Maya lives in Lisbon", valid_at="2024-03-01")),
        answer(fact("Maya lives in Porto", supersedes=(1, 7), valid_at="2024-09-15")),
    )
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        await _setup(backend)
        await backend.add_messages("maya-1", [Message("user", "I live in Lisbon.")])
        await backend.extract_pending()
        await backend.add_messages("maya-1", [Message("user", "I moved to Porto last month.")])
        await backend.extract_pending()
        found = await backend.search(SearchRequest("lives", user_id="maya"))

    # The model saw the known fact as number 1, never its row id.
    assert model.prompt(1)["known_facts"] == [
        {"id": 1, "fact": "Maya lives in Lisbon.", "valid_at": "2024-03-01T00:00:00+00:00"}
    ]
    [(old_id, invalid_at, ended_by)] = _rows(
        db_path,
        "SELECT id, invalid_at, ended_by FROM statements "
        "WHERE origin = 'llm' AND text LIKE '%Lisbon.'",
    )
    [(new_id,)] = _rows(db_path, "SELECT id FROM statements WHERE text = 'Maya lives in Porto.'")
    assert (invalid_at, ended_by) == ("2024-09-15T00:00:00+00:00", new_id)
    assert old_id > 2**32  # row ids live in the graph's range: not something to show a model
    ended = {f.fact: f.invalid_at for f in found.edges}
    assert ended["Maya lives in Porto."] is None
    assert ended["Maya lives in Lisbon."] is not None  # kept, with the end of its validity


async def test_identical_facts_are_stored_once(db_path: Path) -> None:
    model = ScriptedModel(
        answer(fact("Maya is vegan"), fact("maya is vegan.")),
        answer(fact("Maya is  vegan")),
    )
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        await _setup(backend)
        await backend.add_messages("maya-1", [Message("user", "I'm vegan.")])
        first = await backend.extract_pending()
        await backend.add_messages("maya-1", [Message("user", "Still vegan, by the way.")])
        second = await backend.extract_pending()
    assert (first.facts, second.facts) == (1, 0)
    assert _rows(db_path, "SELECT text FROM statements WHERE origin = 'llm'") == [
        ("Maya is vegan.",)
    ]


async def test_a_crash_between_claim_and_commit_is_redone_once(db_path: Path) -> None:
    class Crash(BaseException):
        """The worker's process dies while the model answers."""

    model = ScriptedModel(Crash(), answer(fact("Maya keeps bees")), answer(fact("Maya keeps bees")))
    async with LocalBackend(db_path, llm=False) as app:  # the app writes, workers extract
        await _setup(app)
    llm = model.extractor()
    async with LocalBackend(db_path, llm=llm, llm_worker=False) as app:
        await app.add_messages("maya-1", [Message("user", "I keep bees.")])
    first, second = open_connection(db_path), open_connection(db_path)
    try:
        dying = ExtractionWorker(llm, OwnConnection(first), lease=0.0)
        with pytest.raises(Crash):
            dying.run_once(force=True)
        assert _rows(db_path, "SELECT state FROM llm_jobs") == [("claimed",)]

        # Its lease has run out: another worker takes the batch over and stores it.
        survivor = ExtractionWorker(llm, OwnConnection(second))
        assert survivor.drain().facts == 1
        # A late commit by a worker whose claim was taken over stores nothing.
        late = ExtractionWorker(llm, OwnConnection(first), lease=0.0)
        async with LocalBackend(db_path, llm=llm, llm_worker=False) as app:
            await app.add_messages("maya-1", [Message("user", "Bees again.")])
        batch = late.claim(force=True)
        assert batch is not None
        assert survivor.drain().calls == 1  # the expired claim is taken over
        output = llm.extract(prompt_of(batch))
        assert late.commit(batch, output) is None
    finally:
        first.close()
        second.close()
    assert _rows(db_path, "SELECT text FROM statements WHERE origin = 'llm'") == [
        ("Maya keeps bees.",)
    ]
    assert _rows(db_path, "SELECT count(*) FROM llm_jobs") == [(0,)]


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param("this is not JSON {", id="invalid-json"),
        pytest.param(httpx.ReadTimeout("slow"), id="timeout"),
        pytest.param({"facts": "many"}, id="wrong-shape"),
    ],
)
async def test_a_failing_model_is_retried_then_set_aside_and_turns_go_on(
    db_path: Path, failure: Answer
) -> None:
    model = ScriptedModel(failure, failure, failure)
    llm = model.extractor(max_attempts=3)
    async with LocalBackend(db_path, llm=llm, llm_worker=False) as backend:
        await _setup(backend, "maya", "maya-1", "maya-2")
        await backend.add_messages("maya-1", [Message("user", "I keep bees in Oslo.")])
        run = await backend.extract_pending()
        assert (run.calls, run.failures, run.dead, run.facts) == (3, 3, 1, 0)
        assert await backend.extract_pending() == type(run)()  # dead jobs are not called again

        # Turns are unaffected and the rules' memory still answers.
        block = await backend.add_messages(
            "maya-2", [Message("user", "What do I keep in Oslo?")], return_context=True
        )
        assert block is not None and "I keep bees in Oslo." in block

        assert await backend.retry_dead_extraction() == 1
        run = await backend.extract_pending()  # the script is spent: the model now answers
        assert (run.calls, run.failures) == (2, 0)  # the revived batch, and maya-2's turn
    assert [row[0] for row in _rows(db_path, "SELECT ok FROM llm_usage ORDER BY id")] == [
        0,
        0,
        0,
        1,
        1,
    ]


async def test_a_failed_call_waits_its_backoff(db_path: Path) -> None:
    model = ScriptedModel(httpx.ConnectError("refused"))
    async with LocalBackend(
        db_path, llm=model.extractor(backoff_seconds=600.0), llm_worker=False
    ) as backend:
        await _setup(backend)
        await backend.add_messages("maya-1", [Message("user", "I keep bees.")])
        run = await backend.extract_pending()
    assert (run.calls, run.failures, run.dead) == (1, 1, 0)
    [(state, attempts, error)] = _rows(db_path, "SELECT state, attempts, error FROM llm_jobs")
    assert (state, attempts) == ("pending", 1) and "cannot reach" in error


async def test_two_users_never_cross(db_path: Path) -> None:
    def by_user(prompt: dict[str, Any]) -> dict[str, Any]:
        name = prompt["user"]
        return answer(
            fact(f"{name} has a secret code {name.upper()}-42", supersedes=(1, 2, 3)),
            entities={name: f"{name}'s own summary"},
            user=f"{name} summary",
        )

    model = ScriptedModel(*[by_user] * 4)
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        for user in ("ana", "ben"):
            await _setup(backend, user)
        for _ in range(2):
            for user in ("ana", "ben"):
                await backend.add_messages(f"{user}-1", [Message("user", "Remember my code.")])
            await backend.extract_pending()
        ben = await backend.search(SearchRequest("code", user_id="ben", limit=20))

    assert len(model.requests) == 4
    for call in range(4):
        shown = json.dumps(model.prompt(call))
        other = "Ben" if model.prompt(call)["user"] == "Ana" else "Ana"
        assert other not in shown and other.upper() not in shown
    assert "Ben has a secret code BEN-42." in [f.fact for f in ben.edges]
    assert not any("ANA" in f.fact for f in ben.edges)
    # Each user's second fact is a repeat of the first (deduplicated), so nothing was ended.
    assert _rows(db_path, "SELECT count(*) FROM statements WHERE invalid_at IS NOT NULL") == [(0,)]


@pytest.mark.parametrize("inline", [False, True])
async def test_turns_never_wait_for_the_model(db_path: Path, inline: bool) -> None:
    model = ScriptedModel(answer(fact("Maya rows on the Tagus")))
    model.gate = threading.Event()
    backend = LocalBackend(db_path, llm=model.extractor(every=2), inline=inline)
    try:
        await _setup(backend)
        await backend.add_messages("maya-1", [Message("user", "I row.")])
        await asyncio.sleep(0.3)
        assert model.requests == []  # one user turn: below the batch size
        await backend.add_messages("maya-1", [Message("user", "On the Tagus.")])
        for _ in range(100):  # the background worker picks the batch up
            if model.requests:
                break
            await asyncio.sleep(0.05)
        assert len(model.requests) == 1
        # The model is still thinking; turns go on and read memory meanwhile.
        block = await backend.add_messages(
            "maya-1", [Message("user", "Where do I row?")], return_context=True
        )
        assert block is None or "Maya rows on the Tagus." not in block
        model.gate.set()
        for _ in range(100):
            if _rows(db_path, "SELECT count(*) FROM statements WHERE origin = 'llm'") == [(1,)]:
                break
            await asyncio.sleep(0.05)
        assert _rows(db_path, "SELECT text FROM statements WHERE origin = 'llm'") == [
            ("Maya rows on the Tagus.",)
        ]
    finally:
        model.gate.set()
        await backend.aclose()


async def test_a_batch_waits_for_enough_turns_or_an_idle_thread(db_path: Path) -> None:
    model = ScriptedModel()
    llm = model.extractor(every=3, idle_seconds=3600.0)
    async with LocalBackend(db_path, llm=llm, llm_worker=False) as backend:
        await _setup(backend)
        for said in ("One.", "Two."):
            await backend.add_messages(
                "maya-1", [Message("user", said), Message("assistant", "Ok.")]
            )
    conn = open_connection(db_path)
    try:
        worker = ExtractionWorker(llm, OwnConnection(conn))
        assert worker.run_once() is False  # two user turns of three, not idle
        idle = ExtractionWorker(model.extractor(every=3, idle_seconds=0.0), OwnConnection(conn))
        assert idle.run_once() is True
    finally:
        conn.close()
    assert [m["content"] for m in model.prompt(0)["messages"]] == ["One.", "Ok.", "Two.", "Ok."]


async def test_deleting_a_thread_takes_its_jobs_facts_and_summaries(db_path: Path) -> None:
    model = ScriptedModel(
        answer(fact("Maya keeps bees", entities=("Oslo",)), entities={"Oslo": "Bees"}, user="S")
    )
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        await _setup(backend, "maya", "gone", "kept", "waiting")
        await backend.add_messages("gone", [Message("user", "I keep bees in Oslo.")])
        await backend.add_messages("kept", [Message("user", "Oslo is cold.")])
        await backend.extract_pending()
        await backend.add_messages("waiting", [Message("user", "Not extracted yet.")])
        await backend.delete_thread("gone")
        await backend.delete_thread("waiting")
    assert _rows(db_path, "SELECT count(*) FROM llm_jobs") == [(0,)]
    assert _rows(db_path, "SELECT count(*) FROM statements WHERE origin = 'llm'") == [(0,)]
    assert _rows(db_path, "SELECT summary FROM users") == [(None,)]
    assert _rows(db_path, "SELECT name, summary FROM entities WHERE name = 'Oslo'") == [
        ("Oslo", None)
    ]
    # The calls' counts stay for `zepkit stats`; the deleted thread's no longer name it.
    assert _rows(db_path, "SELECT count(*), count(thread) FROM llm_usage") == [(2, 1)]


def test_configuration_from_the_environment() -> None:
    assert LLMExtractor.from_env({}) is None
    llm = LLMExtractor.from_env(
        {
            "ZEPKIT_LLM_BASE_URL": "http://localhost:11434",
            "ZEPKIT_LLM_MODEL": "qwen2.5:3b",
            "ZEPKIT_LLM_API_KEY": "k",
        }
    )
    assert llm is not None and (llm.url, llm.model) == (
        "http://localhost:11434/v1/chat/completions",
        "qwen2.5:3b",
    )
    slow = {"ZEPKIT_LLM_BASE_URL": "http://h", "ZEPKIT_LLM_MODEL": "m", "ZEPKIT_LLM_TIMEOUT": "300"}
    assert getattr(LLMExtractor.from_env(slow), "timeout", None) == 300.0
    with pytest.raises(ConfigurationError, match="ZEPKIT_LLM_TIMEOUT"):
        LLMExtractor.from_env(slow | {"ZEPKIT_LLM_TIMEOUT": "soon"})
    with pytest.raises(ConfigurationError, match="ZEPKIT_LLM_MODEL"):
        LLMExtractor.from_env({"ZEPKIT_LLM_BASE_URL": "http://localhost:8000/v1"})
    with pytest.raises(ConfigurationError, match="http"):
        LLMExtractor("localhost:8000", "m")
    assert chat_url("https://api.openai.com/v1/") == "https://api.openai.com/v1/chat/completions"
    assert chat_url("http://h/x/chat/completions") == "http://h/x/chat/completions"


async def test_the_environment_turns_extraction_on(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEPKIT_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ZEPKIT_LLM_MODEL", "m")
    async with LocalBackend(db_path, llm_worker=False) as backend:
        await _setup(backend)
        await backend.add_messages("maya-1", [Message("user", "I keep bees.")])
    async with LocalBackend(db_path, llm=False) as backend:
        await backend.add_messages("maya-1", [Message("user", "Off here.")])
    assert _rows(db_path, "SELECT count(*) FROM llm_jobs") == [(1,)]


def test_answers_are_checked_before_anything_is_stored() -> None:
    good = parse_output(json.dumps(answer(fact("A fact", 9, entities=("X", " ")))), 2)
    assert good.facts[0].entities == ("X",)
    assert good.facts[0].message is None  # out of range: the worker picks the source itself
    for bad in (
        "[]",
        '{"facts": [{"fact": 1}]}',
        '{"facts": [{"fact": "a", "supersedes": ["1"]}]}',
        '{"facts": [{"fact": "a", "entities": [3]}]}',
    ):
        with pytest.raises(LLMError):
            parse_output(bad, 2)


async def test_model_facts_about_the_user_are_weighed_like_the_rules_weigh_them(
    db_path: Path,
) -> None:
    model = ScriptedModel(
        answer(
            fact("Maya is allergic to peanuts", 1),
            fact("Maya likes jazz", 2),
            fact("Lisbon has trams", 2, about_user=False, entities=("Lisbon",)),
        )
    )
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        await _setup(backend, "maya", "old", "new")
        await backend.add_messages(
            "old",
            [Message("user", "Peanuts make me ill."), Message("user", "Jazz is nice in Lisbon.")],
        )
        await backend.extract_pending()
        await backend.add_messages("new", [Message("user", "Plan my Saturday.")])
        block = await backend.get_context("new")
    assert block is not None
    profile = block.split("<USER_PROFILE>")[1].split("</USER_PROFILE>")[0]
    assert profile.index("allergic to peanuts") < profile.index("likes jazz")
    assert "trams" not in profile


async def test_a_thread_deleted_while_the_model_answers_stores_nothing(db_path: Path) -> None:
    model = ScriptedModel(answer(fact("Maya keeps bees")))
    llm = model.extractor()
    async with LocalBackend(db_path, llm=llm, llm_worker=False) as backend:
        await _setup(backend)
        await backend.add_messages("maya-1", [Message("user", "I keep bees.")])
    conn = open_connection(db_path)
    try:
        worker = ExtractionWorker(llm, OwnConnection(conn))
        batch = worker.claim(force=True)
        assert batch is not None
        output = llm.extract(prompt_of(batch))
        async with LocalBackend(db_path, llm=False) as backend:
            await backend.delete_thread("maya-1")
        assert worker.commit(batch, output) is None
    finally:
        conn.close()
    assert _rows(db_path, "SELECT count(*) FROM statements") == [(0,)]
    assert _rows(db_path, "SELECT user IS NOT NULL, thread FROM llm_usage") == [(1, None)]


async def test_deleting_a_user_takes_their_jobs_facts_summaries_and_costs(db_path: Path) -> None:
    model = ScriptedModel(
        answer(fact("Maya keeps bees", entities=("Oslo",)), entities={"Oslo": "Bees"}, user="S"),
        answer(fact("Ravi rows"), user="R"),
    )
    async with LocalBackend(db_path, llm=model.extractor(), llm_worker=False) as backend:
        await _setup(backend, "maya", "maya-1", "maya-2")
        await _setup(backend, "ravi")
        await backend.add_messages("maya-1", [Message("user", "I keep bees in Oslo.")])
        await backend.add_messages("ravi-1", [Message("user", "I row on weekends.")])
        await backend.extract_pending()
        await backend.add_messages("maya-2", [Message("user", "Not extracted yet.")])
        await backend.delete_user("maya")
    threads = "SELECT id FROM threads WHERE thread_id LIKE 'ravi%'"
    assert _rows(db_path, f"SELECT count(*) FROM llm_jobs WHERE thread NOT IN ({threads})") == [
        (0,)
    ]
    assert _rows(db_path, "SELECT text FROM statements WHERE origin = 'llm'") == [("Ravi rows.",)]
    assert _rows(db_path, "SELECT summary FROM users") == [("R",)]
    assert _rows(db_path, "SELECT count(*) FROM llm_usage") == [(1,)]
