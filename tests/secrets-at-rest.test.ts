import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { closeDatabase, openDatabase, useDatabase } from "@/server/db/client";
import { TEST_ADMIN_KEY } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestSession, createTestToken } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";
import { startReceiver } from "@/server/webhooks/test-receiver";

// A database on disk (not the harness's in-memory copy), so its files can be searched afterwards.
let dataDir: string;
const previousEnv = { DATA_DIR: process.env.DATA_DIR, ADMIN_API_KEY: process.env.ADMIN_API_KEY, BASE_URL: process.env.BASE_URL, ALLOW_PRIVATE_TARGETS: process.env.ALLOW_PRIVATE_TARGETS };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-at-rest-"));
  Object.assign(process.env, { DATA_DIR: dataDir, ADMIN_API_KEY: TEST_ADMIN_KEY, BASE_URL: "http://svc.test", ALLOW_PRIVATE_TARGETS: "1" });
  useDatabase(await openDatabase({ dataDir: path.join(dataDir, "db") }));
});

afterAll(async () => {
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const [name, value] of Object.entries(previousEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

it("the database files hold no token, session or webhook secret in clear", async () => {
  const legacy = await createTestUser();
  const { cookie } = await createTestSession("rester");
  const sessionToken = decodeURIComponent(cookie.split("=")[1]);
  const apiToken = await createTestToken(cookie, { name: "ci" });
  const agent = await call("POST", "/api/agents", { token: legacy.token, body: { name: "bot" } });
  const project = await createTestProject(legacy.token, { name: "hooks" });
  const receiver = await startReceiver();
  const hook = await call("POST", `/api/projects/${project.path}/webhooks`, { token: legacy.token, body: { url: receiver.url } }).finally(() => receiver.close());
  expect([agent.status, hook.status], hook.text).toEqual([201, 201]);
  const secrets = { legacy: legacy.token, session: sessionToken, apiToken, agent: agent.body.token, webhook: hook.body.webhook.secret };
  for (const value of Object.values(secrets)) expect(value.length).toBeGreaterThan(20);
  // Still usable: the stored forms are hashes and sealed values, not garbage.
  expect((await call("GET", "/api/users/me", { cookie })).status).toBe(200);

  await closeDatabase();
  const files = filesUnder(path.join(dataDir, "db"));
  expect(files.length).toBeGreaterThan(10);
  const found: string[] = [];
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    for (const [name, value] of Object.entries(secrets)) if (bytes.includes(value)) found.push(`${name} in ${path.relative(dataDir, file)}`);
  }
  expect(found).toEqual([]);
  useDatabase(await openDatabase({ dataDir: path.join(dataDir, "db") }));
});
