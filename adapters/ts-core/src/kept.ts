/**
 * Writes kept while memory is unreachable: a turn's message or a reply whose write failed for a
 * transient reason waits here, in this process, and is sent before its thread's next write, in
 * order, with the idempotency key it was first sent with (the Python core's outbox, without the
 * file: a process that exits loses what still waits).
 */
import { ZepError, ZepTimeoutError, type Zep } from "@getzep/zep-cloud";

import type { Identity } from "./identity.js";

/** Writes kept at most, over all threads; past it a new write is refused and logged as lost. */
export const DEFAULT_MAX_KEPT_WRITES = 1000;

/** One `thread.addMessages` call (at most 30 messages) and its idempotency key. */
export interface Write {
  messages: Zep.Message[];
  key: string;
}

/** Whether a failure may pass if the write is tried again: memory unreachable, a timeout, a
 * rate limit or a server error. A refusal (bad input, an unknown thread, a key) never passes. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ZepTimeoutError) return true;
  if (!(error instanceof ZepError)) return false;
  const status = error.statusCode;
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

/** The kept writes of every thread, oldest first within a thread. */
export class KeptWrites {
  private readonly threads = new Map<string, { identity: Identity; writes: Write[] }>();
  private count = 0;

  constructor(readonly limit: number = DEFAULT_MAX_KEPT_WRITES) {
    if (!Number.isInteger(limit) || limit < 0) {
      throw new RangeError(`maxKeptWrites must be a whole number of at least 0, got ${limit}`);
    }
  }

  /** Writes waiting, over all threads. */
  get size(): number {
    return this.count;
  }

  /** The threads with writes waiting. */
  waiting(): string[] {
    return [...this.threads.keys()];
  }

  /** Keep `writes` behind the thread's others; false, keeping none, when they would pass the
   * limit (the writes already kept stay, in order). */
  keep(thread: string, identity: Identity, writes: Write[]): boolean {
    if (this.count + writes.length > this.limit) return false;
    const entry = this.threads.get(thread);
    if (entry) entry.writes.push(...writes);
    else this.threads.set(thread, { identity, writes: [...writes] });
    this.count += writes.length;
    return true;
  }

  /** The thread's oldest kept write and whose it is, if any. */
  first(thread: string): { identity: Identity; write: Write } | undefined {
    const entry = this.threads.get(thread);
    const write = entry?.writes[0];
    return entry && write ? { identity: entry.identity, write } : undefined;
  }

  /** Forget the thread's oldest kept write (sent, or refused for good). */
  dropFirst(thread: string): void {
    const entry = this.threads.get(thread);
    if (!entry || entry.writes.length === 0) return;
    entry.writes.shift();
    this.count -= 1;
    if (entry.writes.length === 0) this.threads.delete(thread);
  }
}
