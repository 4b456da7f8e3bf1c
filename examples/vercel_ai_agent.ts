/**
 * Long-term memory for a Vercel AI SDK app, on `zepkit serve` (or Zep Cloud).
 *
 *   zepkit serve --db memory-data --no-auth          # in one shell
 *   node examples/vercel_ai_agent.ts                 # in another (Node 22)
 *
 * ZEP_BASE_URL picks another server (default http://127.0.0.1:8000/api/v2); ZEP_API_KEY its key.
 * The model is an offline stand-in that prints the system prompt it receives: put any AI SDK
 * model in its place.
 */
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";

import { MemoryLoop, zepMemoryMiddleware, zepSearchTool } from "@zepkit/vercel-ai";

const memory = new MemoryLoop({
  baseUrl: process.env["ZEP_BASE_URL"] ?? "http://127.0.0.1:8000/api/v2",
  apiKey: process.env["ZEP_API_KEY"] ?? "no-key-needed-with-no-auth",
});

const printingModel = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const system = prompt.find((message) => message.role === "system");
    console.log(system?.content ?? "(no system prompt)");
    return {
      content: [{ type: "text", text: "Noted!" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 0, text: 0, reasoning: 0 },
      },
      warnings: [],
    };
  },
});

// One wrapped model serves every user: who a call belongs to travels in providerOptions.zepkit.
const model = wrapLanguageModel({ model: printingModel, middleware: zepMemoryMiddleware(memory) });
const userId = "example-ana";
const said: Record<string, string> = {
  "example-monday": "I'm training for the Porto marathon in October.",
  "example-tuesday": "How many weeks until my marathon?",
};

for (const [threadId, text] of Object.entries(said)) {
  await generateText({
    model,
    system: "You are a helpful running coach.",
    prompt: text,
    tools: { search_memory: zepSearchTool(memory, { userId }) },
    providerOptions: { zepkit: { userId, threadId, firstName: "Ana" } },
  });
}
// Tuesday's call printed a system prompt that already knows about Monday's marathon.
