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
    // Vite puts its own BASE_URL ("/") into process.env; ours must be an absolute URL.
    env: { BASE_URL: "http://svc.test" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
