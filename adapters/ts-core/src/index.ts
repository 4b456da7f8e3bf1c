/** zepkit's memory loop for TypeScript agent frameworks (the adapters' shared core). */
export { defuseRoleLines, escapeAllTags, escapeTags, oneLine } from "./escaping.js";
export { describeError, type Logger, type OnError } from "./failsoft.js";
export { checkIdentity, type Identity } from "./identity.js";
export * from "./limits.js";
export { MemoryLoop, ThreadOwnerError, type MemoryLoopOptions, type TurnOptions } from "./loop.js";
export { DEFAULT_TEMPLATE, renderContext } from "./rendering.js";
export { searchInputSchema, searchInputSchemaFor, type SearchInput } from "./schema.js";
export {
  checkSearchSettings,
  formatResults,
  NO_RESULTS,
  offeredScopes,
  parseSearchArgs,
  SEARCH_PARAMETERS,
  SEARCH_RERANKERS,
  SEARCH_SCOPES,
  SEARCH_TOOL_DESCRIPTION,
  SEARCH_TOOL_NAME,
  visibleParameters,
  type SearchArgs,
  type SearchReranker,
  type SearchScope,
  type SearchSettings,
  type SearchTarget,
} from "./search.js";
export { LRU } from "./lru.js";
export { splitText } from "./splitting.js";
