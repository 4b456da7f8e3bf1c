/** The memory search tool as a Mastra `createTool`: the user is the run's (request context,
 * resource id) or a shared graph fixed here; never a model argument. */
import {
  type MemoryLoop,
  SEARCH_TOOL_DESCRIPTION,
  SEARCH_TOOL_NAME,
  searchInputSchema,
} from "@zepkit/core";
import type { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";

import { identityFields } from "./identity.js";

export interface ZepSearchToolOptions {
  /** Search a shared graph instead of the run's user. */
  graphId?: string;
  /** Search this user's memory whatever the run (default: the run's user). */
  userId?: string;
  /** The model-facing description (default: zepkit's). */
  description?: string;
}

interface RunContext {
  requestContext?: RequestContext;
  agent?: { resourceId?: string };
  resourceId?: string;
}

/** `tools: { search_memory: zepSearchTool(memory) }`. */
export function zepSearchTool(memory: MemoryLoop, options: ZepSearchToolOptions = {}) {
  return createTool({
    id: SEARCH_TOOL_NAME,
    description: options.description ?? SEARCH_TOOL_DESCRIPTION,
    inputSchema: searchInputSchema,
    execute: async (input: unknown, context: unknown): Promise<string> => {
      if (options.graphId !== undefined) return memory.search(input, { graphId: options.graphId });
      const run = (context ?? {}) as RunContext;
      const userId =
        options.userId ??
        identityFields(run.requestContext, {}).userId ??
        run.agent?.resourceId ??
        run.resourceId;
      if (userId === undefined) return "Error: memory search has no user for this conversation.";
      return memory.search(input, { userId });
    },
  });
}
