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
import { changeWith, merge } from "@/server/changes/test-fixtures";
import { drainJobs, stopTestExecutor } from "@/tests/support/jobs";
import { registerSubscribers } from "@/server/runtime/subscribers";

// A database on disk (not the harness's in-memory copy), so its files can be searched afterwards.
let dataDir: string;
const previousEnv = {
  DATA_DIR: process.env.DATA_DIR,
  ADMIN_API_KEY: process.env.ADMIN_API_KEY,
  BASE_URL: process.env.BASE_URL,
  ALLOW_PRIVATE_TARGETS: process.env.ALLOW_PRIVATE_TARGETS,
  DEPLOY_SECRET_KEY: process.env.DEPLOY_SECRET_KEY,
};

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-at-rest-"));
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    BASE_URL: "http://svc.test",
    ALLOW_PRIVATE_TARGETS: "1",
    DEPLOY_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
  });
  useDatabase(await openDatabase({ dataDir: path.join(dataDir, "db") }));
  // This file opens its own on-disk database instead of useTestEnvironment, so it subscribes the
  // areas that act on a branch move (deployments) itself, as the server's start-up does.
  registerSubscribers();
});

afterAll(async () => {
  await stopTestExecutor();
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
  const hook = await call("POST", `/api/projects/${project.path}/webhooks`, {
    token: legacy.token,
    body: { url: receiver.url },
  }).finally(() => receiver.close());
  expect([agent.status, hook.status], hook.text).toEqual([201, 201]);
  const secrets = {
    legacy: legacy.token,
    session: sessionToken,
    apiToken,
    agent: agent.body.token,
    webhook: hook.body.webhook.secret,
  };
  for (const value of Object.values(secrets)) expect(value.length).toBeGreaterThan(20);
  // Still usable: the stored forms are hashes and sealed values, not garbage.
  expect((await call("GET", "/api/users/me", { cookie })).status).toBe(200);

  await closeDatabase();
  const files = filesUnder(path.join(dataDir, "db"));
  expect(files.length).toBeGreaterThan(10);
  const found: string[] = [];
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    for (const [name, value] of Object.entries(secrets))
      if (bytes.includes(value)) found.push(`${name} in ${path.relative(dataDir, file)}`);
  }
  expect(found).toEqual([]);
  useDatabase(await openDatabase({ dataDir: path.join(dataDir, "db") }));
});

it("deploy secrets are neither in the database files nor in the logs, in clear or in base64", async () => {
  const owner = await createTestUser();
  const values = { token: "dpl-tok-5e1c7a9b3d2f4e6a", signing: "dpl-sign-8c4b2a1f9e7d6c5b" };
  // The receiver echoes what it got, so the log the service keeps has the values to redact.
  const receiver = await startReceiver((request) => {
    const token = String(JSON.parse(request.body).secrets.DEPLOY_TOKEN);
    return { status: 200, body: `${request.body} ${Buffer.from(token).toString("base64")}` };
  });
  const logged: string[] = [];
  const original = { log: console.log, error: console.error, warn: console.warn, info: console.info };
  for (const level of ["log", "error", "warn", "info"] as const) {
    console[level] = (...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
      original[level](...args);
    };
  }
  try {
    const policy = `deploys:\n  - { name: production, provider: webhook, url: "${receiver.url}", secrets: [DEPLOY_TOKEN], signWith: HOOK_KEY }\n`;
    const project = await createTestProject(owner.token, { name: "deploys", files: { ".svc/policy.yml": policy } });
    for (const [name, value] of [
      ["DEPLOY_TOKEN", values.token],
      ["HOOK_KEY", values.signing],
    ]) {
      expect(
        (await call("PUT", `/api/projects/${project.path}/secrets/${name}`, { token: owner.token, body: { value } }))
          .status,
      ).toBe(201);
    }
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    expect((await merge(owner.token, change.id)).status).toBe(200);
    await drainJobs();
    const listed = await call("GET", `/api/projects/${project.path}/deployments`, { token: owner.token });
    expect(listed.body.deployments[0]).toMatchObject({ status: "succeeded" });
    expect(listed.body.deployments[0].logTail).toContain("***");
    expect(receiver.received.some((request) => request.body.includes(values.token))).toBe(true);
  } finally {
    Object.assign(console, original);
    await stopTestExecutor();
    await receiver.close();
  }
  await closeDatabase();
  const forms = Object.values(values).flatMap((value) => [
    value,
    Buffer.from(value).toString("base64").replace(/=+$/, ""),
  ]);
  const found: string[] = [];
  for (const file of filesUnder(path.join(dataDir, "db"))) {
    const bytes = fs.readFileSync(file);
    for (const form of forms) if (bytes.includes(form)) found.push(`${form} in ${path.relative(dataDir, file)}`);
  }
  for (const line of logged) for (const form of forms) if (line.includes(form)) found.push(`${form} in the log`);
  expect(found).toEqual([]);
  useDatabase(await openDatabase({ dataDir: path.join(dataDir, "db") }));
});
