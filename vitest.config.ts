import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
export default defineConfig({
  resolve: {
    tsconfigPaths: true,
  },
  test: {
    environment: "node",
    // next-auth imports "next/server" without an extension, which Node's ESM resolver refuses.
    server: { deps: { inline: ["next-auth"] } },
    include: ["server/**/*.test.ts", "inngest/**/*.test.ts", "tests/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/restore-env.ts"],
    pool: "forks",
    // Test files are independent (each has its own database, DATA_DIR and ports), and much of a
    // file's time is spent waiting on git, PostgreSQL or a child server: two at least, even on 2 cores
    // (Vitest's default, one less than the cores, would be one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Vite puts its own BASE_URL ("/") into process.env; ours must be an absolute URL. Rate limits
    // count over a day, not a minute: a test's N requests must not straddle a window boundary
    // (the sliding window then forgets some of them), however slow the runner.
    env: { BASE_URL: "http://svc.test", RATE_LIMIT_WINDOW_MS: String(24 * 60 * 60 * 1000) },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
