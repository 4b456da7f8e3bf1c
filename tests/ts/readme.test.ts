/**
 * The TypeScript shown in the READMEs compiles against the packages as built: every `ts` block of
 * the root README's TypeScript section and of each package's README, type-checked with the
 * repository's strict settings. The blocks cannot run here (they name real model providers), so
 * the names they leave to the reader (`messages`, `yourModel`, `userId`, `threadId`, the `openai`
 * provider) are declared with the types the AI SDK expects.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/** Set by the nox session: the oldest supported framework releases are installed. */
const OLDEST = process.env["ZEPKIT_TS_FRAMEWORKS"] === "oldest";

const READMES = ["README.md", "adapters/vercel-ai/README.md", "adapters/mastra/README.md", "adapters/ts-core/README.md"];

const PLACEHOLDERS = `
declare global {
  const messages: import("ai").ModelMessage[];
  const yourModel: import("@ai-sdk/provider").LanguageModelV4;
  const userId: string;
  const threadId: string;
}
export {};
`;

// a script, not a module, so that it declares the module rather than augmenting one
const PROVIDER = `
declare module "@ai-sdk/openai" {
  export function openai(modelId: string): import("@ai-sdk/provider").LanguageModelV4;
}
`;

/** The `ts` blocks of a README; of the root one, only its TypeScript section's. */
function blocksOf(name: string, text: string): string[] {
  let scope = text;
  if (name === "README.md") {
    const start = text.indexOf("\n## TypeScript\n");
    scope = text.slice(start, text.indexOf("\n## ", start + 1));
  }
  return [...scope.matchAll(/^```ts\n([\s\S]*?)^```$/gmu)].map((found) => found[1] ?? "");
}

describe("README TypeScript", () => {
  it("every block type-checks against the built packages", async () => {
    // under the repository's node_modules, so the blocks resolve the workspace's packages
    const folder = join(root, "node_modules", ".zepkit-readme-blocks");
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
    const files = ["placeholders.d.mts", "provider.d.ts"];
    await writeFile(join(folder, "placeholders.d.mts"), PLACEHOLDERS);
    await writeFile(join(folder, "provider.d.ts"), PROVIDER);
    for (const name of READMES) {
      const blocks = blocksOf(name, await readFile(join(root, name), "utf8"));
      for (const [index, block] of blocks.entries()) {
        const file = `${name.replaceAll("/", "_")}-${index}.mts`;
        // a block that imports nothing is still a module of its own
        await writeFile(join(folder, file), `${block}\nexport {};\n`);
        files.push(file);
      }
    }
    expect(files.length).toBeGreaterThanOrEqual(7);
    const config = {
      extends: join(root, "tsconfig.base.json"),
      // Mastra 1.0.4's own `Tool` (its optional `inputSchema`) does not fit its agent's `tools`
      // under exactOptionalPropertyTypes, whatever the tool; later releases fit
      compilerOptions: { noEmit: true, exactOptionalPropertyTypes: !OLDEST },
      files,
    };
    await writeFile(join(folder, "tsconfig.json"), JSON.stringify(config));
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const checked = await run(process.execPath, [tsc, "-p", join(folder, "tsconfig.json")], { cwd: root }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(checked).toBe("");
    await rm(folder, { recursive: true, force: true });
  });
});
