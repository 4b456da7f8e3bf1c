"""zepkit's embedded local engine: memory in one SQLite file, searched with FTS5, no server."""

from zepkit.local.backend import LocalBackend
from zepkit.local.connection import check_fts5
from zepkit.local.extraction import ExtractedStatement, Extractor, RuleExtractor

__all__ = ["ExtractedStatement", "Extractor", "LocalBackend", "RuleExtractor", "check_fts5"]
