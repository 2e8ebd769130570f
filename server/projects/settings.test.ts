import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db/client";
import { openProjectRepo } from "@/server/git";
import { createTestProject, grantCollaborator } from "./test-fixtures";

useTestEnvironment();

async function ownedProject(files: Record<string, string> = { "README.md": "hi\n" }) {
  const alice = await createTestUser();
  const project = await createTestProject(alice.token, { name: "demo", files });
  return { alice, project, url: `/api/projects/${project.path}` };
}

describe("PATCH /api/projects/{namespace}/{slug}", () => {
  it("sets the description and visibility, shows them on GET and audits what changed", async () => {
    const { alice, project, url } = await ownedProject();
    expect((await call("GET", url)).status).toBe(404);
    const res = await call("PATCH", url, {
      token: alice.token,
      body: { description: "A small demo", visibility: "public" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ description: "A small demo", visibility: "public", path: project.path });
    // Public now: an anonymous caller reads it (the cached grants were dropped).
    expect((await call("GET", url)).body.description).toBe("A small demo");
    const audit = await (await db()).auditLog.findMany({ where: { action: "project.updated", projectId: project.id } });
    expect(audit.map((row) => row.data)).toEqual([
      expect.objectContaining({
        before: { description: "", visibility: "private" },
        after: { description: "A small demo", visibility: "public" },
      }),
    ]);
  });

  it("renames: the old path is gone, the new one serves the same repository and clone URL", async () => {
    const { alice, project, url } = await ownedProject();
    const res = await call("PATCH", url, { token: alice.token, body: { name: "renamed" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: project.id,
      slug: "renamed",
      path: `@${alice.username}/renamed`,
      remote: `http://svc.test/@${alice.username}/renamed.git`,
    });
    expect((await call("GET", url, { token: alice.token })).status).toBe(404);
    const files = await call("GET", `/api/projects/@${alice.username}/renamed/files`, { token: alice.token });
    expect(files.body.files).toEqual(["README.md"]);
  });

  it("answers 409 when the new name is taken in the namespace", async () => {
    const { alice, url } = await ownedProject();
    await createTestProject(alice.token, { name: "other" });
    const res = await call("PATCH", url, { token: alice.token, body: { name: "other" } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
  });

  it("moves the default branch (and HEAD) to an existing branch only", async () => {
    const { alice, project, url } = await ownedProject();
    const missing = await call("PATCH", url, { token: alice.token, body: { defaultBranch: "nope" } });
    expect(missing.status).toBe(400);
    expect((await call("POST", `${url}/branches`, { token: alice.token, body: { name: "dev" } })).status).toBe(201);
    const res = await call("PATCH", url, { token: alice.token, body: { defaultBranch: "dev" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.defaultBranch).toBe("dev");
    const head = fs.readFileSync(path.join(openProjectRepo(project.id).gitdir, "HEAD"), "utf8");
    expect(head).toBe("ref: refs/heads/dev\n");
    // The default branch is now the protected one.
    const gone = await call("DELETE", `${url}/branches/dev`, { token: alice.token });
    expect(gone.body.code).toBe("DEFAULT_BRANCH_PROTECTED");
  });

  it("refuses writers (403), strangers (404) and bad input (400)", async () => {
    const { alice, project, url } = await ownedProject();
    const bob = await createTestUser();
    const carol = await createTestUser();
    await grantCollaborator(project.id, bob.id, "write");
    expect((await call("PATCH", url, { token: bob.token, body: { description: "x" } })).status).toBe(403);
    expect((await call("PATCH", url, { token: carol.token, body: { description: "x" } })).status).toBe(404);
    for (const body of [{ name: "bad name" }, { visibility: "internal" }, { description: "x".repeat(351) }]) {
      const res = await call("PATCH", url, { token: alice.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    // An admin collaborator may.
    await grantCollaborator(project.id, carol.id, "admin");
    expect((await call("PATCH", url, { token: carol.token, body: { description: "ok" } })).status).toBe(200);
  });
});
