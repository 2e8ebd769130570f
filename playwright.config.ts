import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// The production server (`next build` already run by `npm run test:e2e`, or the build SVC_E2E_APP
// names: .ci/run makes one for every consumer) on a throwaway DATA_DIR with dev login. The runner evaluates this file first and its workers inherit these variables,
// so every process agrees on one port, one data directory and one administrator key.
process.env.E2E_PORT ??= String(20_000 + (process.pid % 20_000));
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "svc-e2e-"));
process.env.E2E_ADMIN_KEY ??= `e2e-admin-${process.pid}-${Date.now()}`;
process.env.E2E_DEPLOY_SECRET_KEY ??= crypto.randomBytes(32).toString("base64");
const baseURL = `http://localhost:${process.env.E2E_PORT}`;

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results",
  // A file's tests run in order in one worker; two files at a time, each with users and projects of
  // its own (the full run alone: 5.6 minutes with two workers).
  fullyParallel: false,
  workers: 2,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    browserName: "chromium",
    // Debian's chromium; nothing downloads a browser (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1).
    launchOptions: { executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox"] },
    navigationTimeout: 60_000,
  },
  webServer: {
    command: "node server.mjs",
    cwd: process.env.SVC_E2E_APP || ".",
    url: `${baseURL}/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: process.env.E2E_PORT,
      BASE_URL: baseURL,
      DATA_DIR: process.env.E2E_DATA_DIR,
      DEV_LOGIN: "1",
      // e2e/change-runs.spec.ts runs a suite; no other spec's policy names the sandbox evaluator.
      SANDBOX_ENABLED: "1",
      ADMIN_API_KEY: process.env.E2E_ADMIN_KEY,
      DEPLOY_SECRET_KEY: process.env.E2E_DEPLOY_SECRET_KEY,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
