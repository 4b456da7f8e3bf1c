/** The search tool's parameters as a zod schema, for frameworks that take one (the AI SDK's
 * `tool()`, Mastra's `createTool`). The schema shows the model its choices; `parseSearchArgs`
 * still checks every value, so the tool answers a bad one with a sentence. */
import { z } from "zod";

import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from "./limits.js";
import { SCOPE_HELP, SEARCH_RERANKERS, SEARCH_SCOPES } from "./search.js";

export const searchInputSchema = z.object({
  query: z.string().describe(`What to look for, in a few words (at most ${MAX_QUERY_CHARS} characters).`),
  scope: z
    .enum(SEARCH_SCOPES)
    .optional()
    .describe(
      "What to search (default edges): " +
        SEARCH_SCOPES.map((scope) => `${scope}: ${SCOPE_HELP[scope]}`).join("; "),
    ),
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
});

export type SearchInput = z.infer<typeof searchInputSchema>;
