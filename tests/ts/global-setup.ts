/**
 * Starts one real `zepkit serve` for the whole run: on 127.0.0.1, a port the system picks, a
 * fresh data folder and a test key; stops it (SIGTERM, then its exit awaited) at the end. The
 * command is `$ZEPKIT_BIN`, else `zepkit` on PATH (the nox session installs it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { TestProject } from "vitest/node";

export const TEST_KEY = "ts-adapters-test-key";

declare module "vitest" {
  export interface ProvidedContext {
    /** The server's v3 API root, e.g. http://127.0.0.1:PORT/api/v2. */
    zepkitBaseUrl: string;
    zepkitApiKey: string;
  }
}

let server: ChildProcess | undefined;
let data: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  data = await mkdtemp(join(tmpdir(), "zepkit-ts-"));
  const command = process.env["ZEPKIT_BIN"] ?? "zepkit";
  const child = spawn(command, ["serve", "--db", join(data, "db"), "--host", "127.0.0.1", "--port", "0"], {
    env: { ...process.env, ZEPKIT_API_KEYS: `${TEST_KEY}=default` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  const root = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`zepkit serve did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/u.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`zepkit serve exited with ${String(code)}:\n${output}`));
    });
  });
  project.provide("zepkitBaseUrl", `${root}/api/v2`);
  project.provide("zepkitApiKey", TEST_KEY);
}

export async function teardown(): Promise<void> {
  const child = server;
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  if (data !== undefined) await rm(data, { recursive: true, force: true });
}
