/** The runnable examples, run as a user would (`node examples/NAME.ts`, Node 22 strips the types)
 * against the run's `zepkit serve`. */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { describe, expect, inject, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

describe("examples", () => {
  it.each(["vercel_ai_agent.ts", "mastra_agent.ts"])("%s remembers Monday on Tuesday", async (name) => {
    const { stdout } = await run(process.execPath, [`examples/${name}`], {
      cwd: root,
      env: { ...process.env, ZEP_BASE_URL: inject("zepkitBaseUrl"), ZEP_API_KEY: inject("zepkitApiKey") },
      timeout: 60_000,
    });
    const tuesday = stdout.slice(stdout.lastIndexOf("You are a helpful running coach."));
    expect(tuesday).toContain("<ZEP_CONTEXT>");
    expect(tuesday).toContain("Porto marathon");
  });
});
