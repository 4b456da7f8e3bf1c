"""The error an adapter raises when its framework is missing: one wording, naming the extra."""

from __future__ import annotations


def missing_framework(key: str, framework: str) -> ImportError:
    """An `ImportError` saying which framework `zepkit.<key>` needs and which extra installs it.

    Adapters raise it from their import guard: `raise missing_framework("adk", "Google ADK") from
    exc`.
    """
    module = key.replace("-", "_")
    return ImportError(f'zepkit.{module} needs {framework}: pip install "zepkit[{key}]"')
