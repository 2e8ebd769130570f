import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeWith, commitTo, projectWith } from "@/server/changes/test-fixtures";
import { db } from "@/server/db/client";
import { startReceiver, type Receiver } from "@/server/webhooks/test-receiver";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";

// Services only record events; the REST pipeline publishes what a request recorded, so a webhook
// hears about it at once and not at the five-minute outbox sweep (which never runs in this file).
useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "1" });
useTestJobs();

let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

describe("events recorded by a request", () => {
  it("are dispatched when the request ends and reach subscribed webhooks", async () => {
    const owner = await createTestUser();
    const created = await call("POST", "/api/projects", { token: owner.token, body: { name: "events" } });
    expect(created.status).toBe(201);
    const prisma = await db();
    const projectEvent = await prisma.domainEvent.findFirstOrThrow({
      where: { projectId: created.body.id, kind: "project.created" },
    });
    expect(projectEvent.dispatchedAt).not.toBeNull();

    const hook = await call("POST", `/api/projects/${created.body.path}/webhooks`, {
      token: owner.token,
      body: { url: receiver.url, events: "workspace.created" },
    });
    expect(hook.status).toBe(201);
    const workspace = await call("POST", `/api/workspaces/${created.body.path}/workspaces`, {
      token: owner.token,
      body: { name: "ws1" },
    });
    expect(workspace.status).toBe(201);

    const pending = await prisma.domainEvent.count({ where: { projectId: created.body.id, dispatchedAt: null } });
    expect(pending).toBe(0);
    await drainJobs();
    const delivered = receiver.received.map((request) => JSON.parse(request.body));
    expect(delivered.map((payload) => payload.kind)).toEqual(["workspace.created"]);
    expect(delivered[0].data).toMatchObject({ workspace: "ws1" });
  });

  it("start the webhooks' fan-out only for a project with an active webhook", async () => {
    const owner = await createTestUser();
    const created = await call("POST", "/api/projects", { token: owner.token, body: { name: "quiet" } });
    const workspace = (name: string) =>
      call("POST", `/api/workspaces/${created.body.path}/workspaces`, { token: owner.token, body: { name } });
    const fanOuts = async () =>
      (await db()).jobRun.findMany({
        where: {
          functionId: { endsWith: "webhooks-fan-out" },
          event: { path: ["data", "projectId"], equals: created.body.id },
        },
        select: { event: true },
      });
    expect((await workspace("unheard")).status).toBe(201);
    await drainJobs();
    expect(await fanOuts()).toEqual([]);

    const hook = await call("POST", `/api/projects/${created.body.path}/webhooks`, {
      token: owner.token,
      body: { url: receiver.url, events: "workspace.created" },
    });
    expect(hook.status).toBe(201);
    const before = receiver.received.length;
    expect((await workspace("heard")).status).toBe(201);
    await drainJobs();
    expect((await fanOuts()).map((run) => (run.event as { data: { kind: string } }).data.kind)).toEqual([
      "workspace.created",
    ]);
    expect(receiver.received.slice(before).map((request) => JSON.parse(request.body).data.workspace)).toEqual([
      "heard",
    ]);
  });

  it("start the promoted changes' follow-up for a workspace push only in a project with a promoted change", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "a.txt": "a\n" });
    const { change, workspace } = await changeWith(owner.token, project, { "b.txt": "b\n" });
    const follows = async () =>
      (await db()).jobRun.findMany({
        where: {
          functionId: { endsWith: "promoted-change-follow" },
          event: { path: ["data", "projectId"], equals: project.id },
        },
        select: { event: true },
      });
    await commitTo(owner.token, project, workspace, { "b.txt": "b2\n" });
    await drainJobs();
    expect(await follows()).toEqual([]);

    // Promotion needs a hosting provider (tests/imports/host-pr.test.ts follows one end to end):
    // here only the status matters.
    await (await db()).change.update({ where: { id: change.id }, data: { status: "promoted" } });
    await commitTo(owner.token, project, workspace, { "b.txt": "b3\n" });
    await drainJobs();
    expect((await follows()).map((run) => (run.event as { data: Record<string, unknown> }).data)).toEqual([
      expect.objectContaining({ kind: "push", workspace, promotedChanges: true, webhooks: false }),
    ]);
  });

  it("a request that fails records and publishes nothing", async () => {
    const owner = await createTestUser();
    const prisma = await db();
    const before = await prisma.domainEvent.count();
    const refused = await call("POST", "/api/projects", { token: owner.token, body: { name: "not a slug" } });
    expect(refused.status).toBe(400);
    expect(await prisma.domainEvent.count()).toBe(before);
  });
});
