import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { recordEvent } from "@/server/events/record";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject, type TestUser } from "@/server/issues/test-fixtures";

useTestEnvironment();

let owner: TestUser;
let stranger: TestUser;
let project: Awaited<ReturnType<typeof createTestProject>>;
let other: Awaited<ReturnType<typeof createTestProject>>;

beforeAll(async () => {
  owner = await createTestUser();
  stranger = await createTestUser();
  project = await createTestProject(owner, { visibility: "public" });
  other = await createTestProject(owner);
  const prisma = await db();
  for (let i = 0; i < 205; i++) {
    await recordEvent(prisma, { projectId: project.id, kind: "push", actor: "system", data: { i } });
  }
  await recordEvent(prisma, { projectId: other.id, kind: "push", actor: "system", data: { i: -1 } });
});

describe("GET /projects/{namespace}/{slug}/activity", () => {
  it("returns the project's events newest first, 50 by default", async () => {
    const res = await call("GET", `${project.base}/activity`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      namespace: owner.username,
      slug: project.slug,
      path: `@${owner.username}/${project.slug}`,
    });
    expect(res.body.events).toHaveLength(50);
    expect(res.body.events.map((e: { data: { i: number } }) => e.data.i)).toEqual(
      Array.from({ length: 50 }, (_, k) => 204 - k),
    );
    expect(res.body.events[0]).toMatchObject({ kind: "push", actor: "system" });
    expect(res.body.events[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(res.body.events[0].occurredAt)).not.toBeNaN();
  });

  it("honours limit up to 200 and refuses values outside 1..200", async () => {
    expect((await call("GET", `${project.base}/activity?limit=200`)).body.events).toHaveLength(200);
    expect((await call("GET", `${project.base}/activity?limit=1`)).body.events).toHaveLength(1);
    for (const limit of ["0", "201", "x", "-3"])
      expect((await call("GET", `${project.base}/activity?limit=${limit}`)).status, limit).toBe(400);
  });

  it("shows only that project's events, and hides private projects with 404", async () => {
    const own = await call("GET", `${other.base}/activity`, { token: owner.token });
    expect(own.body.events.map((e: { data: { i: number } }) => e.data.i)).toEqual([-1]);
    expect((await call("GET", `${other.base}/activity`)).status).toBe(404);
    expect((await call("GET", `${other.base}/activity`, { token: stranger.token })).status).toBe(404);
    expect(
      (await call("GET", `/api/projects/@${owner.username}/missing/activity`, { token: owner.token })).status,
    ).toBe(404);
  });
});
