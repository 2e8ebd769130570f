// The merge queue tests its projected trees with the background runners (a real bubblewrap suite):
// the turn is released while the suite runs, the batch is durable, verdicts are reused.
import { setTimeout } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { processQueue, runnersSettled, sweepRuns, wakeQueue, wakeRunners } from "@/server/changes";
import { bwrapMissing } from "@/server/runners/test-runs";
import { advanceProject, changeWith, eventsOf, merge, POLICY, projectWith } from "@/server/changes/test-fixtures";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment({ SANDBOX_ENABLED: "1", RUNNER_CONCURRENCY: "1" });

const queue = (token: string, id: string) => call("POST", `/api/changes/${id}/queue`, { token, body: {} });

// A suite that takes a moment and fails when a.txt and b.txt meet (each passes alone).
const SUITE = {
  "README.md": "hi\n",
  "test/combo.test.js": `const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");

test("a and b do not meet", () => {
  assert.ok(!(fs.existsSync("a.txt") && fs.existsSync("b.txt")), "a.txt and b.txt together");
});
`,
  [POLICY]: "evaluators:\n  sandbox: { command: 'sleep 1 && node --test' }\n",
};

const setConcurrency = (value: string) => {
  process.env.RUNNER_CONCURRENCY = value;
  wakeRunners();
};
afterEach(() => setConcurrency("1"));

/** Waits until the project's queue is at rest: no batch in flight, no run queued or running. */
async function drained(projectId: string): Promise<void> {
  const prisma = await db();
  for (;;) {
    await runnersSettled();
    const [batches, going] = await Promise.all([
      prisma.queueBatch.count({ where: { projectId } }),
      prisma.evalRun.count({ where: { projectId, status: { in: ["queued", "running"] } } }),
    ]);
    if (batches === 0 && going === 0) return;
    // A run's wake-up may still be on its way through the notification channel.
    wakeRunners();
    await setTimeout(50);
  }
}

async function statuses(ids: string[]) {
  const rows = await (await db()).change.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } });
  return ids.map((id) => rows.find((row) => row.id === id)!.status);
}

const batchRuns = async (projectId: string) =>
  (await db()).evalRun.findMany({ where: { projectId, batchId: { not: null } }, orderBy: { createdAt: "asc" } });

/**
 * Sandbox changes proposed and evaluated (their own runs passed), one file each. Their own runs
 * are not what these tests are about: they go side by side, one runner each.
 */
async function accepted(token: string, project: { path: string; id: string }, names: string[]) {
  const concurrency = process.env.RUNNER_CONCURRENCY!;
  setConcurrency(String(names.length));
  try {
    const created = await Promise.all(
      names.map((name) => changeWith(token, project as never, { [`${name}.txt`]: `${name}\n` })),
    );
    for (const { change, evalRuns } of created) expect(change.status, JSON.stringify(evalRuns)).toBe("accepted");
    return created.map(({ change }) => change.id as string);
  } finally {
    setConcurrency(concurrency);
  }
}

/** Queues the changes into one batch (gathered) whose runs wait: no runner takes them. */
async function queueHeld(token: string, ids: string[]) {
  setConcurrency("0");
  await withEnv({ QUEUE_GATHER_MS: "1000" }, async () => {
    for (const id of ids) expect((await queue(token, id)).status).toBe(202);
    await runnersSettled();
  });
}

describe.skipIf(bwrapMissing !== null)("the merge queue with a sandbox suite", { timeout: 180_000 }, () => {
  it("lands every good change of a batch; the one failing in combination leaves with its failed test as a finding; bisection reuses verdicts", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, SUITE);
    const [a, b, c, d] = await accepted(alice.token, project, ["a", "b", "c", "d"]);
    const ownRunOfA = (await (await db()).evalRun.findFirstOrThrow({ where: { changeId: a, evaluator: "sandbox" } }))
      .id;
    // Gathered into one batch; the bisection's turns after it start without waiting to gather.
    await withEnv({ QUEUE_GATHER_MS: "3000" }, async () => {
      for (const id of [a, b, c, d]) expect((await queue(alice.token, id)).status).toBe(202);
    });
    await drained(project.id);
    expect(await statuses([a, b, c, d])).toEqual(["merged", "needs_changes", "merged", "merged"]);
    const left = (await eventsOf(project.id, "change.dequeued")).map((e) => e.data as Record<string, any>);
    const failed = left.find((e) => e.changeId === b)!;
    expect(failed.reason).toBe("evaluation_failed");
    expect(failed.issues.join("\n")).toContain("a.txt and b.txt together");
    const runs = await batchRuns(project.id);
    // The failing sub-batch's run names the culprit, its failed test at its file and line.
    const culpritRun = runs.find((run) => run.changeId === b && run.status === "failed")!;
    expect(culpritRun.findings).toEqual([
      expect.objectContaining({ rule: "test:a and b do not meet", file: "test/combo.test.js", line: 6 }),
    ]);
    // [a] alone is the tree a's own evaluation tested: bisection took its verdict, no run.
    expect(runs.find((run) => run.changeId === a)).toMatchObject({ status: "passed", reusedFrom: ownRunOfA });
    expect(runs.every((run) => run.round === 0)).toBe(true);
    // Each landing recorded once.
    expect(
      (await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId: string }).changeId).sort(),
    ).toEqual([a, c, d].sort());
  });

  it("searches a failing batch with as many prefixes side by side as there are runners", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, SUITE);
    const [a, c, d, b, e] = await accepted(alice.token, project, ["a", "c", "d", "b", "e"]);
    await queueHeld(alice.token, [a, c, d, b, e]);
    setConcurrency("4");
    await drained(project.id);
    expect(await statuses([a, c, d, b, e])).toEqual(["merged", "merged", "merged", "needs_changes", "merged"]);
    const runs = await batchRuns(project.id);
    // The whole batch failed; then every prefix before it was one probe of one step ([a] alone
    // reused a's own run): [a, c], [a, c, d] and [a, c, d, b] ran at the same time.
    const [whole, ...rest] = runs;
    expect(whole).toMatchObject({ changeId: e, status: "failed" });
    const probes = rest.filter((run) => run.batchId === whole.batchId && run.reusedFrom === null);
    expect(probes.map((run) => [run.changeId, run.status])).toEqual([
      [c, "passed"],
      [d, "passed"],
      [b, "failed"],
    ]);
    const lastStart = Math.max(...probes.map((run) => run.startedAt!.getTime()));
    expect(lastStart).toBeLessThan(Math.min(...probes.map((run) => run.finishedAt!.getTime())));
    // e was tested again alone on what landed.
    expect(runs.at(-1)).toMatchObject({ changeId: e, status: "passed" });
  });

  it("holds no lock while the batch's runs wait: other queues land, this project queues and merges; a moved base re-projects", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, SUITE);
    const other = await projectWith(alice.token, { "README.md": "hi\n" });
    const [a, c, x, y] = await accepted(alice.token, project, ["a", "c", "x", "y"]);
    const [o] = await accepted(alice.token, other, ["o"]);
    // a and c together were never tested: their batch waits for a run no runner takes.
    await queueHeld(alice.token, [a, c]);
    const prisma = await db();
    const batch = await prisma.queueBatch.findFirstOrThrow({ where: { projectId: project.id } });
    expect((batch.entries as Array<{ changeId: string }>).map((item) => item.changeId)).toEqual([a, c]);
    expect((await batchRuns(project.id)).map((run) => run.status)).toEqual(["queued"]);
    // Meanwhile: another project's queue lands, this one queues another change and merges one directly.
    expect((await queue(alice.token, o)).status).toBe(202);
    await runnersSettled();
    expect(await statuses([o])).toEqual(["merged"]);
    const queued = await queue(alice.token, y);
    expect([queued.status, queued.body.state]).toEqual([202, "waiting"]);
    expect((await merge(alice.token, x)).status).toBe(200);
    // The base moved: the batch is dropped (its run cancelled) and projected again with y.
    setConcurrency("1");
    await drained(project.id);
    expect(await statuses([a, c, x, y])).toEqual(["merged", "merged", "merged", "merged"]);
    expect((await batchRuns(project.id)).map((run) => run.status)[0]).toBe("cancelled");
  });

  it("a batch projected again onto the same tree costs no run (reusedFrom set)", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, SUITE);
    const [a, c] = await accepted(alice.token, project, ["a", "c"]);
    await queueHeld(alice.token, [a, c]);
    // The branch moves to a commit with the same tree (no wake-up: it goes round the door).
    await advanceProject(project, { "README.md": "hi\n" });
    setConcurrency("1");
    await drained(project.id);
    expect(await statuses([a, c])).toEqual(["merged", "merged"]);
    const [tested, again] = await batchRuns(project.id);
    expect(tested).toMatchObject({ status: "passed", reusedFrom: null });
    expect(again).toMatchObject({ status: "passed", reusedFrom: tested.id, attempts: 0 });
    expect(again.batchId).not.toBe(tested.batchId);
  });

  it("stacks the next batch on the one in flight: tested beside it, landed after it; a failure below drops it and it is projected again", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, SUITE);
    const [a, b, c, d, e] = await accepted(alice.token, project, ["a", "b", "c", "d", "e"]);
    // a and b fail together: the first batch. c arrives while it waits for its run.
    await queueHeld(alice.token, [a, b]);
    expect((await queue(alice.token, c)).status).toBe(202);
    await runnersSettled();
    const prisma = await db();
    const chain = await prisma.queueBatch.findMany({ where: { projectId: project.id }, orderBy: { createdAt: "asc" } });
    const itemsOf = (batch: (typeof chain)[number]) => batch.entries as Array<{ changeId: string; commit: string }>;
    expect(chain.map((batch) => itemsOf(batch).map((item) => item.changeId))).toEqual([[a, b], [c]]);
    expect(chain[1].baseSha).toBe(itemsOf(chain[0]).at(-1)!.commit);
    const entryOfC = await prisma.queueEntry.findUniqueOrThrow({ where: { changeId: c } });
    expect(entryOfC.state).toBe("testing");
    expect((await batchRuns(project.id)).map((run) => run.status)).toEqual(["queued", "queued"]);
    setConcurrency("2");
    await drained(project.id);
    expect(await statuses([a, b, c])).toEqual(["merged", "needs_changes", "merged"]);
    // c's first run was on a+b, which never landed: c was tested again on what did.
    const runsOfC = (await batchRuns(project.id)).filter((run) => run.changeId === c);
    expect(runsOfC[0].baseSha).toBe(chain[1].baseSha);
    expect(runsOfC.at(-1)).toMatchObject({ status: "passed" });
    expect(runsOfC.at(-1)!.baseSha).not.toBe(chain[1].baseSha);
    // A chain that lands whole: e on top of d, both tested at once, each landed once, no run again.
    await queueHeld(alice.token, [d]);
    expect((await queue(alice.token, e)).status).toBe(202);
    await runnersSettled();
    const whole = await prisma.queueBatch.findMany({ where: { projectId: project.id }, orderBy: { createdAt: "asc" } });
    expect(whole.map((batch) => itemsOf(batch).map((item) => item.changeId))).toEqual([[d], [e]]);
    setConcurrency("2");
    await drained(project.id);
    expect(await statuses([d, e])).toEqual(["merged", "merged"]);
    const runsOfE = (await batchRuns(project.id)).filter((run) => run.changeId === e);
    expect(runsOfE).toHaveLength(1);
    expect(runsOfE[0]).toMatchObject({ status: "passed", baseSha: whole[1].baseSha });
    expect(
      (await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId: string }).changeId).sort(),
    ).toEqual([a, c, d, e].sort());
  });

  it("auto-queue tests a change with its batch while its own runs go; one failing on its own leaves before any bisection", async () => {
    const alice = await createTestUser();
    // Refuses bad.txt; the request never waits for the suite.
    const project = await projectWith(alice.token, {
      "README.md": "hi\n",
      "test/bad.test.js": `const test = require("node:test");
const assert = require("node:assert");
test("no bad file", () => assert.ok(!require("node:fs").existsSync("bad.txt"), "bad.txt is here"));
`,
      [POLICY]:
        "evaluators:\n  sandbox: { command: 'sleep 1 && node --test' }\nevaluation: { waitSeconds: 0 }\nmerge: { autoQueue: true }\n",
    });
    // Opened within one gathering; no runner takes a run until the batch is recorded.
    setConcurrency("0");
    const opened = await withEnv({ QUEUE_GATHER_MS: "3000" }, async () => {
      const good = await changeWith(alice.token, project, { "good.txt": "g\n" });
      const bad = await changeWith(alice.token, project, { "bad.txt": "b\n" });
      return [good, bad];
    });
    // Both queued at once, still open: their own runs have not ended.
    expect(opened.map((created) => created.change.status)).toEqual(["open", "open"]);
    const [good, bad] = opened.map((created) => created.change.id as string);
    const queuedIds = (await eventsOf(project.id, "change.queued")).map(
      (e) => (e.data as { changeId: string }).changeId,
    );
    expect(queuedIds.sort()).toEqual([good, bad].sort());
    await runnersSettled();
    const prisma = await db();
    while ((await prisma.queueBatch.count({ where: { projectId: project.id } })) === 0) await setTimeout(50);
    setConcurrency("3");
    await drained(project.id);
    expect(await statuses([good, bad])).toEqual(["merged", "needs_changes"]);
    const left = (await eventsOf(project.id, "change.dequeued")).map((e) => e.data as Record<string, any>);
    expect(left.find((e) => e.changeId === bad)).toMatchObject({ reason: "evaluation_failed" });
    const ownRunOfGood = await prisma.evalRun.findFirstOrThrow({
      where: { changeId: good, batchId: null, evaluator: "sandbox" },
    });
    const runs = await batchRuns(project.id);
    // The first batch (good and bad together) started while good's own run was still going.
    expect(runs[0].startedAt!.getTime()).toBeLessThan(ownRunOfGood.finishedAt!.getTime());
    // No bisection: the batch with bad was dropped once bad's own run failed, and good alone was
    // tested again (reusing its own run when that had ended by then: the same tree on the same base).
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ changeId: good, status: "passed" });
    expect([null, ownRunOfGood.id]).toContain(runs[1].reusedFrom);
    expect((await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId: string }).changeId)).toEqual(
      [good],
    );
  });

  it("a batch whose runner died is taken over and lands once, whoever resumes it", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, SUITE);
    const [a, c] = await accepted(alice.token, project, ["a", "c"]);
    await queueHeld(alice.token, [a, c]);
    const prisma = await db();
    // An instance took the run and died: its lease ran out.
    const [run] = await batchRuns(project.id);
    await prisma.evalRun.update({
      where: { id: run.id },
      data: { status: "running", leaseOwner: "dead", leaseUntil: new Date(Date.now() - 1_000), attempts: 1 },
    });
    // Turns meanwhile (a restart's, another instance's) find the batch in flight and wait.
    await Promise.all([processQueue(project.id), processQueue(project.id)]);
    expect(await prisma.queueBatch.count({ where: { projectId: project.id } })).toBe(1);
    setConcurrency("1");
    await sweepRuns();
    await drained(project.id);
    wakeQueue(project.id);
    await Promise.all([processQueue(project.id), runnersSettled()]);
    expect(await statuses([a, c])).toEqual(["merged", "merged"]);
    expect(await prisma.evalRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: "passed",
      attempts: 2,
    });
    expect(
      (await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId: string }).changeId).sort(),
    ).toEqual([a, c].sort());
    expect(await batchRuns(project.id)).toHaveLength(1);
  });
});
