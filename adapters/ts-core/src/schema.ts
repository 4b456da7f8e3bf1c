/** The search tool's parameters as a zod schema, for frameworks that take one (the AI SDK's
 * `tool()`, Mastra's `createTool`). The schema shows the model its choices; `parseSearchArgs`
 * still checks every value, so the tool answers a bad one with a sentence. */
import { z } from "zod";

import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from "./limits.js";
import {
  checkSearchSettings,
  offeredScopes,
  SCOPE_HELP,
  SEARCH_RERANKERS,
  SEARCH_SCOPES,
  type SearchArgs,
  type SearchScope,
  type SearchSettings,
  visibleParameters,
} from "./search.js";

/** What the model may send (every field but `query` optional, so a narrowed schema's input is
 * one of these too). */
export type SearchInput = SearchArgs;

function scopeField(scopes: readonly SearchScope[]) {
  return z
    .enum(scopes as [SearchScope, ...SearchScope[]])
    .optional()
    .describe(
      `What to search (default ${scopes.includes("edges") ? "edges" : scopes[0]}): ` +
        scopes.map((scope) => `${scope}: ${SCOPE_HELP[scope]}`).join("; "),
    );
}

function fields(scopes: readonly SearchScope[]) {
  return {
    query: z.string().describe(`What to look for, in a few words (at most ${MAX_QUERY_CHARS} characters).`),
    scope: scopeField(scopes),
    reranker: z
      .enum(SEARCH_RERANKERS)
      .optional()
      .describe("How to order results (default rrf; mmr favours variety)."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_SEARCH_LIMIT)
      .optional()
      .describe(`How many results to return (default ${DEFAULT_SEARCH_LIMIT}).`),
    mmrLambda: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("Only with reranker mmr: 1 favours relevance, 0 favours variety."),
  };
}

/** Every parameter, every scope: the schema of a tool made without settings. */
export const searchInputSchema = z.object(fields(SEARCH_SCOPES));

/** The schema for a tool made with `settings`: pinned parameters left out, the scopes narrowed
 * to those offered. Throws a `TypeError` for settings no search could honour. */
export function searchInputSchemaFor(settings: SearchSettings = {}): z.ZodType<SearchInput> {
  checkSearchSettings(settings);
  const all = fields(offeredScopes(settings));
  const shown = Object.fromEntries(visibleParameters(settings).map((name) => [name, all[name]]));
  return z.object(shown) as unknown as z.ZodType<SearchInput>;
}
