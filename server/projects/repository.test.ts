import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db/client";
import { openProjectRepo, runGit } from "@/server/git";
import { commitUnhooked } from "@/server/git/commit";
import { updateRef } from "@/server/git/refs";
import { CONTENT_VIEW_BYTES_MAX } from "@/server/limits";
import { createTestProject, grantCollaborator } from "./test-fixtures";

useTestEnvironment();

const author = { name: "t", email: "t@example.test" };

async function setup(
  visibility: "private" | "public" = "private",
  files: Record<string, string> = { "README.md": "hello\n", "src/a.ts": "a" },
) {
  const owner = await createTestUser();
  const project = await createTestProject(owner.token, { name: "repo", visibility, files });
  const base = `/api/projects/@${owner.username}/repo`;
  return { owner, project, base, repo: openProjectRepo(project.id) };
}

describe("files, content, log with the ref rules", () => {
  it("reads at the default branch or a named branch and echoes the ref", async () => {
    const { owner, project, base, repo } = await setup();
    await updateRef(repo, "refs/heads/feature/one", project.commit, null);
    const { oid } = await commitUnhooked(repo, "feature/one", { files: { "src/b.ts": "b" }, message: "b", author });
    const main = await call("GET", `${base}/files`, { token: owner.token });
    expect(main.body).toEqual({
      namespace: owner.username,
      slug: "repo",
      path: project.path,
      ref: "main",
      commit: project.commit,
      files: ["README.md", "src/a.ts"],
    });
    const feature = await call("GET", `${base}/files?ref=feature%2Fone`, { token: owner.token });
    expect(feature.body).toMatchObject({
      ref: "feature/one",
      commit: oid,
      files: ["README.md", "src/a.ts", "src/b.ts"],
    });
  });

  it("unknown refs, tags and short shas are 404; a branch that is also a tag is 409 AMBIGUOUS_REF", async () => {
    const { owner, project, base, repo } = await setup();
    await runGit(["tag", "v1", project.commit], { gitdir: repo.gitdir });
    for (const ref of ["nope", "v1", project.commit.slice(0, 7), project.commit]) {
      expect((await call("GET", `${base}/files?ref=${ref}`, { token: owner.token })).status, ref).toBe(404);
    }
    await runGit(["tag", "main", project.commit], { gitdir: repo.gitdir });
    for (const route of ["files", "log", "content?path=README.md&"]) {
      const sep = route.includes("?") ? "" : "?";
      const res = await call("GET", `${base}/${route}${sep}ref=main`, { token: owner.token });
      expect(res.status, route).toBe(409);
      expect(res.body.code).toBe("AMBIGUOUS_REF");
    }
  });

  it("content: text with value; binary and too_large without value; 400 without path; 404 for a missing file", async () => {
    const { owner, base, repo } = await setup();
    await commitUnhooked(repo, "main", {
      files: {
        "bin/logo.png": Uint8Array.from([0x89, 0x50, 0x00, 0x47]),
        "big.txt": "y".repeat(CONTENT_VIEW_BYTES_MAX + 1),
      },
      message: "assets",
      author,
    });
    const text = await call("GET", `${base}/content?path=src%2Fa.ts`, { token: owner.token });
    expect(text.status).toBe(200);
    expect(text.body).toMatchObject({
      namespace: owner.username,
      slug: "repo",
      path: "src/a.ts",
      kind: "content",
      value: "a",
      ref: "main",
    });
    const binary = await call("GET", `${base}/content?path=bin/logo.png`, { token: owner.token });
    expect(binary.body.kind).toBe("binary");
    expect("value" in binary.body).toBe(false);
    const big = await call("GET", `${base}/content?path=big.txt`, { token: owner.token });
    expect(big.body.kind).toBe("too_large");
    expect("value" in big.body).toBe(false);
    expect((await call("GET", `${base}/content`, { token: owner.token })).status).toBe(400);
    expect((await call("GET", `${base}/content?path=missing.txt`, { token: owner.token })).status).toBe(404);
    expect((await call("GET", `${base}/content?path=src`, { token: owner.token })).status).toBe(404);
  });

  it("log: newest first, depth default 20, depth bounds", async () => {
    const { owner, project, base, repo } = await setup();
    for (let i = 0; i < 22; i++)
      await commitUnhooked(repo, "main", { files: { "n.txt": `${i}` }, message: `commit ${i}`, author });
    const res = await call("GET", `${base}/log`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.log).toHaveLength(20);
    expect(res.body.log[0]).toMatchObject({ message: "commit 21\n", author: { name: "t", email: "t@example.test" } });
    expect(res.body.log[0].sha).toMatch(/^[0-9a-f]{40}$/);
    const all = await call("GET", `${base}/log?depth=100`, { token: owner.token });
    expect(all.body.log).toHaveLength(23);
    expect(all.body.log[22].sha).toBe(project.commit);
    expect((await call("GET", `${base}/log?depth=2`, { token: owner.token })).body.log).toHaveLength(2);
    expect((await call("GET", `${base}/log?depth=0`, { token: owner.token })).status).toBe(400);
    expect((await call("GET", `${base}/log?depth=abc`, { token: owner.token })).status).toBe(400);
  });

  it("anonymous callers read public projects and get 404 on private ones", async () => {
    const open = await setup("public");
    for (const route of ["files", "content?path=README.md", "log", "branches", "provenance"]) {
      expect((await call("GET", `${open.base}/${route}`)).status, route).toBe(200);
    }
    const closed = await setup("private");
    const stranger = await createTestUser();
    for (const route of ["files", "content?path=README.md", "log", "branches", "provenance"]) {
      expect((await call("GET", `${closed.base}/${route}`)).status, route).toBe(404);
      expect((await call("GET", `${closed.base}/${route}`, { token: stranger.token })).status, route).toBe(404);
    }
  });
});

describe("branches", () => {
  it("lists the envelope; past the cap the default branch is kept and truncated is set", async () => {
    const { owner, project, base, repo } = await setup();
    const small = await call("GET", `${base}/branches`, { token: owner.token });
    expect(small.body).toEqual({
      defaultBranch: "main",
      branches: [{ name: "main", oid: expect.any(String) }],
      truncated: false,
      totalBranchCount: 1,
    });
    for (let i = 0; i < 205; i++)
      await updateRef(repo, `refs/heads/a${String(i).padStart(3, "0")}`, project.commit, null);
    const res = await call("GET", `${base}/branches`, { token: owner.token });
    expect(res.body.branches).toHaveLength(200);
    expect(res.body.truncated).toBe(true);
    expect(res.body.totalBranchCount).toBe(206);
    expect(res.body.branches.map((b: { name: string }) => b.name)).toContain("main");
  });

  it("creates branches from the default tip, a branch or a full sha, with the spec's refusals", async () => {
    const { owner, project, base, repo } = await setup();
    const { oid: second } = await commitUnhooked(repo, "main", { files: { "x.txt": "x" }, message: "x", author });
    const created = await call("POST", `${base}/branches`, { token: owner.token, body: { name: "feature/a" } });
    expect(created).toMatchObject({ status: 201, body: { name: "feature/a", oid: second } });
    expect(
      (
        await call("POST", `${base}/branches`, {
          token: owner.token,
          body: { name: "old", startPoint: project.commit },
        })
      ).body.oid,
    ).toBe(project.commit);
    expect(
      (await call("POST", `${base}/branches`, { token: owner.token, body: { name: "copy", startPoint: "old" } })).body
        .oid,
    ).toBe(project.commit);
    const cases: Array<[Record<string, unknown>, number, string?]> = [
      [{ name: "feature/a" }, 409, "BRANCH_EXISTS"],
      [{ name: "feature" }, 409, "BRANCH_NAME_CONFLICT"],
      [{ name: "feature/a/b" }, 409, "BRANCH_NAME_CONFLICT"],
      [{ name: "bad name" }, 400],
      [{ name: "x..y" }, 400],
      [{}, 400],
      [{ name: "s", startPoint: project.commit.slice(0, 7) }, 400],
      [{ name: "s", startPoint: "0".repeat(40) }, 400],
      [{ name: "s", startPoint: "missing-branch" }, 400],
    ];
    await runGit(["tag", "v1", project.commit], { gitdir: repo.gitdir });
    cases.push([{ name: "s", startPoint: "v1" }, 400]);
    // a tree id is an object the repository holds, but not a commit
    const tree = (await runGit(["rev-parse", `${project.commit}^{tree}`], { gitdir: repo.gitdir })).stdout.trim();
    cases.push([{ name: "s", startPoint: tree }, 400]);
    for (const [body, status, code] of cases) {
      const res = await call("POST", `${base}/branches`, { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      if (code) expect(res.body.code).toBe(code);
    }
    await (await db()).project.update({ where: { id: project.id }, data: { defaultBranch: "trunk" } });
    const noDefault = await call("POST", `${base}/branches`, { token: owner.token, body: { name: "orphan" } });
    expect(noDefault).toMatchObject({ status: 409, body: { code: "NO_DEFAULT_BRANCH" } });
  });

  it("non-writers get 404 on create and delete; anonymous callers 401", async () => {
    const { owner, project, base } = await setup("public");
    const reader = await createTestUser();
    await grantCollaborator(project.id, reader.id, "read");
    await call("POST", `${base}/branches`, { token: owner.token, body: { name: "keep" } });
    expect((await call("POST", `${base}/branches`, { token: reader.token, body: { name: "r" } })).status).toBe(404);
    expect((await call("DELETE", `${base}/branches/keep`, { token: reader.token })).status).toBe(404);
    expect((await call("POST", `${base}/branches`, { body: { name: "r" } })).status).toBe(401);
    const writer = await createTestUser();
    await grantCollaborator(project.id, writer.id, "write");
    expect((await call("POST", `${base}/branches`, { token: writer.token, body: { name: "w" } })).status).toBe(201);
  });

  it("deletes hierarchical names by real segments or %2F; the default branch is protected", async () => {
    const { owner, base } = await setup();
    for (const name of ["team/x/y", "team/z", "plain"])
      await call("POST", `${base}/branches`, { token: owner.token, body: { name } });
    expect(await call("DELETE", `${base}/branches/team/x/y`, { token: owner.token })).toMatchObject({
      status: 200,
      body: { deleted: true, name: "team/x/y" },
    });
    expect((await call("DELETE", `${base}/branches/team%2Fz`, { token: owner.token })).status).toBe(200);
    expect((await call("DELETE", `${base}/branches/plain`, { token: owner.token })).status).toBe(200);
    expect((await call("DELETE", `${base}/branches/plain`, { token: owner.token })).status).toBe(404);
    const names = (await call("GET", `${base}/branches`, { token: owner.token })).body.branches.map(
      (b: { name: string }) => b.name,
    );
    expect(names).toEqual(["main"]);
    expect(await call("DELETE", `${base}/branches/main`, { token: owner.token })).toMatchObject({
      status: 409,
      body: { code: "DEFAULT_BRANCH_PROTECTED" },
    });
  });
});

describe("provenance", () => {
  it("lists the project's records newest first, bounded by limit", async () => {
    const { owner, project, base } = await setup();
    const prisma = await db();
    for (let i = 0; i < 3; i++) {
      await prisma.provenance.create({
        data: {
          projectId: project.id,
          commitSha: `${i}`.repeat(40),
          authorId: owner.id,
          model: `m${i}`,
          createdAt: new Date(Date.now() + i * 1000),
        },
      });
    }
    const res = await call("GET", `${base}/provenance`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ namespace: owner.username, slug: "repo", path: project.path });
    expect(res.body.records.map((r: { model: string }) => r.model)).toEqual(["m2", "m1", "m0"]);
    expect((await call("GET", `${base}/provenance?limit=1`, { token: owner.token })).body.records).toHaveLength(1);
    expect((await call("GET", `${base}/provenance?limit=0`, { token: owner.token })).status).toBe(400);
  });
});
