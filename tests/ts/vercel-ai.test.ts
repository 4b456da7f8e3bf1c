/**
 * `@zepkit/vercel-ai` on the AI SDK's real `generateText` / `streamText` loops with a scripted
 * `MockLanguageModelV4`, against the run's real `zepkit serve`.
 */
import { asSchema, generateText, isStepCount, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";

import { zepMemoryMiddleware, zepSearchTool } from "@zepkit/vercel-ai";

import { countRequests, downMemory, serverMemory, stored, uniqueId } from "./helpers.js";

type Generated = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
type Streamed = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>;
type Part = Streamed["stream"] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function says(text: string): Generated {
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: "stop" },
    usage,
    warnings: [],
  };
}

function callsSearch(query: string): Generated {
  return {
    content: [{ type: "tool-call", toolCallId: uniqueId("call"), toolName: "search_memory", input: JSON.stringify({ query }) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

function streams(parts: Part[]): Streamed {
  return {
    stream: new ReadableStream<Part>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}

function streamsText(...chunks: string[]): Streamed {
  return streams([
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...chunks.map((delta): Part => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ]);
}

function streamsSearch(query: string): Streamed {
  return streams([
    { type: "stream-start", warnings: [] },
    { type: "tool-call", toolCallId: uniqueId("call"), toolName: "search_memory", input: JSON.stringify({ query }) },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
  ]);
}

function systemOf(call: { prompt: Array<{ role: string; content: unknown }> }): string {
  const first = call.prompt[0];
  return first?.role === "system" ? String(first.content) : "";
}

describe("zepMemoryMiddleware", () => {
  it("stores the turn once, puts the block into every step of a tool loop and stores the reply once", async () => {
    const memory = serverMemory();
    const monday = { userId: uniqueId("ana"), threadId: uniqueId("monday"), firstName: "Ana" };
    const tuesday = { ...monday, threadId: uniqueId("tuesday") };
    const model = new MockLanguageModelV4({
      doGenerate: [says("Congratulations on Pixel!"), callsSearch("Pixel greyhound"), says("Pixel is your greyhound.")],
    });
    const wrapped = wrapLanguageModel({ model, middleware: zepMemoryMiddleware(memory) });

    await generateText({
      model: wrapped,
      system: "You are helpful.",
      prompt: "I just adopted a greyhound called Pixel.",
      providerOptions: { zepkit: monday },
    });
    const second = await generateText({
      model: wrapped,
      system: "You are helpful.",
      messages: [
        { role: "user", content: "Good morning!" },
        { role: "assistant", content: "Good morning, Ana." },
        { role: "user", content: "What do you remember about Pixel the greyhound?" },
      ],
      tools: { search_memory: zepSearchTool(memory, { userId: monday.userId }) },
      stopWhen: isStepCount(3),
      providerOptions: { zepkit: tuesday },
    });

    expect(second.text).toBe("Pixel is your greyhound.");
    expect(model.doGenerateCalls).toHaveLength(3);
    const [, toolStep, finalStep] = model.doGenerateCalls.map((call) => systemOf(call));
    expect(toolStep).toContain("<ZEP_CONTEXT>");
    expect(toolStep).toContain("Pixel");
    expect(toolStep?.startsWith("You are helpful.\n\nThe following context comes from")).toBe(true);
    expect(finalStep).toBe(toolStep); // the same block on every step, from the turn's cache
    expect(await stored(memory, monday.threadId)).toEqual([
      "user: I just adopted a greyhound called Pixel.",
      "assistant: Congratulations on Pixel!",
    ]);
    // earlier messages the app sends along are not stored again: only the turn's own
    expect(await stored(memory, tuesday.threadId)).toEqual([
      "user: What do you remember about Pixel the greyhound?",
      "assistant: Pixel is your greyhound.",
    ]);
    // the provider never sees zepkit's options
    expect(model.doGenerateCalls.every((call) => !("zepkit" in (call.providerOptions ?? {})))).toBe(true);
  });

  it("sends one request before the model call and one for the reply in a steady-state turn", async () => {
    const memory = serverMemory();
    const ids = { userId: uniqueId("ben"), threadId: uniqueId("thread") };
    const model = new MockLanguageModelV4({ doGenerate: [says("Hello!"), says("Noted."), says("Found it.")] });
    const wrapped = wrapLanguageModel({ model, middleware: zepMemoryMiddleware(memory, { identity: ids }) });
    await generateText({ model: wrapped, prompt: "Hi, I'm Ben." }); // provisions the user and thread

    const counted = countRequests();
    try {
      await generateText({ model: wrapped, prompt: "I play the cello on Sundays." });
    } finally {
      counted.stop();
    }
    expect(counted.requests).toEqual([
      `POST /threads/${ids.threadId}/messages`,
      `POST /threads/${ids.threadId}/messages`,
    ]);
  });

  it("adds only the search's own request in a tool loop: none for the step after it", async () => {
    const memory = serverMemory();
    const ids = { userId: uniqueId("bea"), threadId: uniqueId("thread") };
    const model = new MockLanguageModelV4({ doGenerate: [says("Hello!"), callsSearch("cello Sundays"), says("Found it.")] });
    const wrapped = wrapLanguageModel({ model, middleware: zepMemoryMiddleware(memory, { identity: ids }) });
    await generateText({ model: wrapped, prompt: "Hi, I play the cello on Sundays." });

    const counted = countRequests();
    try {
      await generateText({
        model: wrapped,
        prompt: "When do I play the cello?",
        tools: { search_memory: zepSearchTool(memory, { userId: ids.userId }) },
        stopWhen: isStepCount(3),
      });
    } finally {
      counted.stop();
    }
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(counted.requests).toEqual([
      `POST /threads/${ids.threadId}/messages`,
      "POST /graph/search",
      `POST /threads/${ids.threadId}/messages`,
    ]);
  });

  it("streams: the block reaches every step, the reply is stored once and whole", async () => {
    const memory = serverMemory();
    const before = { userId: uniqueId("cy"), threadId: uniqueId("thread") };
    const ids = { ...before, threadId: uniqueId("thread") };
    const model = new MockLanguageModelV4({
      doStream: [streamsText("Noted: ", "you live ", "in Lisbon."), streamsSearch("Lisbon"), streamsText("You ", "live in Lisbon.")],
    });
    const wrapped = wrapLanguageModel({ model, middleware: zepMemoryMiddleware(memory) });
    const first = streamText({ model: wrapped, prompt: "I live in Lisbon near the river.", providerOptions: { zepkit: before } });
    expect(await first.text).toBe("Noted: you live in Lisbon.");

    const second = streamText({
      model: wrapped,
      prompt: "Where do I live, Lisbon or Porto?",
      tools: { search_memory: zepSearchTool(memory, { userId: ids.userId }) },
      stopWhen: isStepCount(3),
      providerOptions: { zepkit: ids },
    });
    expect(await second.text).toBe("You live in Lisbon.");

    const blocks = model.doStreamCalls.slice(1).map((call) => systemOf(call));
    expect(blocks[0]).toContain("Lisbon");
    expect(blocks[1]).toBe(blocks[0]);
    expect(await stored(memory, before.threadId)).toEqual([
      "user: I live in Lisbon near the river.",
      "assistant: Noted: you live in Lisbon.",
    ]);
    expect(await stored(memory, ids.threadId)).toEqual([
      "user: Where do I live, Lisbon or Porto?",
      "assistant: You live in Lisbon.",
    ]);
  });

  it("keeps two users apart: neither block nor search shows the other's memory", async () => {
    const memory = serverMemory();
    const dana = { userId: uniqueId("dana"), threadId: uniqueId("thread") };
    const eli = { userId: uniqueId("eli"), threadId: uniqueId("thread") };
    const model = new MockLanguageModelV4({ doGenerate: () => Promise.resolve(says("Okay.")) });
    const wrapped = wrapLanguageModel({ model, middleware: zepMemoryMiddleware(memory) });

    await generateText({ model: wrapped, prompt: "My locker code is 4417 at the Zephyr gym.", providerOptions: { zepkit: dana } });
    await generateText({ model: wrapped, prompt: "What is my locker code at the Zephyr gym?", providerOptions: { zepkit: eli } });
    await generateText({
      model: wrapped,
      prompt: "What is my locker code at the Zephyr gym?",
      providerOptions: { zepkit: { ...dana, threadId: uniqueId("thread") } },
    });
    const [, eliSaw, danaSaw] = model.doGenerateCalls.map((call) => systemOf(call));
    expect(danaSaw).toContain("4417"); // the same question finds it for its owner
    expect(eliSaw).not.toContain("4417");
    const found = await memory.search({ query: "locker code Zephyr gym" }, { userId: eli.userId });
    expect(found).not.toContain("4417");
    const own = await memory.search({ query: "locker code Zephyr gym" }, { userId: dana.userId });
    expect(own).toContain("4417");
  });

  it("answers when memory is down, and logs without content", async () => {
    const { memory, logged } = await downMemory();
    const model = new MockLanguageModelV4({ doGenerate: [callsSearch("secret plans"), says("I can still help.")] });
    const wrapped = wrapLanguageModel({ model, middleware: zepMemoryMiddleware(memory) });
    const ids = { userId: uniqueId("fay"), threadId: uniqueId("thread") };
    const result = await generateText({
      model: wrapped,
      prompt: "My secret plan is to open a bakery.",
      tools: { search_memory: zepSearchTool(memory, { userId: ids.userId }) },
      stopWhen: isStepCount(3),
      providerOptions: { zepkit: ids },
    });
    expect(result.text).toBe("I can still help.");
    expect(systemOf(model.doGenerateCalls[0] ?? { prompt: [] })).toBe("");
    const toolResult = result.steps[0]?.toolResults[0];
    expect(String(toolResult?.output)).toMatch(/^Memory search failed \(\w+\); continue without it\.$/u);
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged.join("\n")).toContain(ids.threadId);
    expect(logged.join("\n")).not.toMatch(/bakery|secret/u);
  });

  it("refuses a call without an identity, naming the field", async () => {
    const model = new MockLanguageModelV4({ doGenerate: [says("never")] });
    const wrapped = wrapLanguageModel({ model, middleware: zepMemoryMiddleware(serverMemory()) });
    await expect(generateText({ model: wrapped, prompt: "Hello", maxRetries: 0 })).rejects.toThrow(/userId/u);
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});

describe("zepSearchTool", () => {
  it("answers with one line per result, and with a sentence for a bad argument", async () => {
    const memory = serverMemory();
    const ids = { userId: uniqueId("gus"), threadId: uniqueId("thread") };
    await memory.beginTurn(ids, "My brother Tobias plays the trombone in a jazz band.");
    const search = zepSearchTool(memory, { userId: ids.userId });
    const options = { toolCallId: "c1", messages: [], context: {} };
    const found = await search.execute?.({ query: "Tobias trombone" }, options);
    expect(String(found)).toMatch(/^- .*Tobias.*trombone/mu);
    expect(await search.execute?.({ query: "   " }, options)).toBe(
      "Error: empty search query. Put the words to look for in `query`.",
    );
    expect(await search.execute?.({ query: "zzqx unrelated" }, options)).toBe("No results found.");
  });

  it("narrows its scopes and pins values as the app says: pinned ones leave the schema and win", async () => {
    const memory = serverMemory();
    const ids = { userId: uniqueId("hoa"), threadId: uniqueId("thread") };
    await memory.beginTurn(ids, "My sister Ines keeps two ferrets called Salt and Pepper.");
    await memory.beginTurn(ids, "Ines also grows chillies on her balcony.");
    const options = { toolCallId: "c1", messages: [], context: {} };
    const episodes = zepSearchTool(memory, { userId: ids.userId }, { scope: "episodes", limit: 1 });
    const schema = await asSchema(episodes.inputSchema).jsonSchema;
    expect(Object.keys(schema.properties ?? {})).toEqual(["query", "reranker", "mmrLambda"]);
    // the model's scope and limit are ignored: one raw message comes back
    const found = String(await episodes.execute?.({ query: "Ines ferrets chillies", scope: "nodes", limit: 9 }, options));
    expect(found.split("\n")).toHaveLength(1);
    expect(found).toMatch(/^- My sister Ines keeps two ferrets|^- Ines also grows chillies/u);

    const some = zepSearchTool(memory, { userId: ids.userId }, { scopes: ["nodes", "edges"], reranker: "rrf" });
    const offered = await asSchema(some.inputSchema).jsonSchema;
    expect(Object.keys(offered.properties ?? {})).toEqual(["query", "scope", "limit"]);
    expect(offered.properties?.["scope"]).toMatchObject({ enum: ["edges", "nodes"] });
    expect(await some.execute?.({ query: "Ines", scope: "episodes" }, options)).toBe(
      'Error: scope "episodes" is not available; choose one of ["edges","nodes"].',
    );
    expect(() => zepSearchTool(memory, { userId: ids.userId }, { limit: 51 })).toThrow(/between 1 and 50/u);
    expect(() => zepSearchTool(memory, { userId: ids.userId }, { scopes: ["edges"], scope: "nodes" })).toThrow(
      /"nodes" is not offered/u,
    );
  });
});
