import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInvalidationListener } from "@/server/db";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";
import { useGitServer } from "@/tests/git/support";
import { runFleet } from "@/examples/fleet-orchestrator";

/**
 * The agents' side of the API over real HTTP (a server on 127.0.0.1 in front of the route
 * handlers): `svc-forge change watch` as a child process, and examples/fleet-orchestrator.ts.
 */
const env = useTestEnvironment();
const http = useGitServer();

function watch(changeId: string, token: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve("client/cli/bin.mjs"), "change", "watch", changeId], {
      env: { ...process.env, SVC_URL: http.server.baseUrl, SVC_TOKEN: token, SVC_CONFIG: "/nonexistent/cli.json" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("svc-forge change watch", { timeout: 180_000 }, () => {
  it("exits 0 when the change is merged, after printing each transition", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    // Connected before or after the merge, the watcher sees it: the stream opens with the current state.
    const watching = watch(change.id, owner.token);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await merge(owner.token, change.id)).status).toBe(200);
    const result = await watching;
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).change.status).toBe("merged");
    expect(result.stderr).toMatch(/change\.(state|merged) merged/);
  });

  it("exits 1 when the change is rejected, and at once on needs_changes", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    expect((await call("POST", `/api/changes/${change.id}/reject`, { token: owner.token })).status).toBe(200);
    const rejected = await watch(change.id, owner.token);
    expect(rejected.status).toBe(1);
    expect(rejected.stderr).toContain("change rejected");

    const secret = await changeWith(owner.token, project, { "leak.txt": "AKIAIOSFODNN7EXAMPLE\n" });
    expect(secret.change.status).toBe("needs_changes");
    const needsChanges = await watch(secret.change.id, owner.token);
    expect(needsChanges.status).toBe(1);
    expect(needsChanges.stderr).toContain("change needs_changes");
  });
});

describe("examples/fleet-orchestrator.ts", { timeout: 180_000 }, () => {
  // The queue lands changes in the background, outside any request: on PostgreSQL their transitions
  // reach the open streams through the database's channel, which the server's start-up listens on.
  let listener: Awaited<ReturnType<typeof startInvalidationListener>>;
  beforeAll(async () => {
    listener = await startInvalidationListener(env.databaseUrl);
  });
  afterAll(async () => {
    await listener?.stop();
  });

  it("every worker's change lands through its own key, and every key ends revoked by its merge", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const results = await runFleet({ baseUrl: http.server.baseUrl, token: owner.token, project: project.path, workers: 3 });
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result.outcome).toBe("merged");
      expect(result.events[0]).toBe("change.state");
      expect(result.events).toContain("change.queued");
      expect(result.events.at(-1)).toBe("change.merged");
      expect(result.keyRevokedReason).toBe("merged");
    }
    const files = await call("GET", `/api/projects/${project.path}/files`, { token: owner.token });
    expect(JSON.stringify(files.body)).toContain("workers/2.txt");
    const audit = await call("GET", "/api/admin/audit?action=workspace_key.revoked", { headers: { "x-admin-api-key": "test-admin-key" } });
    expect(audit.status).toBe(200);
  });
});
