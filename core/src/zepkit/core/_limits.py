"""Limits every backend observes, with where each comes from.

The core enforces them once, so an app gets the same behaviour on Zep Cloud and on the local engine.
"""

from typing import Final

MAX_MESSAGES_PER_CALL: Final = 30
"""Zep: at most 30 messages in one `thread.add_messages` call. Longer lists are sent in batches."""

MAX_MESSAGE_CHARS: Final = 4096
"""Per-message cap. Zep allows 2,500 (free) to 14,000 (paid) characters; 4,096 sits between them
and is what Zep's own integrations use. Longer messages are split into several, never cut."""

MAX_DATA_CHARS: Final = 10_000
"""Zep: at most 10,000 characters per `graph.episode.add`. Longer data is chunked."""

MAX_METADATA_KEYS: Final = 10
"""Zep: at most 10 metadata keys on a message or an episode."""

MAX_SEARCH_LIMIT: Final = 50
"""Zep: search `limit` / `page_size` is at most 50."""

MAX_QUERY_CHARS: Final = 400
"""The query ceiling Zep's integrations state for graph search."""

DEFAULT_SEARCH_LIMIT: Final = 10
DEFAULT_MMR_LAMBDA: Final = 0.5

MAX_ID_CHARS: Final = 500
"""Zep v4: an external `user_id` is at most 500 characters; zepkit holds every app id to it."""

DEFAULT_CONTEXT_CHARS: Final = 4000
"""Default budget for a rendered context block, so memory never crowds out the conversation."""

DEFAULT_DEADLINE: Final = 10.0
"""Seconds any one memory operation may take in total (provisioning, retries and waits included)
before the loop gives up on it; a hanging backend never stalls the agent for longer."""

WRITE_CHARS_PER_SECOND: Final = 10_000
"""A write's deadline grows by a second per this many characters: storing is work that grows with
the text (the local engine embeds a long text in windows, about 0.25 s per 4,000 characters on 2
cores), so a long document is not cut off, and then replayed and cut off again, while it is being
stored."""

MAX_RETRY_AFTER: Final = 5.0
"""The longest `Retry-After` zepkit waits out inside a call; a server asking for more is taken
at its word and the call fails at once (fail-soft on the turn path)."""

DEFAULT_PAGE_SIZE: Final = 50
MAX_PAGE_SIZE: Final = 100
"""Listings (users, threads, messages) return at most this many items per page."""
