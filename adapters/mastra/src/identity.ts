/**
 * Who a Mastra run belongs to, field by field: ids fixed in the adapter's options, then
 * `requestContext.get("zepkit")` (an `Identity`), then Mastra's reserved `mastra__resourceId` /
 * `mastra__threadId` keys (what an auth middleware sets), then the run's memory option
 * (`agent.generate(..., { memory: { resource, thread } })`).
 */
import { checkIdentity, type Identity } from "@zepkit/core";
import {
  MASTRA_RESOURCE_ID_KEY,
  MASTRA_THREAD_ID_KEY,
  type RequestContext,
} from "@mastra/core/request-context";

/** The request-context key for an explicit identity: `requestContext.set("zepkit", { userId, threadId })`. */
export const REQUEST_CONTEXT_KEY = "zepkit";

type Fields = Partial<Identity>;

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

function defined(fields: { [K in keyof Identity]?: Identity[K] | undefined }): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** The run's identity; throws a `TypeError` naming the missing id when there is none. */
export function runIdentity(requestContext: RequestContext | undefined, fixed: Fields, where: string): Identity {
  return checkIdentity(identityFields(requestContext, fixed), where);
}

/** The fields known for this run (possibly incomplete). */
export function identityFields(requestContext: RequestContext | undefined, fixed: Fields): Fields {
  const get = (key: string): unknown => requestContext?.get(key);
  const memory = get("MastraMemory") as { thread?: { id?: unknown }; resourceId?: unknown } | undefined;
  const explicit = get(REQUEST_CONTEXT_KEY);
  return {
    ...defined({ userId: text(memory?.resourceId), threadId: text(memory?.thread?.id) }),
    ...defined({ userId: text(get(MASTRA_RESOURCE_ID_KEY)), threadId: text(get(MASTRA_THREAD_ID_KEY)) }),
    ...(explicit !== null && typeof explicit === "object" ? defined(explicit as Fields) : {}),
    ...defined(fixed),
  };
}
