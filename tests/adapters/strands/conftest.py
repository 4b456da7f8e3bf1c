"""Strands tests run offline: a scripted model only, and no OpenTelemetry export."""

from __future__ import annotations

import os

os.environ.setdefault("OTEL_SDK_DISABLED", "true")
