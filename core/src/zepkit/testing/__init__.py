"""Contract suites and test doubles that every zepkit backend and adapter is held to.

The suites (`AdapterContract`, `BackendContract`) need pytest and pytest-asyncio:
`pip install "zepkit-core[testing]"`. They are imported on first use, so the test doubles and the
harness types import without pytest; under pytest their assertions are rewritten, so a failing
contract test shows the values it compared.
"""

import importlib as _importlib
import sys as _sys
import typing as _typing

from zepkit.testing._fakes import FailingBackend, SlowBackend
from zepkit.testing._harness import AdapterHarness, PlainAgentHarness, TurnResult

if _typing.TYPE_CHECKING:
    from zepkit.testing._adapter_contract import AdapterContract
    from zepkit.testing._backend_contract import BackendContract

__all__ = [
    "AdapterContract",
    "AdapterHarness",
    "BackendContract",
    "FailingBackend",
    "PlainAgentHarness",
    "SlowBackend",
    "TurnResult",
]

_SUITES = {
    "AdapterContract": "zepkit.testing._adapter_contract",
    "BackendContract": "zepkit.testing._backend_contract",
}


def _rewrite_suites() -> None:
    """Ask pytest to rewrite the suites' assertions; it can only for modules not yet imported."""
    pytest = _sys.modules.get("pytest")
    if pytest is None:
        return
    pending = [name for name in _SUITES.values() if name not in _sys.modules]
    if pending:
        pytest.register_assert_rewrite(*pending)


def __getattr__(name: str) -> _typing.Any:
    """Import a suite on first use (PEP 562): only the suites need pytest."""
    module = _SUITES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _importlib.import_module("pytest")  # a clear ImportError where the suites cannot run
    _rewrite_suites()
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


_rewrite_suites()  # under pytest, also for a suite imported by its module path
