/**
 * Long-term memory for a Mastra agent, on `zepkit serve` (or Zep Cloud).
 *
 *   zepkit serve --db memory-data --no-auth          # in one shell
 *   node examples/mastra_agent.ts                    # in another (Node 22)
 *
 * ZEP_BASE_URL picks another server (default http://127.0.0.1:8000/api/v2); ZEP_API_KEY its key.
 * The model is an offline stand-in that prints the system messages it receives: give the agent
 * any model Mastra accepts instead.
 */
import { Agent, type AgentConfig } from "@mastra/core/agent";
import { RequestContext } from "@mastra/core/request-context";
import { MockLanguageModelV3 } from "ai/test";

import { MemoryLoop, zepMemoryProcessors, zepSearchTool } from "@zepkit/mastra";

const memory = new MemoryLoop({
  baseUrl: process.env["ZEP_BASE_URL"] ?? "http://127.0.0.1:8000/api/v2",
  apiKey: process.env["ZEP_API_KEY"] ?? "no-key-needed-with-no-auth",
});

const printingModel = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const system = prompt.flatMap((message) => (message.role === "system" ? [message.content] : []));
    console.log(system.join("\n---\n"));
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

const processors = zepMemoryProcessors(memory);
const agent = new Agent({
  id: "coach",
  name: "coach",
  instructions: "You are a helpful running coach.",
  model: printingModel as unknown as AgentConfig["model"],
  inputProcessors: [processors.input], // saves the turn, adds the memory block
  outputProcessors: [processors.output], // saves the final reply
  tools: { search_memory: zepSearchTool(memory) }, // searches the run's user
});

const said: Record<string, string> = {
  "example-mastra-monday": "I'm training for the Porto marathon in October.",
  "example-mastra-tuesday": "How many weeks until my marathon?",
};
for (const [threadId, text] of Object.entries(said)) {
  const requestContext = new RequestContext();
  requestContext.set("zepkit", { userId: "example-mastra-ana", threadId, firstName: "Ana" });
  await agent.generate(text, { requestContext });
}
// Tuesday's call printed a memory block that already knows about Monday's marathon.
