"""zepkit on Zep Cloud (API v4): `ZepBackend` and the id maps that keep app ids stable.

backend = ZepBackend.from_api_key()            # reads ZEP_API_KEY
backend = ZepBackend(AsyncZep(...), id_map=SqliteIdMap("zep-ids.db"))
"""

from zepkit.zep._backend import ZepBackend
from zepkit.zep._idmap import IdMap, InMemoryIdMap, SqliteIdMap
from zepkit.zep._search import ZEP_CAPABILITIES

__all__ = ["ZEP_CAPABILITIES", "IdMap", "InMemoryIdMap", "SqliteIdMap", "ZepBackend"]
