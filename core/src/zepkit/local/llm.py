"""`LLMExtractor`: one call to an OpenAI-compatible chat endpoint turns a batch of a thread's
messages into facts, supersessions and summaries.

It only talks to the model and checks what comes back; the worker (`zepkit.local.llmworker`)
decides when to call it, and `zepkit.local.llmwrite` stores the answer. The answer is asked for
with `response_format` = a JSON schema, which small local models follow far better than free JSON.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zepkit.core._errors import ConfigurationError

if TYPE_CHECKING:  # imported where used: a backend without a model never needs httpx
    import httpx

ENV_BASE_URL = "ZEPKIT_LLM_BASE_URL"
ENV_MODEL = "ZEPKIT_LLM_MODEL"
ENV_API_KEY = "ZEPKIT_LLM_API_KEY"
ENV_TIMEOUT = "ZEPKIT_LLM_TIMEOUT"

MAX_FACT_CHARS = 400
MAX_SUMMARY_CHARS = 600

SYSTEM_PROMPT = """\
You keep the long-term memory of an assistant about one user.
You get the newest messages of a conversation (numbered), the facts already known about this \
user (numbered), the entities already known with their summaries, and the current summary of \
the user. Reply with JSON that follows the given schema:
- facts: each durable fact the NEW messages state, as one short standalone sentence in the \
third person that names its subject (write the user's name, never "I" or "the user"). Skip \
greetings, questions, small talk, the assistant's suggestions and anything already in the known \
facts with the same meaning. For each fact give: message = the number of the message that \
states it; entities = the names of the people, pets, places, organisations and things it is \
about; about_user = true when it is about the user or their life; valid_at = when it became \
true as an ISO 8601 date or date-time, resolving words like "yesterday" or "last year" against \
the message's time, or null when the message does not say; supersedes = the numbers of known \
facts it makes no longer true (a move ends the old address), else an empty list.
- entities: for the entities these messages tell something new about, their name and an updated \
summary of one or two sentences that keeps what the old summary says and is still true.
- user_summary: an updated summary of the user in at most four sentences, or null when nothing \
new was learned about them.
"""

RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["facts", "entities", "user_summary"],
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["fact", "message", "entities", "about_user", "valid_at", "supersedes"],
                "properties": {
                    "fact": {"type": "string"},
                    "message": {"type": "integer"},
                    "entities": {"type": "array", "items": {"type": "string"}},
                    "about_user": {"type": "boolean"},
                    "valid_at": {"type": ["string", "null"]},
                    "supersedes": {"type": "array", "items": {"type": "integer"}},
                },
            },
        },
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "summary"],
                "properties": {"name": {"type": "string"}, "summary": {"type": "string"}},
            },
        },
        "user_summary": {"type": ["string", "null"]},
    },
}


class LLMError(Exception):
    """A call that gave no usable answer (HTTP error, timeout, invalid JSON); `usage` holds the
    tokens it still cost when the endpoint reported them."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class Usage:
    """The tokens one call cost, as the endpoint reported them (None when it did not)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class PromptMessage:
    """A message of the batch as the model sees it: numbered from 1."""

    number: int
    role: str
    name: str | None
    content: str
    created_at: str


@dataclass(frozen=True)
class Prompt:
    """Everything one call shows the model; every item comes from one user's graph."""

    user_name: str
    messages: Sequence[PromptMessage]
    known_facts: Sequence[tuple[int, str, str]] = ()
    """(number, fact, valid_at): numbered from 1, never the stored ids."""
    known_entities: Sequence[tuple[str, str]] = ()
    user_summary: str | None = None


@dataclass(frozen=True)
class ModelFact:
    """One fact as the model returned it, checked for shape (not yet mapped to rows)."""

    fact: str
    message: int | None
    entities: tuple[str, ...]
    about_user: bool
    valid_at: str | None
    supersedes: tuple[int, ...]


@dataclass(frozen=True)
class ModelOutput:
    """A checked answer: facts, entity summaries (name -> summary), the user's summary."""

    facts: tuple[ModelFact, ...]
    entity_summaries: Mapping[str, str]
    user_summary: str | None
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0


class LLMExtractor:
    """Extraction by a language model behind an OpenAI-compatible `/v1/chat/completions`
    (Ollama, vLLM, llama.cpp server, OpenAI), run by a worker off the turn's path.

    `base_url` is the server's root or its `/v1` (`http://localhost:11434/v1`); a URL ending in
    `/chat/completions` is used as it is. A thread's new messages are sent in one call once it
    has `every` new user turns or has been idle `idle_seconds`; a failed call is retried after
    `backoff_seconds` (doubled each time) and its messages are set aside as dead after
    `max_attempts` calls. `transport` replaces the HTTP transport (tests script the endpoint).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        every: int = 5,
        idle_seconds: float = 120.0,
        max_attempts: int = 5,
        backoff_seconds: float = 10.0,
        max_messages: int = 40,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx

        if not base_url.strip():
            raise ConfigurationError("the LLM extractor needs a base URL")
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(f"the LLM base URL must start with http(s)://: {base_url!r}")
        if not model.strip():
            raise ConfigurationError("the LLM extractor needs a model name")
        for name, value in (("every", every), ("max_attempts", max_attempts)):
            if value < 1:
                raise ConfigurationError(f"{name} must be 1 or more, got {value}")
        if max_messages < 2:
            raise ConfigurationError(f"max_messages must be 2 or more, got {max_messages}")
        for name, number in (
            ("timeout", timeout),
            ("idle_seconds", idle_seconds),
            ("backoff_seconds", backoff_seconds),
        ):
            if number < 0:
                raise ConfigurationError(f"{name} must not be negative, got {number}")
        self.url = chat_url(base_url)
        self.model = model
        self.every = every
        self.idle_seconds = idle_seconds
        self.max_attempts = max_attempts
        self.backoff_seconds = backoff_seconds
        self.max_messages = max_messages
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(transport=transport, timeout=timeout, headers=headers)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMExtractor | None:
        """The extractor `ZEPKIT_LLM_BASE_URL`, `ZEPKIT_LLM_MODEL`, `ZEPKIT_LLM_API_KEY` and
        `ZEPKIT_LLM_TIMEOUT` (seconds per call) set up, or None when the base URL is unset
        (extraction stays off)."""
        env = os.environ if environ is None else environ
        base_url = env.get(ENV_BASE_URL, "").strip()
        if not base_url:
            return None
        model = env.get(ENV_MODEL, "").strip()
        if not model:
            raise ConfigurationError(f"{ENV_BASE_URL} is set but {ENV_MODEL} is not")
        timeout = env.get(ENV_TIMEOUT, "").strip() or "60"
        try:
            seconds = float(timeout)
        except ValueError:
            raise ConfigurationError(f"{ENV_TIMEOUT} must be seconds, not {timeout!r}") from None
        return cls(base_url, model, api_key=env.get(ENV_API_KEY) or None, timeout=seconds)

    def retry_delay(self, attempts: int) -> float:
        """Seconds to wait before the next call after `attempts` failed ones (at most an hour)."""
        return float(min(self.backoff_seconds * 2 ** max(attempts - 1, 0), 3600.0))

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    def extract(self, prompt: Prompt) -> ModelOutput:
        """One call: the model's checked answer, or LLMError."""
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": render_prompt(prompt)},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "memory_update", "strict": True, "schema": RESPONSE_SCHEMA},
            },
        }
        import httpx

        started = time.monotonic()
        try:
            response = self._client.post(self.url, json=body)
        except httpx.TimeoutException as exc:
            raise LLMError(f"the model did not answer within {self.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise LLMError(f"cannot reach the model at {self.url}: {exc}") from exc
        seconds = time.monotonic() - started
        if response.status_code != 200:
            raise LLMError(f"the model answered HTTP {response.status_code}: {response.text[:200]}")
        try:
            payload = response.json()
        except ValueError as exc:
            raise LLMError("the endpoint's answer is not JSON") from exc
        usage = _usage(payload)
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError("the answer has no choices[0].message.content", usage) from exc
        output = parse_output(content, len(prompt.messages), usage)
        return ModelOutput(
            output.facts, output.entity_summaries, output.user_summary, usage, seconds
        )


def chat_url(base_url: str) -> str:
    """The chat completions URL for a server root, its `/v1`, or the full URL."""
    url = base_url.strip().rstrip("/")
    if url.endswith("/chat/completions"):
        return url
    return url + ("/chat/completions" if url.endswith("/v1") else "/v1/chat/completions")


def render_prompt(prompt: Prompt) -> str:
    """The user message of a call: the batch and its context as JSON."""
    return json.dumps(
        {
            "user": prompt.user_name,
            "user_summary": prompt.user_summary,
            "known_facts": [
                {"id": number, "fact": fact, "valid_at": valid_at}
                for number, fact, valid_at in prompt.known_facts
            ],
            "known_entities": [
                {"name": name, "summary": summary} for name, summary in prompt.known_entities
            ],
            "messages": [
                {
                    "id": m.number,
                    "role": m.role,
                    "name": m.name,
                    "time": m.created_at,
                    "content": m.content,
                }
                for m in prompt.messages
            ],
        },
        ensure_ascii=False,
    )


def parse_output(content: Any, messages: int, usage: Usage | None = None) -> ModelOutput:
    """The model's JSON text as a checked answer; LLMError when it is not what the schema asks.

    Fields a lenient server left out take their empty value; a wrong type anywhere fails the call
    (a retry may do better), so nothing half-understood is stored."""
    if not isinstance(content, str):
        raise LLMError("the model's answer is not text", usage)
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise LLMError(f"the model's answer is not valid JSON: {exc}", usage) from exc
    if not isinstance(data, dict):
        raise LLMError("the model's answer is not a JSON object", usage)
    facts = tuple(_fact(item, messages, usage) for item in _list(data.get("facts"), "facts", usage))
    summaries: dict[str, str] = {}
    for item in _list(data.get("entities"), "entities", usage):
        if not isinstance(item, dict):
            raise LLMError("an entity is not an object", usage)
        name, summary = _text(item.get("name")), _text(item.get("summary"), MAX_SUMMARY_CHARS)
        if name and summary:
            summaries[name] = summary
    user_summary = data.get("user_summary")
    if user_summary is not None and not isinstance(user_summary, str):
        raise LLMError("user_summary is not text or null", usage)
    return ModelOutput(
        facts, summaries, _text(user_summary, MAX_SUMMARY_CHARS) or None, usage or Usage()
    )


def _fact(item: Any, messages: int, usage: Usage | None) -> ModelFact:
    if not isinstance(item, dict) or not isinstance(item.get("fact"), str):
        raise LLMError("a fact is not an object with a text 'fact'", usage)
    message = item.get("message")
    names = _list(item.get("entities"), "a fact's entities", usage)
    supersedes = _list(item.get("supersedes"), "a fact's supersedes", usage)
    valid_at = item.get("valid_at")
    if not all(isinstance(name, str) for name in names):
        raise LLMError("a fact's entities are not all text", usage)
    if not all(isinstance(key, int) and not isinstance(key, bool) for key in supersedes):
        raise LLMError("a fact's supersedes are not all numbers", usage)
    return ModelFact(
        fact=_text(item["fact"], MAX_FACT_CHARS),
        message=message if isinstance(message, int) and 1 <= message <= messages else None,
        entities=tuple(name for name in (_text(n) for n in names) if name),
        about_user=item.get("about_user") is True,
        valid_at=valid_at.strip() or None if isinstance(valid_at, str) else None,
        supersedes=tuple(supersedes),
    )


def _list(value: Any, what: str, usage: Usage | None) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise LLMError(f"{what} is not a list", usage)
    return value


def _text(value: Any, limit: int = 200) -> str:
    """Text with its spacing collapsed and cut to `limit` characters ('' for non-text)."""
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def _usage(payload: Any) -> Usage:
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return Usage()
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return Usage(
        prompt if isinstance(prompt, int) else None,
        completion if isinstance(completion, int) else None,
    )
