import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "@/inngest/functions";
import { db } from "@/server/db/client";
import { eventsOf, POLICY } from "@/server/changes/test-fixtures";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { serveFunctions } from "@/server/jobs/serve";
import { EmbeddedExecutor } from "@/server/jobs/executor";
import { startReceiver } from "@/server/webhooks/test-receiver";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { advanceJobClock, drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { deploymentRows, deploysPolicy, getDeployment, mergeChange, projectDeploying, putSecret } from "./support";

useTestEnvironment({ DEPLOY_SECRET_KEY: crypto.randomBytes(32).toString("base64"), ALLOW_PRIVATE_TARGETS: "1" });
const jobs = useTestJobs();

type TestUser = Awaited<ReturnType<typeof createTestUser>>;
let owner: TestUser;
let reader: TestUser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const TOKEN_VALUE = "tok-9f8e7d6c5b4a-deploy";
const SIGNING_VALUE = "sign-1a2b3c4d5e6f-hook";

beforeAll(async () => {
  [owner, reader] = [await createTestUser(), await createTestUser()];
  // Echoes the secret it received, in clear and in base64, so redaction has something to do.
  receiver = await startReceiver((request) => {
    const token = (JSON.parse(request.body).secrets?.DEPLOY_TOKEN as string | undefined) ?? "";
    return { status: 200, body: `deployed with ${token} (${Buffer.from(token).toString("base64")})` };
  });
});
afterAll(() => receiver.close());

const webhook = (extra: Record<string, unknown> = {}) => ({
  name: "production",
  provider: "webhook",
  url: receiver.url,
  secrets: ["DEPLOY_TOKEN"],
  signWith: "HOOK_KEY",
  ...extra,
});

describe("a merge deploys", () => {
  it("creates one row per entry with deployment.requested, then the job calls the signed webhook with exactly the named secrets", async () => {
    const project = await projectDeploying(owner.token, webhook(), {
      name: "staging",
      provider: "webhook",
      url: receiver.url,
      requireApproval: true,
    });
    await grantCollaborator(project.id, reader.id, "read");
    await putSecret(owner.token, project, "DEPLOY_TOKEN", TOKEN_VALUE);
    await putSecret(owner.token, project, "HOOK_KEY", SIGNING_VALUE);
    const before = receiver.received.length;
    const { changeId, commit } = await mergeChange(owner.token, project);

    const rows = (await deploymentRows(project.id)).sort((a, b) => a.name.localeCompare(b.name));
    expect(rows.map((row) => [row.name, row.status, row.attempt, row.commit, row.changeId])).toEqual([
      ["production", "queued", 1, commit, changeId],
      ["staging", "pending_approval", 1, commit, changeId],
    ]);
    const requested = (await eventsOf(project.id, "deployment.requested")).map(
      (event) => event.data as { name: string },
    );
    expect(requested.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      rows.map((row) => ({ deploymentId: row.id, name: row.name, commit, attempt: 1, status: row.status })),
    );

    await drainJobs();
    const production = rows.find((row) => row.name === "production")!;
    const done = await getDeployment(owner.token, production.id);
    expect(done.body.deployment).toMatchObject({
      status: "succeeded",
      attempt: 1,
      commit,
      changeId,
      requestedBy: `user:${owner.id}`,
      error: null,
    });
    expect(done.body.deployment.startedAt).not.toBeNull();
    expect(done.body.deployment.logTail).toBe("deployed with *** (***)");
    expect(done.text).not.toContain(TOKEN_VALUE);

    const calls = receiver.received.slice(before);
    expect(calls).toHaveLength(1);
    const [request] = calls;
    expect(request.headers["x-svc-event"]).toBe("deployment.requested");
    expect(request.headers["x-svc-delivery"]).toBe(production.id);
    expect(request.headers["x-svc-signature"]).toBe(
      `sha256=${crypto.createHmac("sha256", SIGNING_VALUE).update(request.body).digest("hex")}`,
    );
    expect(JSON.parse(request.body)).toEqual({
      deployment: { id: production.id, name: "production", attempt: 1, commit },
      project: { id: project.id, path: project.path },
      changeId,
      secrets: { DEPLOY_TOKEN: TOKEN_VALUE },
    });

    const succeeded = await eventsOf(project.id, "deployment.succeeded");
    expect(succeeded.map((event) => event.data)).toEqual([
      { deploymentId: production.id, name: "production", commit, attempt: 1, status: "succeeded" },
    ]);
    // Readers see the row without the log; the staging row still waits for approval.
    const asReader = await getDeployment(reader.token, production.id);
    expect(asReader.status).toBe(200);
    expect(asReader.body.deployment.logTail).toBeUndefined();
    expect((await deploymentRows(project.id)).find((row) => row.name === "staging")!.status).toBe("pending_approval");
  });
});

describe("outcomes", () => {
  it("fails on a non-2xx answer and records deployment.failed", async () => {
    const project = await projectDeploying(owner.token, {
      name: "production",
      provider: "webhook",
      url: receiver.url.replace("/hook", "/fail"),
    });
    receiver.setResponder((request) =>
      request.headers["x-svc-event"] === "deployment.requested" && JSON.parse(request.body).project.id === project.id
        ? { status: 503, body: "down" }
        : { status: 200 },
    );
    try {
      await mergeChange(owner.token, project);
      await drainJobs();
    } finally {
      receiver.setResponder(() => ({ status: 200, body: "ok" }));
    }
    const [row] = await deploymentRows(project.id);
    expect(row).toMatchObject({ status: "failed", error: "The deploy webhook answered HTTP 503", logTail: "down" });
    expect(
      (await eventsOf(project.id, "deployment.failed")).map((event) => (event.data as { status: string }).status),
    ).toEqual(["failed"]);
  });

  it("fails naming a secret missing from the store, without calling the provider", async () => {
    const project = await projectDeploying(owner.token, {
      name: "production",
      provider: "webhook",
      url: receiver.url,
      secrets: ["NOT_STORED"],
    });
    const before = receiver.received.length;
    await mergeChange(owner.token, project);
    await drainJobs();
    const [row] = await deploymentRows(project.id);
    expect(row.status).toBe("failed");
    expect(row.error).toContain('"NOT_STORED"');
    expect(receiver.received.length).toBe(before);
  });

  it("fails a command deployment without the sandbox binding, naming it", async () => {
    const project = await projectDeploying(owner.token, { name: "production", provider: "command", command: "true" });
    await withEnv({ SANDBOX_ENABLED: undefined }, async () => {
      await mergeChange(owner.token, project);
      await drainJobs();
    });
    const [row] = await deploymentRows(project.id);
    expect(row.status).toBe("failed");
    expect(row.error).toContain("SANDBOX_ENABLED");
  });

  it("runs a command deployment in the sandbox with the secrets as environment, its output redacted", async () => {
    const project = await projectDeploying(owner.token, {
      name: "production",
      provider: "command",
      command: 'cat README.md; echo "token=$DEPLOY_TOKEN"',
      secrets: ["DEPLOY_TOKEN"],
    });
    await putSecret(owner.token, project, "DEPLOY_TOKEN", TOKEN_VALUE);
    await withEnv({ SANDBOX_ENABLED: "1" }, async () => {
      await mergeChange(owner.token, project);
      await drainJobs();
    });
    const [row] = await deploymentRows(project.id);
    expect(row.error).toBeNull();
    expect(row).toMatchObject({ status: "succeeded", logTail: "hi\ntoken=***\n" });
  });
});

describe("supersession and skipping", () => {
  it("a newer commit's deployment starting supersedes older ones still waiting", async () => {
    const project = await projectDeploying(owner.token, {
      name: "production",
      provider: "webhook",
      url: receiver.url,
      requireApproval: true,
    });
    const first = await mergeChange(owner.token, project);
    const second = await mergeChange(owner.token, project);
    const [older, newer] = await deploymentRows(project.id);
    expect([older.commit, newer.commit, older.status, newer.status]).toEqual([
      first.commit,
      second.commit,
      "pending_approval",
      "pending_approval",
    ]);
    expect((await call("POST", `/api/deployments/${newer.id}/approve`, { token: owner.token })).status).toBe(200);
    await drainJobs();
    const [olderAfter, newerAfter] = await deploymentRows(project.id);
    expect(newerAfter.status).toBe("succeeded");
    expect(olderAfter).toMatchObject({ status: "superseded" });
    expect(olderAfter.error).toContain(second.commit);
    // A superseded row is terminal: it can be retried, not approved.
    expect((await call("POST", `/api/deployments/${older.id}/approve`, { token: owner.token })).body.code).toBe(
      "DEPLOYMENT_NOT_PENDING",
    );
  });

  it("a retry of an older commit starting leaves a newer commit's waiting deployment alone", async () => {
    const project = await projectDeploying(owner.token, {
      name: "production",
      provider: "webhook",
      url: receiver.url,
      requireApproval: true,
    });
    await mergeChange(owner.token, project);
    const [first] = await deploymentRows(project.id);
    expect((await call("POST", `/api/deployments/${first.id}/approve`, { token: owner.token })).status).toBe(200);
    await drainJobs();
    const second = await mergeChange(owner.token, project);
    const retried = await call("POST", `/api/deployments/${first.id}/retry`, { token: owner.token });
    expect(retried.status).toBe(201);
    await drainJobs();
    const rows = await deploymentRows(project.id);
    expect(rows.map((row) => [row.commit, row.attempt, row.status])).toEqual([
      [first.commit, 1, "succeeded"],
      [second.commit, 1, "pending_approval"],
      [first.commit, 2, "succeeded"],
    ]);
  });

  it("a queued deployment whose entry left the policy before it started is skipped", async () => {
    const project = await projectDeploying(owner.token, { name: "production", provider: "webhook", url: receiver.url });
    await mergeChange(owner.token, project);
    const before = receiver.received.length;
    // The next merge removes the entry: it requests nothing, and the first row finds its entry gone.
    await mergeChange(owner.token, project, {
      [POLICY]: deploysPolicy({ name: "other", provider: "webhook", url: receiver.url, branch: "release" }),
    });
    await drainJobs();
    const rows = await deploymentRows(project.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "skipped" });
    expect(rows[0].error).toContain('no longer has a deploy entry named "production"');
    expect(receiver.received.length).toBe(before);
  });

  it("a queued deployment whose entry now names another branch is skipped", async () => {
    const project = await projectDeploying(owner.token, { name: "production", provider: "webhook", url: receiver.url });
    await mergeChange(owner.token, project);
    await mergeChange(owner.token, project, {
      [POLICY]: deploysPolicy({ name: "production", provider: "webhook", url: receiver.url, branch: "release" }),
    });
    await drainJobs();
    const rows = await deploymentRows(project.id);
    expect(rows.map((row) => row.status)).toEqual(["skipped"]);
    expect(rows[0].error).toContain("now deploys release, not main");
  });
});

describe("durability", () => {
  it("an enqueue that fails lands in the outbox; the merge still succeeds and the five-minute sweep starts it", async () => {
    const project = await projectDeploying(owner.token, { name: "production", provider: "webhook", url: receiver.url });
    const prisma = await db();
    await prisma.jobSchedule.updateMany({
      where: { functionId: "svc-forge-deployment-outbox-sweep" },
      data: { nextAt: new Date(jobs.current.clock.now() + 5 * 60_000) },
    });
    // A real failure of the queue's store: the embedded client's INSERT of this event kind is refused.
    await prisma.$executeRawUnsafe(
      `ALTER TABLE "JobEvent" ADD CONSTRAINT "test_refuse_deploys" CHECK ("name" <> 'svc/deployment.requested') NOT VALID`,
    );
    try {
      await mergeChange(owner.token, project);
    } finally {
      await prisma.$executeRawUnsafe(`ALTER TABLE "JobEvent" DROP CONSTRAINT "test_refuse_deploys"`);
    }
    const [row] = await deploymentRows(project.id);
    expect(row).toMatchObject({ status: "queued", enqueuedAt: null });
    await drainJobs();
    expect((await deploymentRows(project.id))[0].status).toBe("queued");
    advanceJobClock(5 * 60_000);
    await drainJobs();
    const [after] = await deploymentRows(project.id);
    expect(after.status).toBe("succeeded");
    expect(after.enqueuedAt).not.toBeNull();
  });

  it("a deployment whose job step fails on every retry ends failed, not stuck running", async () => {
    const project = await projectDeploying(owner.token, { name: "production", provider: "webhook", url: receiver.url });
    const prisma = await db();
    // A real failure of our own: the database refuses the outcome the provider step writes.
    await prisma.$executeRawUnsafe(
      `ALTER TABLE "Deployment" ADD CONSTRAINT "test_refuse_success" CHECK ("status" <> 'succeeded') NOT VALID`,
    );
    try {
      await mergeChange(owner.token, project);
      await drainJobs({ fastForward: true, timeoutMs: 60_000 });
    } finally {
      await prisma.$executeRawUnsafe(`ALTER TABLE "Deployment" DROP CONSTRAINT "test_refuse_success"`);
    }
    const [row] = await deploymentRows(project.id);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/^The deployment job failed: /);
    expect(
      (await eventsOf(project.id, "deployment.failed")).map(
        (event) => (event.data as { deploymentId: string }).deploymentId,
      ),
    ).toEqual([row.id]);
  });

  it("a crash during the provider call resumes in another executor: the webhook is called again with the same delivery id, and says so", async () => {
    const project = await projectDeploying(owner.token, { name: "production", provider: "webhook", url: receiver.url });
    const mine = (request: { body: string }) => JSON.parse(request.body).project?.id === project.id;
    let hung = false;
    receiver.setResponder((request) => {
      if (mine(request) && !hung) {
        hung = true;
        return "hang";
      }
      return { status: 200, body: "ok" };
    });
    const clock = jobs.current.clock;
    const handler = serveFunctions(functions);
    const doomed = new EmbeddedExecutor({ handler, clock, autoRun: false, leaseMs: 30_000 });
    await doomed.start();
    const fresh = new EmbeddedExecutor({ handler, clock, autoRun: false, leaseMs: 30_000 });
    try {
      await mergeChange(owner.token, project);
      const seen = receiver.received.length;
      void doomed.tick();
      await receiver.waitFor(seen + 1);
      expect(hung).toBe(true);
      doomed.kill();
      const [running] = await deploymentRows(project.id);
      expect(running).toMatchObject({ status: "running", providerCalls: 1 });

      await fresh.start();
      clock.advance(31_000);
      await fresh.drain({ advance: (ms) => clock.advance(ms) });
      const [row] = await deploymentRows(project.id);
      expect(row).toMatchObject({ status: "succeeded", providerCalls: 2 });
      expect(row.logTail).toContain("provider call 2 of this attempt");
      const calls = receiver.received.filter(mine);
      expect(calls.map((request) => [request.headers["x-svc-delivery"], request.headers["x-svc-call"]])).toEqual([
        [row.id, "1"],
        [row.id, "2"],
      ]);
    } finally {
      receiver.setResponder(() => ({ status: 200, body: "ok" }));
      // The killed executor's step is still waiting on the hung call: end it, so that step has
      // finished (doomed.stop waits for it) before the file closes its database.
      receiver.dropConnections();
      await fresh.stop();
      await doomed.stop().catch(() => undefined);
    }
  });
});
