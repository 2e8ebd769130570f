import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";
import { useGitServer } from "@/tests/git/support";

/**
 * `svc-forge change watch` as a child process over real HTTP (a server on 127.0.0.1 in front of the
 * route handlers). examples/fleet-orchestrator.ts runs against the production server in
 * agents-fleet.e2e.test.ts.
 */
useTestEnvironment();
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
