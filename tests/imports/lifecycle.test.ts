import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "@/inngest/functions";
import { db } from "@/server/db/client";
import { projectDir } from "@/server/git";
import { Heartbeat } from "@/server/imports/runner";
import { EmbeddedExecutor } from "@/server/jobs/executor";
import { serveFunctions } from "@/server/jobs/serve";
import { withEnv } from "@/tests/support/env";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { advanceJobClock, drainJobs, startTestExecutor, TestClock, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import {
  eventKinds,
  eventually,
  importStatus,
  projectBase,
  projectRow,
  refsOf,
  requestImport,
  uniqueName,
  useStubProvider,
} from "./support";

useTestEnvironment();
const jobs = useTestJobs();
const stub = useStubProvider();

let tip: string;
beforeAll(async () => {
  tip = stub.current.seed("octo", "life", [{ "a.txt": "1\n" }, { "b.txt": "2\n" }]).at(-1)!;
});

const action = (user: { username: string; token: string }, slug: string, verb: "retry" | "cancel") =>
  call("POST", `${projectBase(user.username, slug)}/import/${verb}`, { token: user.token });

describe("cancel and retry", { timeout: 120_000 }, () => {
  it("cancels a queued import at once; retry queues it again and it completes", async () => {
    const user = await createTestUser();
    const slug = uniqueName("cq");
    await requestImport(user, slug, { url: `${stub.current.url}/octo/life` });
    const cancelled = await action(user, slug, "cancel");
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({
      message: "Import cancelled",
      namespace: user.username,
      slug,
      status: "cancelled",
    });
    await drainJobs();
    expect((await importStatus(user, slug)).body).toMatchObject({ status: "cancelled", failureCategory: "CANCELLED" });
    expect((await action(user, slug, "cancel")).status).toBe(400);
    const other = await createTestUser();
    expect(
      (await call("POST", `${projectBase(user.username, slug)}/import/retry`, { token: other.token })).status,
    ).toBe(403);

    const retried = await action(user, slug, "retry");
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ namespace: user.username, slug, status: "queued" });
    expect((await action(user, slug, "retry")).body.code).toBe("IMPORT_IN_PROGRESS");
    await drainJobs();
    expect((await importStatus(user, slug)).body.status).toBe("completed");
    expect((await refsOf(user.username, slug)).branches).toEqual([{ name: "main", oid: tip }]);
  });

  it("cancels a running import: the job kills git's process group and leaves no refs", async () => {
    const user = await createTestUser();
    const slug = uniqueName("cr");
    stub.current.fault = "hang";
    stub.current.faultScope = "git";
    try {
      await withEnv({ PROVIDER_TIMEOUT_SECONDS: "60" }, async () => {
        await requestImport(user, slug, { url: `${stub.current.url}/octo/life` });
        const draining = drainJobs({ timeoutMs: 30_000 });
        await eventually(async () => (await importStatus(user, slug)).body.phase === "cloning");
        const cancelling = await action(user, slug, "cancel");
        expect(cancelling.body.status).toBe("cancelling");
        await draining;
      });
    } finally {
      stub.current.fault = null;
      stub.current.faultScope = "all";
    }
    const status = (await importStatus(user, slug)).body;
    expect(status).toMatchObject({ status: "cancelled", failureCategory: "CANCELLED", error: null });
    expect((await refsOf(user.username, slug)).branches).toEqual([]);
    const project = await projectRow(user.username, slug);
    expect(fs.readdirSync(projectDir(project.id)).filter((name) => name.startsWith("import-"))).toEqual([]);
    expect((await eventKinds(project.id)).map((event) => event.kind)).not.toContain("import.failed");
  });
});

describe("stall recovery", { timeout: 120_000 }, () => {
  it("re-queues a running import whose heartbeat is older than 5 minutes (recovered: true), which then completes", async () => {
    const user = await createTestUser();
    const slug = uniqueName("stall");
    const created = await requestImport(user, slug, { url: `${stub.current.url}/octo/life` });
    // A runner that died without a trace: running, heartbeat six minutes old.
    await (
      await db()
    ).projectImport.update({
      where: { id: created.body.importId },
      data: { status: "running", runner: "dead", updatedAt: new Date(Date.now() - 6 * 60_000) },
    });
    const recovered = await importStatus(user, slug);
    expect(recovered.body).toMatchObject({ status: "queued", recovered: true });
    expect((await importStatus(user, slug)).body.recovered).toBeUndefined();
    // The dead runner's event and the re-queued one share the import's concurrency key: the second
    // may wait out a concurrency back-off, which the fast-forwarding drain jumps over.
    await drainJobs({ fastForward: true });
    expect((await importStatus(user, slug)).body).toMatchObject({ status: "completed" });
    expect((await refsOf(user.username, slug)).branches).toEqual([{ name: "main", oid: tip }]);
  });
});

describe("a restart in the middle of a clone", { timeout: 120_000 }, () => {
  const doomedExecutors: EmbeddedExecutor[] = [];
  afterAll(() => doomedExecutors.forEach((executor) => executor.kill()));

  it("is taken over by the next executor: the import completes once, whole", async () => {
    const user = await createTestUser();
    const slug = uniqueName("crash");
    stub.current.gitDelayMs = 1500;
    const doomed = new EmbeddedExecutor({
      handler: serveFunctions(functions),
      clock: new TestClock(),
      autoRun: false,
      leaseMs: 30_000,
    });
    doomedExecutors.push(doomed);
    await jobs.current.executor.stop();
    await doomed.start();
    try {
      await requestImport(user, slug, { url: `${stub.current.url}/octo/life` });
      void doomed.drain({ timeoutMs: 20_000 }).catch(() => undefined);
      await eventually(async () => (await importStatus(user, slug)).body.phase === "cloning");
      doomed.kill();
    } finally {
      stub.current.gitDelayMs = 0;
    }
    await startTestExecutor();
    advanceJobClock(31_000);
    await drainJobs();
    const status = (await importStatus(user, slug)).body;
    expect(status.status).toBe("completed");
    const project = await projectRow(user.username, slug);
    expect((await refsOf(user.username, slug)).branches).toEqual([{ name: "main", oid: tip }]);
    expect((await eventKinds(project.id)).filter((event) => event.kind === "project.imported")).toHaveLength(1);
    const runs = await (
      await db()
    ).jobRun.findMany({
      where: {
        functionId: { endsWith: "import-project" },
        event: { path: ["data", "importId"], equals: status.importId },
      },
    });
    expect(runs.map((run) => run.status)).toEqual(["completed"]);
    // The first runner, still alive in this process, lost the import and wrote nothing: no staging left either.
    await eventually(async () => fs.readdirSync(projectDir(project.id)).every((name) => !name.startsWith("import-")));
  });

  it("resumes at the swap after a restart that follows the fetch: the source is fetched once", async () => {
    const user = await createTestUser();
    const slug = uniqueName("resume");
    const serve = serveFunctions(functions);
    let importCalls = 0;
    // Dies on the call that would run the swap: the fetch step's result is recorded, the swap never runs here.
    const doomed: EmbeddedExecutor = new EmbeddedExecutor({
      handler: {
        PUT: serve.PUT,
        POST: async (request) => {
          if (new URL(request.url).searchParams.get("fnId")?.endsWith("import-project") && ++importCalls === 2) {
            doomed.kill();
            throw new Error("killed before the swap");
          }
          return serve.POST(request);
        },
      },
      clock: new TestClock(),
      autoRun: false,
      leaseMs: 30_000,
    });
    doomedExecutors.push(doomed);
    await jobs.current.executor.stop();
    await doomed.start();
    const fetchesBefore = stub.current.gitRequests.filter(
      (request) => request === "GET /octo/life.git/info/refs",
    ).length;
    await requestImport(user, slug, { url: `${stub.current.url}/octo/life` });
    void doomed.drain({ timeoutMs: 20_000 }).catch(() => undefined);
    await eventually(async () => importCalls >= 2, 20_000);
    const project = await projectRow(user.username, slug);
    expect((await importStatus(user, slug)).body).toMatchObject({ status: "running", phase: "checking" });
    expect(fs.readdirSync(projectDir(project.id)).filter((name) => name.startsWith("import-"))).toHaveLength(1);
    expect((await refsOf(user.username, slug)).branches).toEqual([]);

    await startTestExecutor();
    advanceJobClock(31_000);
    await drainJobs();
    expect((await importStatus(user, slug)).body.status).toBe("completed");
    expect((await refsOf(user.username, slug)).branches).toEqual([{ name: "main", oid: tip }]);
    expect(
      stub.current.gitRequests.filter((request) => request === "GET /octo/life.git/info/refs").length - fetchesBefore,
    ).toBe(1);
    expect((await eventKinds(project.id)).filter((event) => event.kind === "project.imported")).toHaveLength(1);
    expect(fs.readdirSync(projectDir(project.id)).every((name) => !name.startsWith("import-"))).toBe(true);
  });
});

describe("GET /import/stream", { timeout: 120_000 }, () => {
  it("sends the progress as SSE data every 2 s and closes after a terminal status; 404 for strangers", async () => {
    const user = await createTestUser();
    const slug = uniqueName("stream");
    await requestImport(user, slug, { url: `${stub.current.url}/octo/life` });
    stub.current.gitDelayMs = 1000;
    process.env.PROVIDER_TIMEOUT_SECONDS = "30";
    const draining = drainJobs({ timeoutMs: 30_000 });
    try {
      const res = await call("GET", `${projectBase(user.username, slug)}/import/stream`, { token: user.token });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const events = res.text.split("\n\n").filter(Boolean);
      expect(events.length).toBeGreaterThanOrEqual(2);
      for (const event of events) expect(event.startsWith("data: ")).toBe(true);
      const parsed = events.map((event) => JSON.parse(event.slice("data: ".length)));
      expect(parsed.at(-1)).toMatchObject({ status: "completed" });
      expect(parsed.slice(0, -1).every((progress) => progress.status !== "completed")).toBe(true);
    } finally {
      stub.current.gitDelayMs = 0;
      await draining;
    }
    const stranger = await createTestUser();
    expect(
      (await call("GET", `${projectBase(user.username, slug)}/import/stream`, { token: stranger.token })).status,
    ).toBe(404);
  });
});

describe("the heartbeat", () => {
  it("writes a phase set while a beat is in flight (that beat had read the phase before)", async () => {
    const user = await createTestUser();
    const created = await requestImport(user, uniqueName("beat"), { url: `${stub.current.url}/octo/life` });
    const imports = (await db()).projectImport;
    const where = { id: created.body.importId as string };
    await imports.update({ where, data: { status: "running", runner: "beating" } });
    const heartbeat = new Heartbeat(where.id, "beating");
    try {
      void heartbeat.beat();
      // The beat has read the phase and sent its write.
      await new Promise((resolve) => setImmediate(resolve));
      await heartbeat.setPhase("checking");
    } finally {
      heartbeat.stop();
    }
    expect((await imports.findUniqueOrThrow({ where })).phase).toBe("checking");
    // Not left for the job queue to take over.
    await imports.update({ where, data: { status: "cancelled" } });
  });
});
