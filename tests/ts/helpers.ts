/** Shared test plumbing: a memory loop on the run's `zepkit serve`, unique ids, a request counter
 * and one on a port where nothing listens. */
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";

import { MemoryLoop, type MemoryLoopOptions } from "@zepkit/core";
import { inject, vi } from "vitest";

export function serverMemory(options: MemoryLoopOptions = {}): MemoryLoop {
  return new MemoryLoop({ baseUrl: inject("zepkitBaseUrl"), apiKey: inject("zepkitApiKey"), ...options });
}

/** A memory loop whose server is down (a loopback port nobody listens on), and what it logged. */
export async function downMemory(): Promise<{ memory: MemoryLoop; logged: string[] }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  const logged: string[] = [];
  const memory = new MemoryLoop({
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    apiKey: "unused",
    deadlineSeconds: 2,
    logger: { warn: (message) => logged.push(message) },
  });
  return { memory, logged };
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** Counts the HTTP requests sent to the memory server from now until `stop()`. */
export function countRequests(): { requests: string[]; stop: () => void } {
  const base = inject("zepkitBaseUrl");
  const original = globalThis.fetch;
  const requests: string[] = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(base)) requests.push(`${init?.method ?? "GET"} ${url.slice(base.length)}`);
    return original(input, init);
  });
  return { requests, stop: () => spy.mockRestore() };
}

/** Memory unreachable from now until `stop()`: a request to the run's server whose URL holds
 * `path` fails as a network error does, before it is sent, or (`after`) once, after the server
 * has answered it (the answer lost on the way back). */
export function outage(options: { path?: string; after?: boolean } = {}): { stop: () => void } {
  const base = inject("zepkitBaseUrl");
  const original = globalThis.fetch;
  let lost = false;
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(base) || !url.includes(options.path ?? "") || lost) return original(input, init);
    if (options.after) {
      await original(input, init);
      lost = true;
    }
    throw new TypeError("fetch failed");
  });
  return { stop: () => spy.mockRestore() };
}

/** What the thread holds, as `role: content` lines. */
export async function stored(memory: MemoryLoop, threadId: string): Promise<string[]> {
  const thread = await memory.client.thread.get(threadId);
  return (thread.messages ?? []).map((message) => `${message.role}: ${message.content}`);
}
