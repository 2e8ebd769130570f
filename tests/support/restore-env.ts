import { afterEach, beforeEach } from "vitest";

// Whatever a test does to process.env is undone after it, so no test depends on another's
// environment (set-up in beforeAll, e.g. useTestEnvironment's DATA_DIR, is kept).
let snapshot: Record<string, string | undefined> = {};

beforeEach(() => {
  snapshot = { ...process.env };
});

afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in snapshot)) delete process.env[name];
  Object.assign(process.env, snapshot);
});
