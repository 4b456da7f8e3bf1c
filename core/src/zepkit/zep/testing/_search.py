"""The fake's "search" and "context": plain word overlap over a graph's episodes, enough to show
that what was stored comes back to the right user, not a model of Zep's ranking."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Mapping

from zepkit.zep.testing._wire import Json

RERANKERS_BY_SCOPE: Mapping[str, frozenset[str]] = {
    "edges": frozenset({"rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"}),
    "nodes": frozenset({"rrf", "mmr", "node_distance", "cross_encoder"}),
    "episodes": frozenset({"rrf", "mmr"}),
    "observations": frozenset({"rrf", "mmr", "cross_encoder"}),
    "thread-summaries": frozenset({"rrf", "mmr", "cross_encoder"}),
}
SEARCH_TEXT: Mapping[str, Callable[[Json], str]] = {
    "edges": lambda item: str(item["fact"]),
    "nodes": lambda item: f"{item['name']} {item['summary']}",
    "episodes": lambda item: str(item["content"]),
    "observations": lambda item: str(item["summary"]),
    "thread-summaries": lambda item: str(item["summary"]),
}
"""The text of one result of each scope that a query is matched against."""

_STOP = frozenset(
    re.findall(
        r"\S+",
        "the and for are but not you your with that this what where when who how does did was "
        "were has have had our out about from into there here them they then than its it's "
        "just know now can will would could should",
    )
)
_WORD = re.compile(r"\w+")
_NAME = re.compile(r"\b[A-Z][\w-]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}


def one_line(text: str) -> str:
    """`text` with its white space folded to single spaces."""
    return " ".join(text.split())


def rank(query: str, items: Iterable[Json], text: Callable[[Json], str]) -> list[Json]:
    """Items sharing words with `query`, most shared first, each with a `score` in (0, 1]."""
    wanted = _words(query)
    scored = []
    for item in items:
        shared = len(wanted & _words(text(item)))
        if shared:
            scored.append({**item, "score": shared / max(len(wanted), 1)})
    return sorted(scored, key=lambda item: -float(item["score"]))


def facts_block(episodes: list[Json]) -> str:
    """A context block in the FACTS layout Zep uses ("" when nothing is relevant)."""
    if not episodes:
        return ""
    lines = [
        f"  - {one_line(ep['content'])} (Date range: {_valid_from(ep)} - present)"
        for ep in episodes
    ]
    return (
        "FACTS and ENTITIES represent relevant context to the current conversation.\n\n"
        "# These are the most relevant facts and their valid date ranges\n"
        "# format: FACT (Date range: from - to)\n<FACTS>\n" + "\n".join(lines) + "\n</FACTS>"
    )


def _valid_from(episode: Json) -> str:
    return str(episode.get("reference_time") or episode["created_at"])


def edges(graph_uuid: str, episodes: list[Json]) -> list[Json]:
    """One fact per episode, its text the episode's."""
    return [
        {
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "edge:" + ep["uuid"])),
            "fact": one_line(ep["content"]),
            "name": "MENTIONS",
            "created_at": ep["created_at"],
            "valid_at": ep.get("reference_time") or ep["created_at"],
            "episode_uuids": [ep["uuid"]],
            "graph_uuid": graph_uuid,
        }
        for ep in episodes
    ]


def observations(graph_uuid: str, episodes: list[Json]) -> list[Json]:
    """One observation per episode, summarised by the episode's text."""
    return [
        {
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "observation:" + ep["uuid"])),
            "name": "Observation",
            "summary": one_line(ep["content"]),
            "labels": ["Observation"],
            "episode_uuids": [ep["uuid"]],
            "created_at": ep["created_at"],
            "graph_uuid": graph_uuid,
        }
        for ep in episodes
    ]


def entities(graph_uuid: str, episodes: list[Json]) -> list[Json]:
    """One node per capitalised word, summarised by the first episode that names it."""
    nodes: dict[str, Json] = {}
    for ep in episodes:
        for name in _NAME.findall(ep["content"]):
            if name.lower() in _STOP or len(name) < 3:
                continue
            node = nodes.setdefault(
                name,
                {
                    "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{graph_uuid}:{name}")),
                    "name": name,
                    "summary": one_line(ep["content"]),
                    "labels": ["Entity"],
                    "created_at": ep["created_at"],
                    "episode_uuids": [],
                    "episode_uuids_truncated": False,
                    "graph_uuid": graph_uuid,
                },
            )
            node["episode_uuids"].append(ep["uuid"])
    return list(nodes.values())


def summaries(
    graph_uuid: str, threads: Mapping[str, Json], messages: Mapping[str, list[Json]]
) -> list[Json]:
    """One summary per thread of the graph that holds messages: its messages' text."""
    return [
        {
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "summary:" + thread_uuid)),
            "summary": one_line(" ".join(m["content"] for m in messages[thread_uuid])),
            "thread_uuid": thread_uuid,
            "graph_uuid": graph_uuid,
            "created_at": thread["created_at"],
        }
        for thread_uuid, thread in threads.items()
        if thread["graph_uuid"] == graph_uuid and messages[thread_uuid]
    ]
