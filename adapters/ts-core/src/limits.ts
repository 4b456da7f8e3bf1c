/** The limits zepkit observes everywhere (the same numbers as the Python core's `_limits`). */

/** Zep: at most 30 messages in one `thread.addMessages` call; longer lists go in batches. */
export const MAX_MESSAGES_PER_CALL = 30;
/** Per-message cap; a longer message is split into several, never cut. */
export const MAX_MESSAGE_CHARS = 4096;
/** Zep: search `limit` is at most 50. */
export const MAX_SEARCH_LIMIT = 50;
/** The query ceiling of graph search; a longer query is cut to its first 400 characters. */
export const MAX_QUERY_CHARS = 400;
/** Zep v4: an external id is at most 500 characters; zepkit holds every app id to it. */
export const MAX_ID_CHARS = 500;
/** Budget for a rendered context block, so memory never crowds out the conversation. */
export const DEFAULT_CONTEXT_CHARS = 4000;
/** Seconds any one memory operation may take before the turn goes on without it. */
export const DEFAULT_DEADLINE_SECONDS = 10;
export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_MMR_LAMBDA = 0.5;
