"""Contract suites and test doubles that every zepkit backend and adapter is held to.

Needs pytest and pytest-asyncio: `pip install "zepkit-core[testing]"`.
"""

from zepkit.testing._adapter_contract import AdapterContract
from zepkit.testing._backend_contract import BackendContract
from zepkit.testing._fakes import FailingBackend, SlowBackend
from zepkit.testing._harness import AdapterHarness, PlainAgentHarness, TurnResult

__all__ = [
    "AdapterContract",
    "AdapterHarness",
    "BackendContract",
    "FailingBackend",
    "PlainAgentHarness",
    "SlowBackend",
    "TurnResult",
]
