"""zepkit's embedded local engine: memory in one SQLite file, searched with FTS5, no server."""

from zepkit.local.backend import LocalBackend
from zepkit.local.connection import check_fts5
from zepkit.local.dense import RetrieverMode
from zepkit.local.embedders import Embedder, HttpEmbedder
from zepkit.local.extraction import (
    ExtractedStatement,
    Extractor,
    FollowUpExtractor,
    ReplyExtractor,
    RuleExtractor,
)
from zepkit.local.llm import LLMExtractor
from zepkit.local.llmworker import ExtractionRun
from zepkit.local.minilm import MiniLMEmbedder

__all__ = [
    "Embedder",
    "ExtractedStatement",
    "ExtractionRun",
    "Extractor",
    "FollowUpExtractor",
    "HttpEmbedder",
    "LLMExtractor",
    "LocalBackend",
    "MiniLMEmbedder",
    "ReplyExtractor",
    "RetrieverMode",
    "RuleExtractor",
    "check_fts5",
]
