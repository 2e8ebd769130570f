import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db/client";
import { runDeletionJob } from "@/server/deletion/service";
import { createTestOrg, createTestProject, grantCollaborator } from "./test-fixtures";

const env = useTestEnvironment();

describe("POST /api/projects", () => {
  it("answers 201 with exactly the create shape and records project.created", async () => {
    const alice = await createTestUser();
    const res = await call("POST", "/api/projects", { token: alice.token, body: { name: "demo" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      "commit",
      "id",
      "name",
      "namespace",
      "path",
      "remote",
      "slug",
      "visibility",
    ]);
    expect(res.body).toMatchObject({
      name: "demo",
      namespace: alice.username,
      slug: "demo",
      path: `@${alice.username}/demo`,
      remote: `http://svc.test/@${alice.username}/demo.git`,
      visibility: "private",
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.commit).toMatch(/^[0-9a-f]{40}$/);
    const files = await call("GET", `/api/projects/@${alice.username}/demo/files`, { token: alice.token });
    expect(files.body).toMatchObject({ files: [".gitkeep"], commit: res.body.commit });
    const events = await (await db()).domainEvent.findMany({ where: { projectId: res.body.id } });
    expect(events.map((e) => [e.kind, e.actor])).toEqual([["project.created", `user:${alice.id}`]]);
  });

  it("writes a given file map, or starter files with seed, and honours visibility", async () => {
    const alice = await createTestUser();
    const withFiles = await createTestProject(alice.token, {
      name: "files",
      visibility: "public",
      files: { "src/app/main.ts": "x", "README.md": "# hi" },
    });
    expect(withFiles.visibility).toBe("public");
    const listed = await call("GET", `/api/projects/@${alice.username}/files/files`);
    expect(listed.body.files).toEqual(["README.md", "src/app/main.ts"]);
    await createTestProject(alice.token, { name: "seeded", seed: true });
    const seeded = await call("GET", `/api/projects/@${alice.username}/seeded/files`, { token: alice.token });
    expect(seeded.body.files).toContain("README.md");
    expect(seeded.body.files).not.toContain(".gitkeep");
  });

  it("form callers are redirected to the project page", async () => {
    const alice = await createTestUser();
    const res = await call("POST", "/api/projects", {
      token: alice.token,
      form: { name: "formed", visibility: "public", seed: "true" },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/@${alice.username}/formed`);
  });

  it("validates input: 400 for bad names, visibility, paths; 401 anonymous; 413 over the file caps", async () => {
    const alice = await createTestUser();
    for (const body of [
      {},
      { name: "" },
      { name: "has space" },
      { name: "x".repeat(65) },
      { name: "-lead" },
      { name: "ok", visibility: "secret" },
      { name: "ok", files: { "../x": "y" } },
    ]) {
      const res = await call("POST", "/api/projects", { token: alice.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe("string");
    }
    expect((await call("POST", "/api/projects", { body: { name: "anon" } })).status).toBe(401);
    const files = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`f${i}`, ""]));
    const tooMany = await call("POST", "/api/projects", { token: alice.token, body: { name: "many", files } });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("a taken name is 409, and of two racing creations exactly one wins with no leftover repository", async () => {
    const alice = await createTestUser();
    await createTestProject(alice.token, { name: "taken" });
    const again = await call("POST", "/api/projects", { token: alice.token, body: { name: "taken" } });
    expect(again.status).toBe(409);
    const reposDir = path.join(env.dataDir, "repos");
    const before = fs.readdirSync(reposDir).length;
    const racing = await Promise.all(
      [1, 2, 3].map(() => call("POST", "/api/projects", { token: alice.token, body: { name: "race" } })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(fs.readdirSync(reposDir).length).toBe(before + 1);
  });

  it("creates in an organization: 404 unknown org, 403 for members below write, 404 for non-members (the org is not found for them), 201 for writers", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const outsider = await createTestUser();
    await createTestOrg("acme", [
      { userId: owner.id, role: "write" },
      { userId: reader.id, role: "read" },
    ]);
    expect((await call("POST", "/api/projects", { token: owner.token, body: { name: "p", org: "nope" } })).status).toBe(
      404,
    );
    expect(
      (await call("POST", "/api/projects", { token: reader.token, body: { name: "p", org: "acme" } })).status,
    ).toBe(403);
    expect(
      (await call("POST", "/api/projects", { token: outsider.token, body: { name: "p", org: "acme" } })).status,
    ).toBe(404);
    const created = await createTestProject(owner.token, { name: "p", org: "acme" });
    expect(created).toMatchObject({ namespace: "acme", path: "@acme/p" });
    // org members read it; outsiders do not
    expect((await call("GET", "/api/projects/@acme/p", { token: reader.token })).status).toBe(200);
    expect((await call("GET", "/api/projects/@acme/p", { token: outsider.token })).status).toBe(404);
  });
});

describe("GET /api/projects and /api/projects/{namespace}/{slug}", () => {
  it("lists only projects the caller reaches; anonymous gets an empty list", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const mine = await createTestProject(alice.token, { name: "mine" });
    const shared = await createTestProject(bob.token, { name: "shared" });
    await createTestProject(bob.token, { name: "hidden" });
    await grantCollaborator(shared.id, alice.id, "read");
    const list = await call("GET", "/api/projects", { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body.projects.map((p: { path: string }) => p.path).sort()).toEqual([mine.path, shared.path].sort());
    expect(await call("GET", "/api/projects")).toMatchObject({ status: 200, body: { projects: [] } });
  });

  it("gets a project with its default branch and source; 404 for private projects of others", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await createTestProject(alice.token, { name: "p" });
    const res = await call("GET", `/api/projects/@${alice.username}/p`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: project.id,
      path: project.path,
      remote: project.remote,
      defaultBranch: "main",
      source: null,
      visibility: "private",
      deleting: false,
    });
    expect((await call("GET", `/api/projects/@${alice.username}/p`, { token: bob.token })).status).toBe(404);
    expect((await call("GET", `/api/projects/@${alice.username}/p`)).status).toBe(404);
    expect((await call("GET", `/api/projects/@${alice.username}/missing`, { token: alice.token })).status).toBe(404);
    await createTestProject(alice.token, { name: "open", visibility: "public" });
    expect((await call("GET", `/api/projects/%40${alice.username}/open`)).status).toBe(200);
  });
});

describe("DELETE /api/projects/{namespace}/{slug}", () => {
  it("needs the exact confirm, the owner, and answers 202 with a del_ job that a repeat returns", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await createTestProject(alice.token, { name: "doomed" });
    await grantCollaborator(project.id, bob.id, "admin");
    const url = `/api/projects/@${alice.username}/doomed`;
    expect(
      (await call("DELETE", url, { token: alice.token, body: { confirm: `@${alice.username}/Doomed` } })).status,
    ).toBe(400);
    expect((await call("DELETE", url, { token: alice.token, body: {} })).status).toBe(400);
    expect((await call("DELETE", url, { token: bob.token, body: { confirm: project.path } })).status).toBe(404);
    expect(
      (
        await call("DELETE", `/api/projects/@${alice.username}/nothing`, {
          token: alice.token,
          body: { confirm: `@${alice.username}/nothing` },
        })
      ).status,
    ).toBe(404);
    expect((await call("DELETE", url, { body: { confirm: project.path } })).status).toBe(401);
    const accepted = await call("DELETE", url, { token: alice.token, body: { confirm: project.path } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ status: "deleting", jobId: expect.stringMatching(/^del_/) });
    const repeat = await call("POST", `${url}/delete`, { token: alice.token, body: { confirm: project.path } });
    expect(repeat).toMatchObject({ status: 202, body: { jobId: accepted.body.jobId } });
    // writes racing the deletion are refused
    const branch = await call("POST", `${url}/branches`, { token: alice.token, body: { name: "late" } });
    expect(branch).toMatchObject({ status: 409, body: { code: "TARGET_DELETING" } });
    const workspace = await call("POST", `/api/workspaces/@${alice.username}/doomed/workspaces`, {
      token: alice.token,
      body: {},
    });
    expect(workspace).toMatchObject({ status: 409, body: { code: "TARGET_DELETING" } });
    // the list hides it at once; the job removes it
    const list = await call("GET", "/api/projects", { token: alice.token });
    expect(list.body.projects.map((p: { path: string }) => p.path)).not.toContain(project.path);
    expect(await runDeletionJob(accepted.body.jobId)).toBe("completed");
    expect((await call("GET", url, { token: alice.token })).status).toBe(404);
    expect(fs.existsSync(path.join(env.dataDir, "repos", project.id))).toBe(false);
  });

  it("the form alias redirects home", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "formdel" });
    const res = await call("POST", `/api/projects/@${alice.username}/formdel/delete`, {
      token: alice.token,
      form: { confirm: project.path },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    const mismatch = await call("POST", `/api/projects/@${alice.username}/formdel/delete`, {
      token: alice.token,
      form: { confirm: "nope" },
    });
    expect(mismatch.status).toBe(400);
  });
});
