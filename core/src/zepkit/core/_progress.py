"""Progress of long command-line work on stderr: one line rewritten in place on a terminal, a
plain line every few seconds in a log or a pipe (so CI logs show the work is moving)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """`update(done)` as the work moves; `done()` clears the terminal line at the end."""

    def __init__(
        self, label: str, *, unit: str = "", stream: TextIO | None = None, every: float = 5.0
    ) -> None:
        self.label = label
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self._live = self.stream.isatty()
        self._last = time.monotonic()
        self._width = 0

    def update(self, done: int) -> None:
        line = f"{self.label}: {done:,}{f' {self.unit}' if self.unit else ''}"
        if self._live:
            self.stream.write("\r" + line.ljust(self._width))
            self._width = len(line)
        elif time.monotonic() - self._last >= self.every:
            self._last = time.monotonic()
            self.stream.write(line + "\n")
        else:
            return
        self.stream.flush()

    def done(self) -> None:
        if self._live and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
