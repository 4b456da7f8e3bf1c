/** The memory search tool as a Mastra `createTool`: the user is the run's (request context,
 * resource id) or a shared graph fixed here; never a model argument. */
import {
  type MemoryLoop,
  type SearchSettings,
  SEARCH_TOOL_DESCRIPTION,
  SEARCH_TOOL_NAME,
  searchInputSchemaFor,
} from "@zepkit/core";
import type { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";

import { identityFields } from "./identity.js";

/** Also `scopes` (the scopes offered) and pinned `scope`, `reranker`, `limit`, `mmrLambda`, which
 * leave the schema; settings no search could honour throw a `TypeError` when the tool is made. */
export interface ZepSearchToolOptions extends SearchSettings {
  /** Search a shared graph instead of the run's user. */
  graphId?: string | undefined;
  /** Search this user's memory whatever the run (default: the run's user). */
  userId?: string | undefined;
  /** The model-facing description (default: zepkit's). */
  description?: string | undefined;
}

interface RunContext {
  requestContext?: RequestContext;
  agent?: { resourceId?: string };
  resourceId?: string;
}

/** `tools: { search_memory: zepSearchTool(memory) }`. */
export function zepSearchTool(memory: MemoryLoop, options: ZepSearchToolOptions = {}) {
  const { graphId, userId: fixedUser, description, ...settings } = options;
  return createTool({
    id: SEARCH_TOOL_NAME,
    description: description ?? SEARCH_TOOL_DESCRIPTION,
    inputSchema: searchInputSchemaFor(settings),
    execute: async (input: unknown, context: unknown): Promise<string> => {
      if (graphId !== undefined) return memory.search(input, { graphId }, settings);
      const run = (context ?? {}) as RunContext;
      const userId =
        fixedUser ??
        identityFields(run.requestContext, {}).userId ??
        run.agent?.resourceId ??
        run.resourceId;
      if (userId === undefined) return "Error: memory search has no user for this conversation.";
      return memory.search(input, { userId }, settings);
    },
  });
}
