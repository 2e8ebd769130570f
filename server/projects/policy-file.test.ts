import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject, grantCollaborator } from "./test-fixtures";

useTestEnvironment();

/** projects.policy and projects.writePolicy have no REST route: the policy page calls them in-process, typed callers through /api/trpc. */
const readPolicy = (token: string | undefined, path: string) => {
  const [namespace, slug] = path.split("/");
  return call("GET", `/api/trpc/projects.policy?input=${encodeURIComponent(JSON.stringify({ namespace, slug }))}`, {
    token,
  });
};
const writePolicy = (token: string, path: string, body: Record<string, unknown>) => {
  const [namespace, slug] = path.split("/");
  return call("POST", "/api/trpc/projects.writePolicy", { token, body: { namespace, slug, ...body } });
};

describe("the policy page's reads and commits", () => {
  it("reads the defaults without a file, commits a policy as its author, and reads it back", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "ruled", files: { "README.md": "hi\n" } });
    const before = (await readPolicy(alice.token, project.path)).body.result.data;
    expect(before).toMatchObject({ path: ".svc/policy.yml", branch: "main", text: null, error: null });
    expect(before.policy).toMatchObject({ requiredApprovals: 0, protection: { locked: false } });
    const text = "requiredApprovals: 2\nmerge:\n  autoQueue: true\n";
    const res = await writePolicy(alice.token, project.path, { text, expectedCommit: before.commit });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = (await readPolicy(alice.token, project.path)).body.result.data;
    expect(after).toMatchObject({ text, commit: res.body.result.data.commit, error: null });
    expect(after.policy).toMatchObject({ requiredApprovals: 2, merge: { autoQueue: true } });
    const log = await call("GET", `/api/projects/${project.path}/log?depth=1`, { token: alice.token });
    expect(log.body.log[0]).toMatchObject({ message: expect.stringContaining("Update .svc/policy.yml") });
    expect(JSON.stringify(log.body.log[0])).toContain(alice.username);
  });

  it("refuses a policy that does not parse (400), a stale commit (409), and non-admins", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await createTestProject(alice.token, { name: "guarded", files: { "README.md": "hi\n" } });
    await grantCollaborator(project.id, bob.id, "write");
    const { commit } = (await readPolicy(alice.token, project.path)).body.result.data;
    for (const text of ["requiredApprovals: [", "requiredApprovals: -1\n", "nosuchkey: 1\n"]) {
      const res = await writePolicy(alice.token, project.path, { text, expectedCommit: commit });
      expect(res.status, text).toBe(400);
    }
    const stale = await writePolicy(alice.token, project.path, {
      text: "requiredApprovals: 1\n",
      expectedCommit: "0".repeat(40),
    });
    expect(stale.status).toBe(409);
    const writer = await writePolicy(bob.token, project.path, {
      text: "requiredApprovals: 0\n",
      expectedCommit: commit,
    });
    expect(writer.status).toBe(403);
    expect((await readPolicy(bob.token, project.path)).status).toBe(200);
    expect((await readPolicy(undefined, project.path)).status).toBe(404);
  });
});
