import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, projectWith } from "../test-fixtures";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { db } from "@/server/db";

useTestEnvironment();

// No REST routes: the change page calls these in-process; typed callers use /api/trpc.
const viewedFiles = (token: string | undefined, id: string) =>
  call("GET", `/api/trpc/changes.viewedFiles?input=${encodeURIComponent(JSON.stringify({ id }))}`, { token });
const setViewed = (token: string, id: string, path: string, viewed: boolean) =>
  call("POST", "/api/trpc/changes.setViewed", { token, body: { id, path, viewed } });

describe("viewed files of a change", () => {
  it("remembers each reader's marks apart, clears one, and forgets them all when the tip moves", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, bob.id, "read");
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n", "b.txt": "b\n" });

    expect((await setViewed(alice.token, change.id, "a.txt", true)).status).toBe(200);
    expect((await setViewed(alice.token, change.id, "b.txt", true)).status).toBe(200);
    expect((await setViewed(bob.token, change.id, "b.txt", true)).status).toBe(200);
    expect((await setViewed(alice.token, change.id, "b.txt", false)).status).toBe(200);
    expect((await viewedFiles(alice.token, change.id)).body.result.data.paths).toEqual(["a.txt"]);
    expect((await viewedFiles(bob.token, change.id)).body.result.data.paths).toEqual(["b.txt"]);

    await (await db()).change.update({ where: { id: change.id }, data: { tipSha: "f".repeat(40) } });
    expect((await viewedFiles(alice.token, change.id)).body.result.data.paths).toEqual([]);
  });

  it("needs read access to the change (404 otherwise) and a user to mark (401 anonymous)", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect((await setViewed(mallory.token, change.id, "a.txt", true)).status).toBe(404);
    expect((await viewedFiles(mallory.token, change.id)).status).toBe(404);
    expect(
      (await call("POST", "/api/trpc/changes.setViewed", { body: { id: change.id, path: "a.txt", viewed: true } }))
        .status,
    ).toBe(401);
  });
});
