/** Long-term memory for Mastra agents: input and output processors and a search tool, over Zep
 * Cloud or `zepkit serve`. */
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
export { REQUEST_CONTEXT_KEY } from "./identity.js";
export {
  SYSTEM_MESSAGE_TAG,
  ZepInputProcessor,
  ZepOutputProcessor,
  zepMemoryProcessors,
  type ZepProcessorOptions,
} from "./processors.js";
export { zepSearchTool, type ZepSearchToolOptions } from "./tool.js";
