/** Loaded before every test file: `fetch` refuses anything but loopback, and a file that tried
 * fails, even where a framework or zepkit's fail-soft swallowed the refusal. */
import { afterAll, expect } from "vitest";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const tried: string[] = [];
const realFetch = globalThis.fetch;

globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOOPBACK.has(url.hostname)) {
    tried.push(url.host);
    throw new Error(`a test tried to reach ${url.host}; tests stay on loopback`);
  }
  return realFetch(input, init);
}) as typeof fetch;

afterAll(() => {
  expect(tried, "hosts the tests tried to reach").toEqual([]);
});
