import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/ts/**/*.test.ts"],
    globalSetup: ["tests/ts/global-setup.ts"],
    setupFiles: ["tests/ts/offline.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
