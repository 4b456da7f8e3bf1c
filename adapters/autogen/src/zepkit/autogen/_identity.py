"""Who an AutoGen memory belongs to: one user's thread, fixed when the `ZepMemory` is made
(the core's `fixed_identity`, reported under this stage)."""

from __future__ import annotations

STAGE = "autogen identity"
HINT = "give ZepMemory user_id= and thread_id= (or identity=)"
