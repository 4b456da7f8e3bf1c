"""Agent Framework tests run offline: no OpenTelemetry instrumentation, no .env lookups matter."""

from __future__ import annotations

import os

os.environ.setdefault("ENABLE_INSTRUMENTATION", "false")
os.environ.setdefault("ENABLE_SENSITIVE_DATA", "false")
