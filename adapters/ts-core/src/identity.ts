/** Who a turn belongs to: the app's own user and thread ids, and an optional profile. */
import { MAX_ID_CHARS } from "./limits.js";

export interface Identity {
  /** The app's user id (the framework's user or resource id). */
  userId: string;
  /** The app's conversation id (the framework's thread or session id). */
  threadId: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  email?: string | undefined;
}

/** Throws a `TypeError` naming the field when an id is missing, blank or too long: a programming
 * error, never taken for a memory failure. */
export function checkIdentity(identity: Partial<Identity> | null | undefined, where: string): Identity {
  if (identity == null || typeof identity !== "object") {
    throw new TypeError(`${where}: no identity (give a userId and a threadId)`);
  }
  for (const field of ["userId", "threadId"] as const) {
    checkId(identity[field], `${where}: ${field}`);
  }
  return identity as Identity;
}

/** Throws unless `value` is a usable app id. */
export function checkId(value: unknown, name: string): string {
  if (typeof value !== "string" || !value.trim()) {
    throw new TypeError(`${name} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  if (value.length > MAX_ID_CHARS) {
    throw new TypeError(`${name} is ${value.length} characters; at most ${MAX_ID_CHARS}`);
  }
  return value;
}

/** The user's name as a chat message carries it, when the profile has one. */
export function displayName(identity: Identity): string | undefined {
  const name = [identity.firstName, identity.lastName].filter(Boolean).join(" ");
  return name || undefined;
}
