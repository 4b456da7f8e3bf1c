/** `@zepkit/core`'s `MemoryLoop` on the run's `zepkit serve`: turns, replies, limits, ownership
 * and the search tool's sentences. */
import { checkSearchSettings, MAX_MESSAGE_CHARS, type MemoryLoop, parseSearchArgs, visibleParameters } from "@zepkit/core";
import { describe, expect, it } from "vitest";

import { countRequests, serverMemory, stored, uniqueId } from "./helpers.js";

describe("MemoryLoop", () => {
  it("persists a turn once per turnId and shares its block; stores a reply once per turnId", async () => {
    const memory = serverMemory();
    const ids = { userId: uniqueId("jo"), threadId: uniqueId("thread") };
    const first = await memory.beginTurn(ids, "I keep bees on my roof.", { turnId: "run-1" });
    const counted = countRequests();
    try {
      expect(await memory.beginTurn(ids, "I keep bees on my roof.", { turnId: "run-1" })).toBe(first);
      expect(await memory.contextFor(ids, { turnId: "run-1" })).toBe(first);
    } finally {
      counted.stop();
    }
    expect(counted.requests).toEqual([]); // later calls of the turn are served from the cache
    await memory.captureReply(ids, "Bees are great.", { turnId: "run-1" });
    await memory.captureReply(ids, "Bees are great.", { turnId: "run-1" });
    await memory.captureReply(ids, "   ", { turnId: "run-2" });
    expect(await stored(memory, ids.threadId)).toEqual(["user: I keep bees on my roof.", "assistant: Bees are great."]);
  });

  it("splits a long message at sentence boundaries instead of cutting it", async () => {
    const memory = serverMemory();
    const ids = { userId: uniqueId("kim"), threadId: uniqueId("thread") };
    const sentence = "My garden has tomatoes, beans and a very old pear tree. ";
    const long = sentence.repeat(Math.ceil((MAX_MESSAGE_CHARS * 1.5) / sentence.length)).trim();
    await memory.beginTurn(ids, long);
    const pieces = await stored(memory, ids.threadId);
    expect(pieces.length).toBe(2);
    expect(pieces.every((piece) => piece.length - "user: ".length <= MAX_MESSAGE_CHARS)).toBe(true);
    expect(pieces.map((piece) => piece.slice("user: ".length)).join(" ")).toBe(long);
  });

  it("refuses a thread id that belongs to another user, and says so without content", async () => {
    const logged: string[] = [];
    const memory = serverMemory({ logger: { warn: (message) => logged.push(message) } });
    const threadId = uniqueId("shared");
    const owner = { userId: uniqueId("hal"), threadId };
    const intruder = { userId: uniqueId("ivy"), threadId };
    await memory.beginTurn(owner, "My bank PIN hint is the blue heron.");
    expect(await memory.beginTurn(intruder, "What is my bank PIN hint?")).toBe("");
    await memory.captureReply(intruder, "It is the blue heron.");
    expect(await stored(memory, threadId)).toEqual(["user: My bank PIN hint is the blue heron."]);
    expect(logged.join("\n")).toContain("ThreadOwnerError");
    expect(logged.join("\n")).not.toMatch(/heron|PIN/u);
    expect(memory.keptWrites).toBe(0); // a refusal is never kept to be sent again
  });

  it("sends a user's new name: from another process, and with the turn that brings it", async () => {
    const userId = uniqueId("ana");
    const ids = { userId, threadId: uniqueId("thread"), firstName: "Ana" };
    await serverMemory().beginTurn(ids, "Hello there.");
    const memory = serverMemory(); // a second process: its create meets the user
    await memory.beginTurn({ ...ids, lastName: "Silva" }, "Still me.");
    expect(await profile(memory, userId)).toEqual(["Ana", "Silva"]);
    await memory.beginTurn({ ...ids, firstName: "Anna", lastName: "Silva" }, "I go by Anna now.");
    expect(await profile(memory, userId)).toEqual(["Anna", "Silva"]);
    const counted = countRequests();
    try {
      await memory.beginTurn({ ...ids, firstName: "Anna", lastName: "Silva" }, "Thanks.");
    } finally {
      counted.stop();
    }
    expect(counted.requests.filter((request) => request.includes("/users"))).toEqual([]); // sent once
  });

  it("refuses blank and over-long ids as programming errors, not memory failures", async () => {
    const memory = serverMemory();
    await expect(memory.beginTurn({ userId: " ", threadId: "t" }, "hi")).rejects.toThrow(/userId must be a non-empty string/u);
    await expect(memory.beginTurn({ userId: "u", threadId: "t".repeat(501) }, "hi")).rejects.toThrow(/at most 500/u);
  });
});

async function profile(memory: MemoryLoop, userId: string): Promise<(string | undefined)[]> {
  const user = await memory.client.user.get(userId);
  return [user.firstName, user.lastName];
}

describe("search arguments", () => {
  it("come back as sentences the model can act on", () => {
    expect(parseSearchArgs({ query: "x", scope: "galaxy" })).toMatch(/^Error: scope "galaxy" is not available; choose one of/u);
    expect(parseSearchArgs({ query: "x", limit: "many" })).toBe("Error: limit must be a whole number between 1 and 50.");
    expect(parseSearchArgs({ query: "x", userId: "someone-else" })).toMatch(/^Error: unknown parameter\(s\) \["userId"\]/u);
    expect(parseSearchArgs("x")).toBe("Error: the search arguments must be an object with a `query` field.");
    expect(parseSearchArgs({ query: "q".repeat(500), limit: 500, reranker: "mmr" })).toEqual({
      query: "q".repeat(400),
      scope: "edges",
      reranker: "mmr",
      limit: 50,
      mmrLambda: 0.5,
    });
  });

  it("note a query cut to its limit through the app's logger, never with its words", async () => {
    const warned: string[] = [];
    const noted: string[] = [];
    const memory = serverMemory({
      logger: { warn: (message) => warned.push(message), info: (message) => noted.push(message) },
    });
    const ids = { userId: uniqueId("kai"), threadId: uniqueId("kai-t") };
    await memory.beginTurn(ids, "I keep bees on the roof.");
    const found = await memory.search({ query: `bees ${"quietly ".repeat(80)}` }, { userId: ids.userId });
    expect(found).not.toMatch(/^Error/u);
    expect(noted).toEqual(["zepkit: search query cut from 645 to 400 characters"]);
    await memory.search({ query: "bees" }, { userId: ids.userId });
    expect(noted.length).toBe(1);
    expect(warned).toEqual([]);
  });

  it("follow the app's settings: offered scopes, pinned values (which the model cannot change)", () => {
    const pinned = { scope: "nodes", reranker: "mmr", limit: 3, mmrLambda: 0.9 } as const;
    expect(visibleParameters(pinned)).toEqual(["query"]);
    expect(parseSearchArgs({ query: "x", scope: "edges", limit: 40, mmrLambda: 0 }, pinned)).toEqual({
      query: "x",
      scope: "nodes",
      reranker: "mmr",
      limit: 3,
      mmrLambda: 0.9,
    });
    const episodesOnly = { scopes: ["episodes"] } as const;
    expect(visibleParameters(episodesOnly)).toEqual(["query", "reranker", "limit", "mmrLambda"]);
    expect(parseSearchArgs({ query: "x" }, episodesOnly)).toMatchObject({ scope: "episodes" });
    expect(visibleParameters({ reranker: "rrf" })).toEqual(["query", "scope", "limit"]);
    expect(parseSearchArgs({ query: "x", mmrLambda: 0.2 }, { reranker: "rrf" })).toBe(
      'Error: unknown parameter(s) ["mmrLambda"]; valid: ["query","scope","limit"].',
    );
    expect(parseSearchArgs({ query: "x", scope: "edges" }, { scopes: ["nodes", "episodes"] })).toBe(
      'Error: scope "edges" is not available; choose one of ["nodes","episodes"].',
    );
    expect(parseSearchArgs({ query: "x" }, { scopes: ["episodes", "nodes"] })).toMatchObject({ scope: "nodes" });
  });

  it("settings no search could honour are refused when the tool is made", () => {
    expect(() => checkSearchSettings({ scopes: [] })).toThrow(TypeError);
    expect(() => checkSearchSettings({ scopes: ["galaxy" as "edges"] })).toThrow(/must be some of/u);
    expect(() => checkSearchSettings({ limit: 0 })).toThrow(/between 1 and 50/u);
    expect(() => checkSearchSettings({ limit: 2.5 })).toThrow(/whole number/u);
    expect(() => checkSearchSettings({ reranker: "cosine" as "rrf" })).toThrow(/unknown/u);
    expect(() => checkSearchSettings({ mmrLambda: 2 })).toThrow(/between 0 and 1/u);
    expect(checkSearchSettings({ scopes: ["edges", "nodes"], scope: "nodes", limit: 50 })).toEqual({
      scopes: ["edges", "nodes"],
      scope: "nodes",
      limit: 50,
    });
  });
});
