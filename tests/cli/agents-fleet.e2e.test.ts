import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: the benchmark support module is plain JavaScript without types.
import { request, root, sharedAppBuild, startNext, stopProcess } from "@/bench/support/next-app.mjs";
import { freePort } from "@/tests/support/ports";
import { runFleet } from "@/examples/fleet-orchestrator";

/**
 * examples/fleet-orchestrator.ts against the production server (`node server.mjs` of a build of
 * HEAD; SVC_E2E_APP reuses one): the queue lands every worker's change in the background, the
 * workers hear it on their streams, and every key ends revoked by its merge.
 */
const ADMIN_KEY = "fleet-admin-key";
const work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-fleet-"));
let base: string;
let server: ChildProcess;

async function json(method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  const app = sharedAppBuild(path.join(root, "bench/.work/agents-fleet"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = startNext(app, port, {
    BASE_URL: base,
    DATA_DIR: path.join(work, "data"),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: "warn",
  });
  // Start-up on a busy shared machine can take minutes (migrations, Next.js warming up).
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error("server exited during start-up");
    const up = await request(port, "/health").then(
      (res: { status: number }) => res.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error("server did not start");
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}, 1_200_000);

afterAll(async () => {
  if (server) await stopProcess(server);
  fs.rmSync(work, { recursive: true, force: true });
});

describe("examples/fleet-orchestrator.ts against the production server", { timeout: 300_000 }, () => {
  it("every worker's change lands through the queue with its own key, and every key ends revoked by its merge", async () => {
    const owner = await json(
      "POST",
      "/api/admin/users",
      { "x-admin-api-key": ADMIN_KEY },
      { username: "orchestrator" },
    );
    expect(owner.status).toBe(201);
    const auth = { authorization: `Bearer ${owner.body.token}` };
    const project = await json("POST", "/api/projects", auth, { name: "fleet", files: { "README.md": "hi\n" } });
    expect(project.status).toBe(201);

    const results = await runFleet({ baseUrl: base, token: owner.body.token, project: project.body.path, workers: 3 });
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result.outcome).toBe("merged");
      expect(result.events[0]).toBe("change.state");
      expect(result.events).toContain("change.queued");
      expect(result.events.at(-1)).toBe("change.merged");
      expect(result.keyRevokedReason).toBe("merged");
    }
    const files = await json("GET", `/api/projects/${project.body.path}/files`, auth);
    expect(JSON.stringify(files.body)).toContain("workers/2.txt");
    const audit = await json("GET", "/api/admin/audit?action=workspace_key.revoked", { "x-admin-api-key": ADMIN_KEY });
    expect(
      audit.body.entries.filter((entry: { data: { reason?: string } }) => entry.data.reason === "merged").length,
    ).toBeGreaterThanOrEqual(3);
  });
});
