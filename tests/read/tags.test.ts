import { afterEach, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { eventsOf, projectWith } from "@/server/changes/test-fixtures";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { cloneOf } from "./worktree";

useTestEnvironment();

const clones: Array<{ remove(): void }> = [];
afterEach(() => clones.splice(0).forEach((clone) => clone.remove()));

describe("tags", () => {
  it("creates lightweight and annotated tags that git sees, lists them newest first, never moves one", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const base = `/api/projects/${project.path}/tags`;
    const light = await call("POST", base, { token: alice.token, body: { name: "v1" } });
    expect(light.status, JSON.stringify(light.body)).toBe(201);
    expect(light.body).toEqual({ tag: { name: "v1", commit: project.commit, annotated: false } });
    const annotated = await call("POST", base, {
      token: alice.token,
      body: { name: "release/v2", target: project.commit, message: "Second release" },
    });
    expect(annotated.status, JSON.stringify(annotated.body)).toBe(201);
    expect(annotated.body.tag).toMatchObject({
      name: "release/v2",
      commit: project.commit,
      annotated: true,
      message: "Second release\n",
      tagger: { name: alice.username },
    });

    const clone = cloneOf(project.id);
    clones.push(clone);
    expect(clone.bare("cat-file", "-t", "release/v2").toString().trim()).toBe("tag");
    expect(clone.bare("rev-parse", "release/v2^{commit}").toString().trim()).toBe(project.commit);
    expect(clone.bare("fsck", "--no-dangling").toString()).toBe("");

    const list = await call("GET", base, { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.headers.get("x-total-count")).toBe("2");
    expect(list.body.tags.map((tag: any) => tag.name)).toEqual(["release/v2", "v1"]);
    expect(
      (await call("GET", `${base}?limit=1&offset=1`, { token: alice.token })).body.tags.map((tag: any) => tag.name),
    ).toEqual(["v1"]);

    const again = await call("POST", base, { token: alice.token, body: { name: "v1", target: project.commit } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("TAG_EXISTS");
    const branchName = await call("POST", base, { token: alice.token, body: { name: "main" } });
    expect(branchName.status).toBe(409);
    expect(branchName.body.code).toBe("AMBIGUOUS_REF");
    for (const name of ["a..b", "-x", "bad name", "x.lock", "a/", "@"]) {
      const res = await call("POST", base, { token: alice.token, body: { name } });
      expect(res.status, name).toBe(400);
    }
    expect((await call("POST", base, { token: alice.token, body: { name: "v3", target: "nope" } })).status).toBe(400);

    const created = await eventsOf(project.id, "tag.created");
    expect(created.map((event) => event.data)).toEqual([
      { tag: "v1", commit: project.commit, annotated: false },
      { tag: "release/v2", commit: project.commit, annotated: true },
    ]);
  });

  it("lets writers create (others 404), admins delete (writers 403), and records tag.deleted", async () => {
    const alice = await createTestUser();
    const writer = await createTestUser();
    const reader = await createTestUser();
    const stranger = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" }, "public");
    await grantCollaborator(project.id, writer.id, "write");
    await grantCollaborator(project.id, reader.id, "read");
    const base = `/api/projects/${project.path}/tags`;
    expect((await call("POST", base, { token: reader.token, body: { name: "r" } })).status).toBe(404);
    expect((await call("POST", base, { token: stranger.token, body: { name: "s" } })).status).toBe(404);
    expect((await call("POST", base, { body: { name: "anon" } })).status).toBe(401);
    expect((await call("POST", base, { token: writer.token, body: { name: "w/1" } })).status).toBe(201);
    expect((await call("GET", base)).body.tags).toMatchObject([{ name: "w/1" }]);

    expect((await call("DELETE", `${base}/w/1`, { token: writer.token })).status).toBe(403);
    expect((await call("DELETE", `${base}/w/1`, { token: reader.token })).status).toBe(403);
    const deleted = await call("DELETE", `${base}/w/1`, { token: alice.token });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toEqual({ deleted: true, name: "w/1" });
    expect((await call("GET", base)).body.tags).toEqual([]);
    expect((await call("DELETE", `${base}/w%2F1`, { token: alice.token })).status).toBe(404);
    expect((await eventsOf(project.id, "tag.deleted")).map((event) => event.data)).toMatchObject([{ tag: "w/1" }]);
  });

  it("webhooks can subscribe to tag.created and tag.deleted by name", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const res = await call("POST", `/api/projects/${project.path}/webhooks`, {
      token: alice.token,
      body: { url: "http://93.184.216.34/hook", events: "tag.created,tag.deleted" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.webhook.events).toBe("tag.created,tag.deleted");
  });
});
