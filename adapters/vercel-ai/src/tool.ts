/** The memory search tool as an AI SDK `tool()`: the model sends a query, the tool answers with
 * one `- ` line per result or a sentence; whose memory it reads is fixed here, never by the model. */
import { tool, type Tool } from "ai";
import {
  type MemoryLoop,
  type SearchTarget,
  SEARCH_TOOL_DESCRIPTION,
  searchInputSchema,
  type SearchInput,
} from "@zepkit/core";

export interface ZepSearchToolOptions {
  /** The model-facing description (default: zepkit's). */
  description?: string;
}

/** `tools: { search_memory: zepSearchTool(memory, { userId }) }`: one user's memory, or a shared
 * graph with `{ graphId }`. Make one per request for per-user tools. */
export function zepSearchTool(memory: MemoryLoop, target: SearchTarget, options: ZepSearchToolOptions = {}): Tool<SearchInput, string> {
  return tool({
    description: options.description ?? SEARCH_TOOL_DESCRIPTION,
    inputSchema: searchInputSchema,
    execute: async (input) => memory.search(input, target),
  });
}
