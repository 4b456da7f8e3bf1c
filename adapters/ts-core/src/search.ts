/**
 * The model-callable memory search, defined once for every adapter: its name, description and
 * parameter rules, the request it makes and the text the model reads. It never throws at the
 * model: a bad argument or a failed search comes back as a sentence it can act on.
 */
import type { ZepClient, Zep } from "@getzep/zep-cloud";

import { escapeAllTags, escapeTags, LAYOUT_TAGS, oneLine } from "./escaping.js";
import {
  DEFAULT_MMR_LAMBDA,
  DEFAULT_SEARCH_LIMIT,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
} from "./limits.js";

export const SEARCH_TOOL_NAME = "search_memory";
export const SEARCH_TOOL_DESCRIPTION =
  "Search the long-term memory for specific facts, entities or past messages that the " +
  "context you already have does not cover. Pass a short query (at most 400 characters).";
export const NO_RESULTS = "No results found.";

/** What the model may search, and how it may order results (both Zep Cloud and `zepkit serve`
 * answer these). */
export const SEARCH_SCOPES = ["edges", "nodes", "episodes"] as const;
export const SEARCH_RERANKERS = ["rrf", "mmr"] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];
export type SearchReranker = (typeof SEARCH_RERANKERS)[number];

export const SCOPE_HELP: Record<SearchScope, string> = {
  edges: "facts and relationships",
  nodes: "entities (people, places, things) with summaries",
  episodes: "raw past messages and documents",
};

/** How an app narrows the search tool, as zepkit's Python `SearchTool` does: the scopes the model
 * may choose from, and values pinned here, which leave the schema and which the model cannot
 * change. Checked once, when a tool is made (`checkSearchSettings`). */
export interface SearchSettings {
  /** The scopes offered to the model (default: all of `SEARCH_SCOPES`); one scope pins it. */
  scopes?: readonly SearchScope[] | undefined;
  /** Every search uses this scope. */
  scope?: SearchScope | undefined;
  /** Every search orders results this way. */
  reranker?: SearchReranker | undefined;
  /** Every search returns at most this many results (1 to 50). */
  limit?: number | undefined;
  /** The mmr balance whenever mmr orders results (0 to 1). */
  mmrLambda?: number | undefined;
}

/** The parameters a model may send, in schema order. */
export const SEARCH_PARAMETERS = ["query", "scope", "reranker", "limit", "mmrLambda"] as const;
type Parameter = (typeof SEARCH_PARAMETERS)[number];
type Pins = Partial<Record<Exclude<Parameter, "query">, unknown>>;

/** Throws a `TypeError` for settings no search could honour: a programming error, found when the
 * tool is made rather than when the model calls it. Returns them unchanged. */
export function checkSearchSettings(settings: SearchSettings = {}): SearchSettings {
  const { scopes, scope, reranker, limit, mmrLambda } = settings;
  if (scopes !== undefined) {
    const known = (one: unknown): boolean => SEARCH_SCOPES.includes(one as SearchScope);
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(known)) {
      throw new TypeError(`search scopes must be some of ${JSON.stringify(SEARCH_SCOPES)}, got ${JSON.stringify(scopes)}`);
    }
  }
  if (scope !== undefined && !(scopes ?? SEARCH_SCOPES).includes(scope)) {
    throw new TypeError(`search scope ${JSON.stringify(scope)} is not offered; offered: ${JSON.stringify(scopes ?? SEARCH_SCOPES)}`);
  }
  if (reranker !== undefined && !SEARCH_RERANKERS.includes(reranker)) {
    throw new TypeError(`search reranker ${JSON.stringify(reranker)} is unknown; use one of ${JSON.stringify(SEARCH_RERANKERS)}`);
  }
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_SEARCH_LIMIT)) {
    throw new TypeError(`search limit must be a whole number between 1 and ${MAX_SEARCH_LIMIT}, got ${JSON.stringify(limit)}`);
  }
  if (mmrLambda !== undefined && !(typeof mmrLambda === "number" && mmrLambda >= 0 && mmrLambda <= 1)) {
    throw new TypeError(`search mmrLambda must be a number between 0 and 1, got ${JSON.stringify(mmrLambda)}`);
  }
  return settings;
}

/** The scopes the model may search, in `SEARCH_SCOPES` order. */
export function offeredScopes(settings: SearchSettings = {}): readonly SearchScope[] {
  if (settings.scope !== undefined) return [settings.scope];
  const offered = settings.scopes ?? SEARCH_SCOPES;
  return SEARCH_SCOPES.filter((scope) => offered.includes(scope));
}

/** The values the model cannot change: the pinned ones, and the scope when only one is offered. */
function pinsOf(settings: SearchSettings): Pins {
  const scopes = offeredScopes(settings);
  const pins: Pins = {
    scope: scopes.length === 1 ? scopes[0] : undefined,
    reranker: settings.reranker,
    limit: settings.limit,
  };
  if (settings.mmrLambda !== undefined) pins.mmrLambda = settings.mmrLambda;
  return Object.fromEntries(Object.entries(pins).filter(([, value]) => value !== undefined));
}

/** The parameters the model sees: `query`, and whatever is neither pinned nor meaningless (no
 * `mmrLambda` when the reranker is pinned to something else). */
export function visibleParameters(settings: SearchSettings = {}): Parameter[] {
  const pins = pinsOf(settings);
  return SEARCH_PARAMETERS.filter(
    (name) => !(name in pins) && !(name === "mmrLambda" && settings.reranker !== undefined && settings.reranker !== "mmr"),
  );
}

/** Whose memory a search reads: the turn's user, or a shared graph fixed by the app. */
export type SearchTarget = { userId: string } | { graphId: string };

/** The arguments a model sends (validated here, not trusted). */
export interface SearchArgs {
  query: string;
  scope?: SearchScope | undefined;
  reranker?: SearchReranker | undefined;
  limit?: number | undefined;
  mmrLambda?: number | undefined;
}

interface Parsed {
  query: string;
  scope: SearchScope;
  reranker: SearchReranker;
  limit: number;
  mmrLambda: number | undefined;
}

/** Validate what the model sent under `settings` (pinned values win; a pinned parameter the
 * model sends anyway is ignored); a sentence for the model when it cannot be run. */
export function parseSearchArgs(args: unknown, settings: SearchSettings = {}): Parsed | string {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return "Error: the search arguments must be an object with a `query` field.";
  }
  const pins = pinsOf(settings);
  const valid: string[] = visibleParameters(settings);
  const sent = Object.fromEntries(
    Object.entries(args as Record<string, unknown>).filter(([key, value]) => value !== undefined && !(key in pins)),
  );
  const unknown = Object.keys(sent).filter((key) => !valid.includes(key));
  if (unknown.length > 0) {
    return `Error: unknown parameter(s) ${JSON.stringify(unknown.sort())}; valid: ${JSON.stringify(valid)}.`;
  }
  const given: Record<string, unknown> = { ...sent, ...pins };
  const query = given["query"];
  if (typeof query !== "string" || !query.trim()) {
    return "Error: empty search query. Put the words to look for in `query`.";
  }
  const scopes = offeredScopes(settings);
  const scope = given["scope"] ?? (scopes.includes("edges") ? "edges" : scopes[0]);
  if (!scopes.includes(scope as SearchScope)) {
    return `Error: scope ${JSON.stringify(scope)} is not available; choose one of ${JSON.stringify(scopes)}.`;
  }
  const reranker = given["reranker"] ?? "rrf";
  if (!SEARCH_RERANKERS.includes(reranker as SearchReranker)) {
    return `Error: reranker ${JSON.stringify(reranker)} cannot be used with scope ${JSON.stringify(scope)}; use one of ${JSON.stringify(SEARCH_RERANKERS)}.`;
  }
  const limit = given["limit"] ?? DEFAULT_SEARCH_LIMIT;
  if (typeof limit !== "number" || !Number.isFinite(limit)) {
    return `Error: limit must be a whole number between 1 and ${MAX_SEARCH_LIMIT}.`;
  }
  let mmrLambda = given["mmrLambda"];
  if (reranker === "mmr" && mmrLambda === undefined) mmrLambda = DEFAULT_MMR_LAMBDA;
  if (mmrLambda !== undefined && (typeof mmrLambda !== "number" || !(mmrLambda >= 0 && mmrLambda <= 1))) {
    return "Error: mmrLambda must be a number between 0 and 1.";
  }
  return {
    query: query.slice(0, MAX_QUERY_CHARS),
    scope: scope as SearchScope,
    reranker: reranker as SearchReranker,
    limit: Math.min(Math.max(Math.trunc(limit), 1), MAX_SEARCH_LIMIT),
    mmrLambda: reranker === "mmr" ? (mmrLambda as number) : undefined,
  };
}

/** Run a search for the model and return what it reads; never throws. */
export async function runSearch(
  client: ZepClient,
  args: unknown,
  target: SearchTarget,
  settings: SearchSettings,
  requestOptions: { timeoutInSeconds: number; maxRetries: number; abortSignal: AbortSignal },
  onFailure: (error: unknown, scope: string) => void,
  onClipped: (chars: number) => void = () => {},
): Promise<string> {
  const parsed = parseSearchArgs(args, settings);
  if (typeof parsed === "string") return parsed;
  const sent = (args as { query: string }).query;
  if (sent.length > MAX_QUERY_CHARS) onClipped(sent.length);
  const request: Zep.GraphSearchQuery = {
    ...target,
    query: parsed.query,
    scope: parsed.scope,
    reranker: parsed.reranker,
    limit: parsed.limit,
    ...(parsed.mmrLambda !== undefined ? { mmrLambda: parsed.mmrLambda } : {}),
  };
  try {
    return formatResults(await client.graph.search(request, requestOptions));
  } catch (error) {
    try {
      onFailure(error, parsed.scope);
    } catch {
      // "raise" does not reach the model: the tool answers with a sentence either way
    }
    const kind = error instanceof Error ? error.name : "error";
    return `Memory search failed (${kind}); continue without it.`;
  }
}

/** Results as the model reads them: one `- ` line per item, stored text carrying no markup. */
export function formatResults(results: Zep.GraphSearchResults): string {
  const items = [
    ...(results.edges ?? []).map((edge) => edge.fact),
    ...(results.nodes ?? []).map((node) => (node.summary ? `${node.name}: ${node.summary}` : node.name)),
    ...(results.episodes ?? []).map((episode) => episode.content),
  ];
  const lines = items.map((item) => `- ${escapeAllTags(escapeTags(oneLine(item), LAYOUT_TAGS))}`);
  return lines.length > 0 ? lines.join("\n") : NO_RESULTS;
}
