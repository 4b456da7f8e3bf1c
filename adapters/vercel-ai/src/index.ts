/** Long-term memory for the Vercel AI SDK: `zepMemoryMiddleware` for `wrapLanguageModel` and
 * `zepSearchTool` for the model, over Zep Cloud or `zepkit serve`. */
export {
  DEFAULT_TEMPLATE,
  MemoryLoop,
  SEARCH_TOOL_NAME,
  type Identity,
  type MemoryLoopOptions,
  type SearchReranker,
  type SearchScope,
  type SearchSettings,
} from "@zepkit/core";
export {
  PROVIDER_OPTIONS_KEY,
  zepMemoryMiddleware,
  type ZepCallOptions,
  type ZepMemoryMiddlewareOptions,
} from "./middleware.js";
export { zepSearchTool, type ZepSearchToolOptions } from "./tool.js";
