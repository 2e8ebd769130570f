// The merge queue with a sandbox suite, in-process (REST handlers, embedded PGlite, bubblewrap):
// N changes are queued behind a locked branch, then a direct commit unlocks it with a policy whose
// suite takes --suite-ms (and fails for the --failing changes that add fail.txt). The driver calls
// processQueue until the queue is empty, waiting for the runners (and the turns their ends wake)
// between calls. Reported: changes landed per second, the driver's turns and the longest (how long
// the project's turn, on PostgreSQL an advisory lock in an open transaction, is held; the turns a
// run's end wakes are not timed), the batches' sandbox runs executed and reused.
// Usage: npx tsx bench/ci/queue.ts [--changes 20] [--suite-ms 2000] [--failing 1]
import os from "node:os";
import { parseArgs } from "node:util";
import { benchApi, benchEnvironment, finishBench } from "../support/in-process";

const { values } = parseArgs({
  options: {
    changes: { type: "string", default: "20" },
    "suite-ms": { type: "string", default: "2000" },
    failing: { type: "string", default: "1" },
  },
});
const CHANGES = Number(values.changes);
const FAILING = Number(values.failing);
const SUITE_S = Number(values["suite-ms"]) / 1000;

const dataDir = benchEnvironment("queue-ci", { SANDBOX_ENABLED: "1", LOG_LEVEL: "silent" });
// The runs' own uids must reach DATA_DIR/runner (see README, SANDBOX_ENABLED).
(await import("node:fs")).chmodSync(dataDir, 0o711);
const { createUser } = await import("@/server/auth/users");
const { openProjectRepo } = await import("@/server/git");
const { commitUnhooked } = await import("@/server/git/commit");
const { db } = await import("@/server/db");
const { processQueue, runnersSettled, wakeRunners } = await import("@/server/changes");
const { registerSubscribers } = await import("@/server/runtime/subscribers");
registerSubscribers();

const POLICY = ".svc/policy.yml";
try {
  const { token } = await createUser("queue-ci-owner");
  const created = (
    await benchApi("POST", "/projects", token, {
      name: "qci",
      files: { "README.md": "q\n", [POLICY]: "protection:\n  locked: true\n" },
    })
  ).body;
  const path = `@${created.namespace}/${created.slug}`;
  // The failing changes sit in the middle of the queue: the batch bisects.
  const failing = new Set(Array.from({ length: FAILING }, (_, i) => Math.floor(((i + 1) * CHANGES) / (FAILING + 1))));
  for (let w = 0; w < CHANGES; w++) {
    const name = `w${w}`;
    await benchApi("POST", `/workspaces/${path}/workspaces`, token, { name });
    const files = { [`w${w}.txt`]: `${w}\n`, ...(failing.has(w) ? { "fail.txt": "x\n" } : {}) };
    await benchApi("POST", `/workspaces/${name}/commit`, token, { projectId: created.id, message: name, files });
    const { change } = (await benchApi("POST", `/projects/${path}/changes`, token, { workspace: name })).body;
    await benchApi("POST", `/changes/${change.id}/queue`, token, {});
  }
  await runnersSettled();
  await commitUnhooked(openProjectRepo(created.id), "main", {
    files: { [POLICY]: `evaluators:\n  sandbox: { command: 'sleep ${SUITE_S} && test ! -f fail.txt' }\n` },
    message: "unlock",
    author: { name: "b", email: "b@example.com" },
  });
  const prisma = await db();
  const left = () => prisma.queueEntry.count({ where: { projectId: created.id } });
  const turns: number[] = [];
  const t0 = performance.now();
  while ((await left()) > 0) {
    const started = performance.now();
    await processQueue(created.id);
    turns.push(performance.now() - started);
    // The runs' wake-up may still be on its way through the notification channel.
    wakeRunners();
    await runnersSettled();
    if (turns.length > 10 * CHANGES) throw new Error("the queue does not drain");
  }
  const seconds = (performance.now() - t0) / 1000;
  const merged = await prisma.change.count({ where: { projectId: created.id, status: "merged" } });
  const sandboxRuns = await prisma.evalRun.findMany({
    where: { projectId: created.id, evaluator: "sandbox", round: 0 },
    select: { reusedFrom: true },
  });
  console.log(
    JSON.stringify(
      {
        load: os.loadavg().map((l) => +l.toFixed(2)),
        changes: CHANGES,
        failing: FAILING,
        suiteMs: SUITE_S * 1000,
        merged,
        seconds: +seconds.toFixed(2),
        landedPerSecond: +(merged / seconds).toFixed(2),
        driverTurns: turns.length,
        longestTurnMs: Math.round(Math.max(...turns)),
        batchRuns: {
          executed: sandboxRuns.filter((r) => !r.reusedFrom).length,
          reused: sandboxRuns.filter((r) => r.reusedFrom).length,
        },
      },
      null,
      2,
    ),
  );
} finally {
  await finishBench(dataDir);
}
