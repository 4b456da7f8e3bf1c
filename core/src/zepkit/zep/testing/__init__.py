"""A stateful fake of the Zep Cloud v4 HTTP API (an httpx transport), for tests and staging
scripts without a network; needs no test runner.

    fake = FakeZep()
    backend = ZepBackend(fake.client())
"""

from zepkit.zep.testing._routes import FakeZep
from zepkit.zep.testing._transport import BASE_URL, Fault
from zepkit.zep.testing._wire import RecordedRequest

__all__ = ["BASE_URL", "FakeZep", "Fault", "RecordedRequest"]
