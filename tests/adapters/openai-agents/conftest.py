"""OpenAI Agents SDK tests run offline: a scripted model only, and no trace export."""

from __future__ import annotations

import os

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

import agents  # after the variable above, which the SDK reads at import

agents.set_tracing_disabled(True)
