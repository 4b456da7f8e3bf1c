/** The memory search tool as an AI SDK `tool()`: the model sends a query, the tool answers with
 * one `- ` line per result or a sentence; whose memory it reads is fixed here, never by the model. */
import { tool, type Tool } from "ai";
import {
  type MemoryLoop,
  type SearchInput,
  type SearchSettings,
  type SearchTarget,
  SEARCH_TOOL_DESCRIPTION,
  searchInputSchemaFor,
} from "@zepkit/core";

export interface ZepSearchToolOptions extends SearchSettings {
  /** The model-facing description (default: zepkit's). */
  description?: string | undefined;
}

/** `tools: { search_memory: zepSearchTool(memory, { userId }) }`: one user's memory, or a shared
 * graph with `{ graphId }`. Make one per request for per-user tools. `options` may narrow the
 * scopes (`scopes`) and pin `scope`, `reranker`, `limit` or `mmrLambda`: pinned values leave the
 * schema; settings no search could honour throw a `TypeError` here. */
export function zepSearchTool(memory: MemoryLoop, target: SearchTarget, options: ZepSearchToolOptions = {}): Tool<SearchInput, string> {
  const { description, ...settings } = options;
  return tool({
    description: description ?? SEARCH_TOOL_DESCRIPTION,
    inputSchema: searchInputSchemaFor(settings),
    execute: async (input) => memory.search(input, target, settings),
  });
}
