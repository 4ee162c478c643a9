import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["tiller-source"] },
  ssr: { resolve: { conditions: ["tiller-source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
