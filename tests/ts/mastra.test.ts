/**
 * `@zepkit/mastra` on a real Mastra `Agent` whose model is a scripted `MockLanguageModelV3`,
 * against the run's real `zepkit serve`.
 */
import { Agent, type AgentConfig } from "@mastra/core/agent";
import { MockMemory } from "@mastra/core/memory";
import { MASTRA_RESOURCE_ID_KEY, MASTRA_THREAD_ID_KEY, RequestContext } from "@mastra/core/request-context";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it, onTestFinished, vi } from "vitest";

import { MemoryLoop, zepMemoryProcessors, zepSearchTool, type ZepSearchToolOptions } from "@zepkit/mastra";

import { countRequests, downMemory, serverMemory, stored, uniqueId } from "./helpers.js";

type Generated = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
type Streamed = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>;
type Part = Streamed["stream"] extends ReadableStream<infer P> ? P : never;
type Call = MockLanguageModelV3["doStreamCalls"][number];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** One scripted model response: text (streamed in the given chunks) or a search call. */
type Step = { say: string[] } | { search: string; with?: Record<string, unknown> };

function says(...chunks: string[]): Step {
  return { say: chunks };
}

function callsSearch(query: string, more: Record<string, unknown> = {}): Step {
  return { search: query, with: more };
}

function generated(step: Step): Generated {
  if ("say" in step) {
    return {
      content: [{ type: "text", text: step.say.join("") }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    };
  }
  return {
    content: [{ type: "tool-call", toolCallId: uniqueId("call"), toolName: "search_memory", input: JSON.stringify({ query: step.search, ...step.with }) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

function streamed(step: Step): Streamed {
  const parts: Part[] =
    "say" in step
      ? [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          ...step.say.map((delta): Part => ({ type: "text-delta", id: "t", delta })),
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
        ]
      : [
          { type: "stream-start", warnings: [] },
          { type: "tool-call", toolCallId: uniqueId("call"), toolName: "search_memory", input: JSON.stringify({ query: step.search, ...step.with }) },
          { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
        ];
  return {
    stream: new ReadableStream<Part>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}

/** A model that plays `script` in order, one step per call (the last one repeats); `calls` holds
 * what each call was sent, whichever of generate or stream Mastra used. */
class Scripted extends MockLanguageModelV3 {
  readonly calls: Call[] = [];

  constructor(...script: Step[]) {
    const next = (options: Call): Step => {
      this.calls.push(options);
      const step = script[Math.min(this.calls.length - 1, script.length - 1)];
      if (step === undefined) throw new Error("empty script");
      return step;
    };
    super({
      doGenerate: async (options) => generated(next(options)),
      doStream: async (options) => streamed(next(options)),
    });
  }
}

/** Every system text the model was sent in one call. */
function systemOf(call: Call | undefined): string {
  return (call?.prompt ?? [])
    .flatMap((message) => (message.role === "system" ? [message.content] : []))
    .join("\n");
}

/** An agent with zepkit's processors; `withTool` adds the search tool, `mastraMemory` gives it
 * Mastra's own memory (which is what turns a run's `memory: { resource, thread }` into ids). */
function agentWith(
  memory: MemoryLoop,
  model: Scripted,
  withTool: boolean | ZepSearchToolOptions = false,
  mastraMemory?: AgentConfig["memory"],
): Agent {
  const processors = zepMemoryProcessors(memory);
  return new Agent({
    id: "assistant",
    name: "assistant",
    instructions: "You are helpful.",
    model: model as unknown as AgentConfig["model"], // the AI SDK's mock, typed by another copy of its spec
    inputProcessors: [processors.input],
    outputProcessors: [processors.output],
    ...(withTool === false ? {} : { tools: { search_memory: zepSearchTool(memory, withTool === true ? {} : withTool) } }),
    ...(mastraMemory === undefined ? {} : { memory: mastraMemory }),
  });
}

function runFor(userId: string, threadId: string): RequestContext {
  const context = new RequestContext();
  context.set(MASTRA_RESOURCE_ID_KEY, userId);
  context.set(MASTRA_THREAD_ID_KEY, threadId);
  return context;
}

describe("zepMemoryProcessors", () => {
  it("stores the turn once, sends the block with every step of a tool loop and stores the reply once", async () => {
    const memory = serverMemory();
    const userId = uniqueId("ana");
    const [monday, tuesday] = [uniqueId("monday"), uniqueId("tuesday")];
    const model = new Scripted(
      says("Congratulations ", "on Pixel!"),
      callsSearch("Pixel greyhound"),
      says("Pixel is ", "your greyhound."),
    );
    const agent = agentWith(memory, model, true);

    await agent.generate("I just adopted a greyhound called Pixel.", { requestContext: runFor(userId, monday) });
    const answer = await agent.generate("What do you remember about Pixel the greyhound?", {
      requestContext: runFor(userId, tuesday),
      maxSteps: 3,
    });

    expect(answer.text).toContain("Pixel is your greyhound.");
    expect(model.calls).toHaveLength(3);
    const [toolStep, finalStep] = model.calls.slice(1).map(systemOf);
    expect(toolStep).toContain("You are helpful.");
    expect(toolStep).toContain("<ZEP_CONTEXT>");
    expect(toolStep).toContain("Pixel");
    expect(finalStep).toBe(toolStep);
    const toolResults = JSON.stringify(model.calls[2]?.prompt.filter((m) => m.role === "tool"));
    expect(toolResults).toMatch(/- [^"]*Pixel/u); // the search tool answered with a memory line
    expect(await stored(memory, monday)).toEqual([
      "user: I just adopted a greyhound called Pixel.",
      "assistant: Congratulations on Pixel!",
    ]);
    expect(await stored(memory, tuesday)).toEqual([
      "user: What do you remember about Pixel the greyhound?",
      "assistant: Pixel is your greyhound.",
    ]);
  });

  it("sends one request before the model call and one for the reply in a steady-state turn", async () => {
    const memory = serverMemory();
    const [userId, threadId] = [uniqueId("ben"), uniqueId("thread")];
    const agent = agentWith(memory, new Scripted(says("Noted.")));
    await agent.generate("Hi, I'm Ben.", { requestContext: runFor(userId, threadId) });

    const counted = countRequests();
    try {
      await agent.generate("I play the cello on Sundays.", { requestContext: runFor(userId, threadId) });
    } finally {
      counted.stop();
    }
    expect(counted.requests).toEqual([`POST /threads/${threadId}/messages`, `POST /threads/${threadId}/messages`]);
  });

  it("adds only the search's own request in a tool loop: none for the step after it", async () => {
    const memory = serverMemory();
    const [userId, threadId] = [uniqueId("bea"), uniqueId("thread")];
    const model = new Scripted(says("Noted."), callsSearch("cello Sundays"), says("Found it."));
    const agent = agentWith(memory, model, true);
    await agent.generate("Hi, I play the cello on Sundays.", { requestContext: runFor(userId, threadId) });

    const counted = countRequests();
    try {
      await agent.generate("When do I play the cello?", { requestContext: runFor(userId, threadId), maxSteps: 3 });
    } finally {
      counted.stop();
    }
    expect(model.calls).toHaveLength(3);
    expect(counted.requests).toEqual([
      `POST /threads/${threadId}/messages`,
      "POST /graph/search",
      `POST /threads/${threadId}/messages`,
    ]);
  });

  it("streams: the reply is stored once and whole", async () => {
    const memory = serverMemory();
    const [userId, threadId] = [uniqueId("cy"), uniqueId("thread")];
    const agent = agentWith(memory, new Scripted(says("Lisbon ", "is lovely ", "in spring.")));
    const output = await agent.stream("I moved to Lisbon.", { requestContext: runFor(userId, threadId) });
    expect(await output.text).toBe("Lisbon is lovely in spring.");
    await expect.poll(() => stored(memory, threadId)).toEqual([
      "user: I moved to Lisbon.",
      "assistant: Lisbon is lovely in spring.",
    ]);
  });

  it("takes the identity from requestContext.set('zepkit', ...) and keeps two users apart", async () => {
    const memory = serverMemory();
    const dana = { userId: uniqueId("dana"), threadId: uniqueId("thread") };
    const eli = { userId: uniqueId("eli"), threadId: uniqueId("thread") };
    const model = new Scripted(says("Okay."));
    const agent = agentWith(memory, model);
    const as = (identity: { userId: string; threadId: string }): RequestContext => {
      const context = new RequestContext();
      context.set("zepkit", identity);
      return context;
    };
    await agent.generate("My locker code is 4417 at the Zephyr gym.", { requestContext: as(dana) });
    await agent.generate("What is my locker code at the Zephyr gym?", { requestContext: as(eli) });
    await agent.generate("What is my locker code at the Zephyr gym?", {
      requestContext: as({ ...dana, threadId: uniqueId("thread") }),
    });
    const [, eliSaw, danaSaw] = model.calls.map(systemOf);
    expect(danaSaw).toContain("4417");
    expect(eliSaw).not.toContain("4417");
    expect(await stored(memory, eli.threadId)).toEqual([
      "user: What is my locker code at the Zephyr gym?",
      "assistant: Okay.",
    ]);
  });

  it("takes the identity from the run's memory option (Mastra's resource and thread ids) and keeps two resources apart", async () => {
    const memory = serverMemory();
    const gia = { resource: uniqueId("gia"), thread: uniqueId("thread") };
    const hal = { resource: uniqueId("hal"), thread: uniqueId("thread") };
    const later = uniqueId("thread");
    const run = [callsSearch("locker code Zephyr gym"), says("Okay.")];
    const model = new Scripted(...run, ...run, ...run);
    const agent = agentWith(memory, model, true, new MockMemory());

    await agent.generate("My locker code is 5512 at the Zephyr gym.", { memory: gia, maxSteps: 3 });
    await agent.generate("What is my locker code at the Zephyr gym?", { memory: hal, maxSteps: 3 });
    await agent.generate("What is my locker code at the Zephyr gym?", {
      memory: { resource: gia.resource, thread: later },
      maxSteps: 3,
    });

    // each run is a search step then a reply: the block and the search read the run's resource
    const [giaSaw, halSaw, giaLaterSaw] = [1, 3, 5].map((step) => systemOf(model.calls[step]));
    const searched = [3, 5].map((step) => JSON.stringify(model.calls[step]?.prompt.filter((m) => m.role === "tool")));
    expect(giaLaterSaw).toContain("5512");
    expect(halSaw).not.toContain("5512");
    expect(giaSaw).not.toContain("5512");
    expect(searched[0]).not.toContain("5512"); // hal's search reads hal's memory
    expect(searched[1]).toContain("5512"); // gia's, in a new thread, reads gia's
    const said = (question: string): string[] => [`user: ${question}`, "assistant: Okay."];
    expect(await stored(memory, gia.thread)).toEqual(said("My locker code is 5512 at the Zephyr gym."));
    expect(await stored(memory, hal.thread)).toEqual(said("What is my locker code at the Zephyr gym?"));
    const ownerOf = async (threadId: string): Promise<string | undefined> =>
      (await memory.client.thread.get(threadId, { lastn: 1 })).userId;
    expect(await ownerOf(gia.thread)).toBe(gia.resource);
    expect(await ownerOf(later)).toBe(gia.resource);
    expect(await ownerOf(hal.thread)).toBe(hal.resource);
  });

  it("offers the model only the search scopes and parameters the app leaves open", async () => {
    const memory = serverMemory();
    const [userId, threadId] = [uniqueId("ike"), uniqueId("thread")];
    const model = new Scripted(
      says("Noted."),
      callsSearch("Ines ferrets chillies", { scope: "episodes", limit: 9 }),
      says("Done."),
    );
    const agent = agentWith(memory, model, { scopes: ["edges", "episodes"], limit: 1 });
    await agent.generate("My sister Ines keeps ferrets and grows chillies.", { requestContext: runFor(userId, threadId) });
    await agent.generate("What does Ines keep?", { requestContext: runFor(userId, threadId), maxSteps: 3 });

    const offered = model.calls[1]?.tools?.find((tool) => tool.name === "search_memory");
    const schema = (offered && "inputSchema" in offered ? offered.inputSchema : {}) as {
      properties?: Record<string, { enum?: unknown }>;
    };
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(["mmrLambda", "query", "reranker", "scope"]);
    expect(schema.properties?.["scope"]?.enum).toEqual(["edges", "episodes"]);
    // the model's limit is not the app's: one raw message comes back
    const results = model.calls[2]?.prompt.flatMap((m) => (m.role === "tool" ? m.content : [])) ?? [];
    const output = results.flatMap((part) => (part.type === "tool-result" ? [part.output] : []));
    expect(output).toEqual([{ type: "text", value: "- My sister Ines keeps ferrets and grows chillies." }]);
  });

  it("answers when memory is down, and logs without content", async () => {
    const { memory, logged } = await downMemory();
    const [userId, threadId] = [uniqueId("fay"), uniqueId("thread")];
    const model = new Scripted(callsSearch("secret plans"), says("I can still help."));
    const answer = await agentWith(memory, model, true).generate("My secret plan is to open a bakery.", {
      requestContext: runFor(userId, threadId),
      maxSteps: 3,
    });
    expect(answer.text).toBe("I can still help.");
    expect(systemOf(model.calls[0])).not.toContain("ZEP_CONTEXT");
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("Memory search failed");
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged.join("\n")).toContain(threadId);
    expect(logged.join("\n")).not.toMatch(/bakery|secret/u);
  });

  it("refuses a run without an identity, naming the field", async () => {
    const model = new Scripted(says("never"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    onTestFinished(() => {
      errors.mockRestore();
      warnings.mockRestore();
    });
    const failed = await agentWith(serverMemory(), model).generate("Hello").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(failed)).toContain("Input processor error");
    // Mastra reports a processor's own error through its logger
    const logged = JSON.stringify([...errors.mock.calls, ...warnings.mock.calls]);
    expect(logged).toMatch(/ZepInputProcessor: userId must be a non-empty string/u);
    expect(model.calls).toHaveLength(0);
  });
});
