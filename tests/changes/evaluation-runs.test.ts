import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { startInvalidationListener } from "@/server/db";
import { runnersSettled, sweepRuns, wakeRunners } from "@/server/changes";
import { cancelUnfinishedRuns, claimRuns, finishRun, MAX_TAKES, RENEW_MS } from "@/server/changes/runs/store";
import { startStubServer } from "@/server/evaluators/stub-server";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { parseSse } from "@/server/changes/runs/test-sse";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import {
  commitTo,
  eventsOf,
  merge,
  POLICY,
  projectWith,
  propose,
  workspaceOf,
  type TestProject,
} from "@/server/changes/test-fixtures";

const env = useTestEnvironment();

type Stub = Awaited<ReturnType<typeof startStubServer>>;
const servers: Stub[] = [];
/** A webhook evaluator on 127.0.0.1 whose answer (and delay) the test sets. */
let answer: { verdict: "pass" | "fail"; delayMs: number; issues?: string[] };

beforeEach(() => {
  process.env.ALLOW_PRIVATE_TARGETS = "1";
  answer = { verdict: "pass", delayMs: 0 };
});
afterEach(async () => {
  await runnersSettled();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const name of ["ALLOW_PRIVATE_TARGETS", "RUNNER_CONCURRENCY"]) delete process.env[name];
});

async function webhookStub(): Promise<Stub> {
  const stub = await startStubServer(() => ({
    body: { verdict: answer.verdict, issues: answer.issues },
    delayMs: answer.delayMs,
  }));
  servers.push(stub);
  return stub;
}

async function projectWithWebhook(token: string, extra = "", timeoutMs = 2000) {
  const stub = await webhookStub();
  const project = await projectWith(token, {
    [POLICY]: `evaluators: { webhook: { url: "${stub.url}/check", timeoutMs: ${timeoutMs} } }\n${extra}`,
    "README.md": "hi\n",
  });
  return { stub, project };
}

async function proposeWith(token: string, project: TestProject, files: Record<string, string>, query = "") {
  const workspace = await workspaceOf(token, project);
  await commitTo(token, project, workspace, files);
  const res = await call("POST", `/api/projects/${project.path}/changes${query}`, { token, body: { workspace } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...res.body, workspace } as { change: any; eval: any; evalRuns: any[]; workspace: string };
}

const getChange = async (token: string, id: string) => (await call("GET", `/api/changes/${id}`, { token })).body;
const webhookRun = (runs: any[]) => runs.find((run) => run.evaluator === "webhook");

describe("background evaluation runs", () => {
  it("a run that ends within the wait answers as before: accepted, every run final, one change.evaluated", async () => {
    const alice = await createTestUser();
    const { stub, project } = await projectWithWebhook(alice.token);
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" });
    expect(created.change.status).toBe("accepted");
    expect(created.eval.verdict).toBe("passed");
    expect(created.evalRuns.map((run: any) => run.status)).toEqual(["passed", "passed"]);
    expect(webhookRun(created.evalRuns)).toMatchObject({
      attempts: 1,
      flaky: false,
      timedOut: false,
      reusedFrom: null,
      cache: null,
    });
    expect(webhookRun(created.evalRuns).finishedAt).not.toBeNull();
    expect(stub.requests).toHaveLength(1);
    expect((await eventsOf(project.id, "change.evaluated")).map((e) => (e.data as { status?: string }).status)).toEqual(
      ["accepted"],
    );
  });

  it("a slow run answers open with the run unfinished; its end accepts the change, records change.evaluated and lets auto-queue act", async () => {
    const alice = await createTestUser();
    const { project } = await projectWithWebhook(alice.token, "merge: { autoQueue: true }\n");
    answer.delayMs = 1_000;
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    expect(created.change.status).toBe("open");
    expect(created.eval.verdict).toBeNull();
    expect(["queued", "running"]).toContain(webhookRun(created.evalRuns).status);
    expect(await eventsOf(project.id, "change.evaluated")).toHaveLength(0);
    // Merging it meanwhile is blocked: its evaluation is in progress.
    const blocked = await merge(alice.token, created.change.id);
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe("PROTECTION_BLOCKED");
    expect(blocked.body.reasons.join(" ")).toContain("Evaluation is in progress");
    await runnersSettled();
    const after = await getChange(alice.token, created.change.id);
    expect(webhookRun(after.evalRuns).status).toBe("passed");
    expect((await eventsOf(project.id, "change.evaluated")).map((e) => (e.data as { status?: string }).status)).toEqual(
      ["accepted"],
    );
    expect(await eventsOf(project.id, "change.queued")).toHaveLength(1);
  });

  it("a failing run makes the change needs_changes with its findings", async () => {
    const alice = await createTestUser();
    const { project } = await projectWithWebhook(alice.token);
    answer = { verdict: "fail", delayMs: 200, issues: ["tests are red"] };
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" });
    expect(created.change.status).toBe("needs_changes");
    expect(created.eval).toMatchObject({ verdict: "failed", issues: ["webhook: tests are red"] });
    expect(webhookRun(created.evalRuns)).toMatchObject({ status: "failed", findings: [{ message: "tests are red" }] });
  });

  it("a run past its time bound ends as error and fails the evaluation", async () => {
    const alice = await createTestUser();
    const stub = await webhookStub();
    const project = await projectWith(alice.token, {
      [POLICY]: `evaluators: { webhook: { url: "${stub.url}/check", timeoutMs: 200 } }\n`,
      "README.md": "hi\n",
    });
    answer.delayMs = 1_500;
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" });
    expect(created.change.status).toBe("needs_changes");
    expect(webhookRun(created.evalRuns).status).toBe("error");
    expect(webhookRun(created.evalRuns).findings[0].message).toContain("timed out");
  });

  it("cancel: 200 with the run, 409 once final; the runner's late result is dropped; a new evaluation cancels the unfinished runs", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const { project } = await projectWithWebhook(alice.token);
    await grantCollaborator(project.id, bob.id, "read");
    answer.delayMs = 1_000;
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    const run = webhookRun(created.evalRuns);
    const path = `/api/changes/${created.change.id}/evaluations/${run.id}/cancel`;
    expect((await call("POST", path, { token: bob.token })).status).toBe(403);
    expect(
      (
        await call(
          "POST",
          `/api/changes/${created.change.id}/evaluations/00000000-0000-4000-8000-000000000000/cancel`,
          { token: alice.token },
        )
      ).status,
    ).toBe(404);
    const cancelled = await call("POST", path, { token: alice.token });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ id: run.id, status: "cancelled" });
    expect((await call("POST", path, { token: alice.token })).status).toBe(409);
    await runnersSettled();
    const after = await getChange(alice.token, created.change.id);
    expect(webhookRun(after.evalRuns).status).toBe("cancelled");
    expect(after.change.status).toBe("needs_changes");

    // A new evaluation while a run goes cancels it.
    const again = await call("POST", `/api/changes/${created.change.id}/evaluate?wait=0`, { token: alice.token });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const going = webhookRun(again.body.evalRuns);
    expect(["queued", "running"]).toContain(going.status);
    const third = await call("POST", `/api/changes/${created.change.id}/evaluate?wait=60`, { token: alice.token });
    expect(third.status).toBe(200);
    expect(await (await db()).evalRun.findUniqueOrThrow({ where: { id: going.id } })).toMatchObject({
      status: "cancelled",
    });
    expect(webhookRun(third.body.evalRuns).status).toBe("passed");
    expect((await getChange(alice.token, created.change.id)).change.status).toBe("accepted");
  });

  it("a cancel committed anywhere (another instance's) aborts the run where it runs at once, not at its next renewal", async () => {
    const alice = await createTestUser();
    const { stub, project } = await projectWithWebhook(alice.token, "", 60_000);
    answer.delayMs = 50_000;
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    const runId = webhookRun(created.evalRuns).id;
    for (let tries = 0; stub.requests.length === 0; tries++) {
      expect(tries, "the run's request within 5 s").toBeLessThan(250);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const prisma = await db();
    // On PostgreSQL the announcement comes back through the channel every instance listens on.
    const listener = process.env.TEST_DATABASE_URL ? await startInvalidationListener(env.databaseUrl) : null;
    try {
      await prisma.$transaction((tx) => cancelUnfinishedRuns(tx, created.change.id));
      // Aborted on the announcement: well before the holder's next renewal would have noticed.
      const settled = await Promise.race([
        runnersSettled().then(() => "aborted"),
        new Promise((resolve) => setTimeout(() => resolve("still running"), RENEW_MS - 1_000)),
      ]);
      expect(settled).toBe("aborted");
    } finally {
      await listener?.stop();
    }
    expect(await prisma.evalRun.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({
      status: "cancelled",
      leaseOwner: null,
    });
  });

  it("a rejection cancels the change's unfinished runs", async () => {
    const alice = await createTestUser();
    const { project } = await projectWithWebhook(alice.token);
    answer.delayMs = 1_000;
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    expect((await call("POST", `/api/changes/${created.change.id}/reject`, { token: alice.token })).status).toBe(200);
    await runnersSettled();
    const after = await getChange(alice.token, created.change.id);
    expect(after.change.status).toBe("rejected");
    expect(webhookRun(after.evalRuns).status).toBe("cancelled");
  });

  it("a crashed runner's run is taken over once its lease expires, never doubled; after too many takes it ends as error", async () => {
    const alice = await createTestUser();
    const { stub, project } = await projectWithWebhook(alice.token);
    process.env.RUNNER_CONCURRENCY = "0";
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    const runId = webhookRun(created.evalRuns).id;
    // Another instance takes it and dies: its lease runs out.
    const [taken] = await claimRuns("dead-instance", 1);
    expect(taken.id).toBe(runId);
    const prisma = await db();
    await prisma.evalRun.update({ where: { id: runId }, data: { leaseUntil: new Date(Date.now() - 1_000) } });
    process.env.RUNNER_CONCURRENCY = "1";
    wakeRunners();
    await runnersSettled();
    const after = await getChange(alice.token, created.change.id);
    expect(webhookRun(after.evalRuns)).toMatchObject({ status: "passed", attempts: 2 });
    expect(after.change.status).toBe("accepted");
    expect(stub.requests).toHaveLength(1);
    // The dead instance's late write is refused: the run is not its own any more.
    expect(
      await finishRun(runId, "dead-instance", {
        status: "failed",
        findings: [{ message: "late" }],
        durationMs: 1,
        logBytes: 0,
      }),
    ).toBe(false);
    expect((await prisma.evalRun.findUniqueOrThrow({ where: { id: runId } })).status).toBe("passed");

    // A run every runner died on, MAX_TAKES times, ends as error.
    process.env.RUNNER_CONCURRENCY = "0";
    const doomed = await proposeWith(alice.token, project, { "b.txt": "b\n" }, "?wait=0");
    const doomedId = webhookRun(doomed.evalRuns).id;
    await prisma.evalRun.update({
      where: { id: doomedId },
      data: { status: "running", attempts: MAX_TAKES, leaseOwner: "dead", leaseUntil: new Date(Date.now() - 1_000) },
    });
    await sweepRuns();
    const ended = await getChange(alice.token, doomed.change.id);
    expect(webhookRun(ended.evalRuns)).toMatchObject({ status: "error", attempts: MAX_TAKES });
    expect(webhookRun(ended.evalRuns).findings[0].message).toContain("died");
    expect(ended.change.status).toBe("needs_changes");
  });

  it("renews the lease of every run it holds while they go; one taken over elsewhere is never written over", async () => {
    const alice = await createTestUser();
    const { project } = await projectWithWebhook(alice.token, "", 10_000);
    process.env.RUNNER_CONCURRENCY = "2";
    answer.delayMs = RENEW_MS + 2_000;
    const kept = webhookRun((await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0")).evalRuns).id;
    const lost = webhookRun((await proposeWith(alice.token, project, { "b.txt": "b\n" }, "?wait=0")).evalRuns).id;
    const prisma = await db();
    const leaseOf = async (id: string) => (await prisma.evalRun.findUniqueOrThrow({ where: { id } })).leaseUntil!;
    for (
      let tries = 0;
      (await prisma.evalRun.count({ where: { id: { in: [kept, lost] }, status: "running" } })) < 2;
      tries++
    ) {
      expect(tries, "both running within 5 s").toBeLessThan(250);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const first = await leaseOf(kept);
    // Another instance takes `lost` over (as after this one's lease expired).
    const takenUntil = new Date(Date.now() + 60_000);
    await prisma.evalRun.update({
      where: { id: lost },
      data: { leaseOwner: "another-instance", leaseUntil: takenUntil },
    });
    for (let tries = 0; (await leaseOf(kept)) <= first; tries++) {
      expect(tries, "a renewal within RENEW_MS + 1 s").toBeLessThan((RENEW_MS + 1_000) / 20);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await runnersSettled();
    expect(await prisma.evalRun.findUniqueOrThrow({ where: { id: kept } })).toMatchObject({ status: "passed" });
    expect(await prisma.evalRun.findUniqueOrThrow({ where: { id: lost } })).toMatchObject({
      status: "running",
      leaseOwner: "another-instance",
      leaseUntil: takenUntil,
    });
  });

  it("a round that ends after reviews counts them: approved with an approval, needs_changes with changes requested", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const { project } = await projectWithWebhook(alice.token);
    await grantCollaborator(project.id, bob.id, "write");
    answer.delayMs = 1_000;
    const approved = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    const refused = await proposeWith(alice.token, project, { "b.txt": "b\n" }, "?wait=0");
    expect([approved.change.status, refused.change.status]).toEqual(["open", "open"]);
    for (const [change, verdict] of [
      [approved.change, "approve"],
      [refused.change, "request_changes"],
    ] as const) {
      const review = await call("POST", `/api/changes/${change.id}/reviews`, { token: bob.token, body: { verdict } });
      expect(review.status, JSON.stringify(review.body)).toBe(201);
    }
    await runnersSettled();
    expect((await getChange(alice.token, approved.change.id)).change.status).toBe("approved");
    expect((await getChange(alice.token, refused.change.id)).change.status).toBe("needs_changes");
    const evaluated = (await eventsOf(project.id, "change.evaluated")).map((e) => e.data as Record<string, string>);
    expect(evaluated.map(({ changeId, verdict, status }) => ({ changeId, verdict, status }))).toEqual(
      expect.arrayContaining([
        { changeId: approved.change.id, verdict: "passed", status: "approved" },
        { changeId: refused.change.id, verdict: "passed", status: "needs_changes" },
      ]),
    );
    expect(evaluated).toHaveLength(2);
  });

  it("lists a project's queued and running runs with their change and queue position (read access)", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const carol = await createTestUser();
    const { project } = await projectWithWebhook(alice.token);
    await grantCollaborator(project.id, bob.id, "read");
    process.env.RUNNER_CONCURRENCY = "0";
    const first = await proposeWith(alice.token, project, { "a.txt": "a\n" }, "?wait=0");
    const second = await proposeWith(alice.token, project, { "b.txt": "b\n" }, "?wait=0");
    const listed = await call("GET", `/api/projects/${project.path}/evaluations?status=queued`, { token: bob.token });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.evaluations.map((e: any) => [e.change.id, e.run.status, e.position])).toEqual([
      [first.change.id, "queued", 1],
      [second.change.id, "queued", 2],
    ]);
    expect(
      (await call("GET", `/api/projects/${project.path}/evaluations?status=running`, { token: bob.token })).body
        .evaluations,
    ).toEqual([]);
    expect(
      (await call("GET", `/api/projects/${project.path}/evaluations?status=passed`, { token: bob.token })).status,
    ).toBe(400);
    expect((await call("GET", `/api/projects/${project.path}/evaluations`, { token: carol.token })).status).toBe(404);
    process.env.RUNNER_CONCURRENCY = "1";
    wakeRunners();
    await runnersSettled();
    expect(
      (await call("GET", `/api/projects/${project.path}/evaluations`, { token: bob.token })).body.evaluations,
    ).toEqual([]);
  });

  it("?wait is bounded: 301 and -1 are a 400", async () => {
    const alice = await createTestUser();
    const { project } = await projectWithWebhook(alice.token);
    const workspace = await workspaceOf(alice.token, project);
    await commitTo(alice.token, project, workspace, { "a.txt": "a\n" });
    for (const wait of ["301", "-1", "x"]) {
      expect(
        (
          await call("POST", `/api/projects/${project.path}/changes?wait=${wait}`, {
            token: alice.token,
            body: { workspace },
          })
        ).status,
      ).toBe(400);
    }
    expect((await propose(alice.token, project, workspace)).status).toBe(201);
  });
});

describe("GET /api/changes/{id}/evaluations/{runId}/log", () => {
  it("answers the log as text, its tail, 404 for an unknown run; as SSE, log events resumable by byte offset, then end", async () => {
    const alice = await createTestUser();
    const carol = await createTestUser();
    const { project } = await projectWithWebhook(alice.token);
    answer = { verdict: "fail", delayMs: 0, issues: ["first", "second"] };
    const created = await proposeWith(alice.token, project, { "a.txt": "a\n" });
    const run = webhookRun(created.evalRuns);
    const path = `/api/changes/${created.change.id}/evaluations/${run.id}/log`;
    const log = await call("GET", path, { token: alice.token });
    expect(log.status).toBe(200);
    expect(log.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(log.text).toBe("webhook: failed\nfirst\nsecond\n");
    expect(run.logBytes).toBe(Buffer.byteLength(log.text));
    expect((await call("GET", `${path}?tail=1`, { token: alice.token })).text).toBe("second\n");
    expect((await call("GET", `${path}?tail=x`, { token: alice.token })).status).toBe(400);
    expect(
      (
        await call("GET", `/api/changes/${created.change.id}/evaluations/00000000-0000-4000-8000-000000000000/log`, {
          token: alice.token,
        })
      ).status,
    ).toBe(404);
    expect((await call("GET", path, { token: carol.token })).status).toBe(404);

    const sse = await call("GET", path, { token: alice.token, headers: { accept: "text/event-stream" } });
    expect(sse.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(sse.text);
    expect(events.map((e) => e.event)).toEqual(["log", "end"]);
    expect(JSON.parse(events[0].data)).toBe(log.text);
    expect(events[0].id).toBe(String(Buffer.byteLength(log.text)));
    expect(JSON.parse(events[1].data)).toEqual({ status: "failed" });
    const offset = Buffer.byteLength("webhook: failed\n");
    const resumed = parseSse(
      (
        await call("GET", path, {
          token: alice.token,
          headers: { accept: "text/event-stream", "last-event-id": String(offset) },
        })
      ).text,
    );
    expect(resumed.map((e) => e.event)).toEqual(["log", "end"]);
    expect(JSON.parse(resumed[0].data)).toBe("first\nsecond\n");
    const done = parseSse(
      (
        await call("GET", path, {
          token: alice.token,
          headers: { accept: "text/event-stream", "last-event-id": events[0].id! },
        })
      ).text,
    );
    expect(done.map((e) => e.event)).toEqual(["end"]);
  });
});
