// The merge queue alone, in-process (REST handler, embedded PGlite): for each batch size, N changes
// of N workspaces (3 new files each) are queued while the default branch is locked, then the lock is
// lifted by a direct commit and one `processQueue` lands them all. Per size: wall and CPU time of
// the turn, SQL statements and git processes spawned, each also per landed entry; fitting
// time = fixed + per-entry * n over the sizes says what a batch costs whatever its size (one
// projected tree, one evaluation, one landing transaction) and what each entry adds.
// Usage: npx tsx bench/fleet/queue.ts [--sizes 1,10,50] [--rounds 2]
// Profile: node --cpu-prof --import tsx bench/fleet/queue.ts --sizes 50 --rounds 3
import os from "node:os";
import { parseArgs } from "node:util";
import { benchApi, benchEnvironment, finishBench, median } from "../support/in-process";
import { counted, installCounters } from "../support/counters";

const { values } = parseArgs({
  options: { sizes: { type: "string", default: "1,10,50" }, rounds: { type: "string", default: "2" } },
});
const SIZES = values.sizes.split(",").map(Number);
const ROUNDS = Number(values.rounds);

const dataDir = benchEnvironment("queue");
await installCounters();
const { createUser } = await import("@/server/auth/users");
const { openProjectRepo } = await import("@/server/git");
const { commitUnhooked } = await import("@/server/git/commit");
const { processQueue, queuesSettled } = await import("@/server/changes");
const { registerSubscribers } = await import("@/server/runtime/subscribers");
registerSubscribers();

const POLICY = ".svc/policy.yml";
const files = (w: number) =>
  Object.fromEntries(
    [0, 1, 2].map((i) => [`w${w}/f${i}.ts`, `// workspace ${w} file ${i}\n${"// filler\n".repeat(30)}`]),
  );

try {
  const { token } = await createUser("queue-owner");
  const results = [];
  let project = 0;
  for (const size of SIZES) {
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) {
      const created = (
        await benchApi("POST", "/projects", token, {
          name: `q${project++}`,
          files: { "README.md": "q\n", [POLICY]: "protection:\n  locked: true\n" },
        })
      ).body;
      const path = `@${created.namespace}/${created.slug}`;
      for (let w = 0; w < size; w++) {
        const name = `p${project}w${w}`;
        await benchApi("POST", `/workspaces/${path}/workspaces`, token, { name });
        await benchApi("POST", `/workspaces/${name}/commit`, token, {
          projectId: created.id,
          message: `w${w}`,
          files: files(w),
        });
        const { change } = (await benchApi("POST", `/projects/${path}/changes`, token, { workspace: name })).body;
        await benchApi("POST", `/changes/${change.id}/queue`, token, {});
      }
      await queuesSettled();
      await commitUnhooked(openProjectRepo(created.id), "main", {
        files: { [POLICY]: "requiredApprovals: 0\n" },
        message: "unlock",
        author: { name: "b", email: "b@example.com" },
      });
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const { statements, spawns } = await counted(() => processQueue(created.id));
      const cpu = process.cpuUsage(cpu0);
      const left = (await benchApi("GET", `/projects/${path}/queue`, token)).body.entries.length;
      if (left !== 0) throw new Error(`${left} entries left in the queue`);
      runs.push({
        ms: performance.now() - t0,
        cpuMs: (cpu.user + cpu.system) / 1000,
        statements,
        spawns: spawns.length,
        spawned: spawns,
      });
    }
    const ms = median(runs.map((r) => r.ms));
    results.push({
      size,
      ms: +ms.toFixed(1),
      cpuMs: +median(runs.map((r) => r.cpuMs)).toFixed(1),
      statements: median(runs.map((r) => r.statements)),
      spawns: median(runs.map((r) => r.spawns)),
      spawned: runs[0].spawned,
      msPerEntry: +(ms / size).toFixed(1),
      statementsPerEntry: +(median(runs.map((r) => r.statements)) / size).toFixed(1),
    });
  }
  const [first, last] = [results[0], results.at(-1)!];
  const perEntry = last.size === first.size ? null : (last.ms - first.ms) / (last.size - first.size);
  console.log(
    JSON.stringify(
      {
        load: os.loadavg().map((l) => +l.toFixed(2)),
        sizes: results,
        fit:
          perEntry === null
            ? null
            : { fixedMsPerBatch: +(first.ms - perEntry * first.size).toFixed(1), msPerEntry: +perEntry.toFixed(1) },
      },
      null,
      2,
    ),
  );
} finally {
  await finishBench(dataDir);
}
