// One agent's core loop in-process (REST handler, embedded PGlite, throwaway DATA_DIR): commit 3 new
// files to a workspace, open the change (with its evaluation), merge it. Per step: p50/p99, SQL
// statements and git processes spawned; then the same cycle done with git plumbing in a scratch
// repository (hash-object, update-index, write-tree, commit-tree, update-ref, diff-tree, merge-tree
// --write-tree, commit-tree, update-ref), and the ratio of the two medians. CPU per step is this
// process's (the server and its database run here; spawned git processes are not counted).
// Usage: npx tsx bench/core-loop/run.ts [--cycles 40] [--only commit] [--queue] [--profile FILE]
// `--queue`: the fleet's path instead of the owner's merge: the policy says `merge.autoQueue: true`,
// opening the change queues it and the step "merge" is the queue's turn that lands it.
// `--profile FILE` writes a CPU profile of the measured cycles alone (summarize it with
// `node bench/support/profile-summary.mjs FILE`); `--only commit` loops workspace commits alone
// (and skips the plumbing), so the profile is about them.
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { parseArgs } from "node:util";
import { benchApi, benchEnvironment, finishBench, median, percentile } from "../support/in-process";
import { counted, installCounters } from "../support/counters";
import { plumbingCycles } from "../support/plumbing.mjs";

const { values } = parseArgs({
  options: {
    cycles: { type: "string", default: "40" },
    warmup: { type: "string", default: "5" },
    only: { type: "string" },
    profile: { type: "string" },
    queue: { type: "boolean", default: false },
  },
});
const CYCLES = Number(values.cycles);
const WARMUP = Number(values.warmup);

const dataDir = benchEnvironment("core-loop");
await installCounters();
const { createUser } = await import("@/server/auth/users");

const fileOf = (cycle: number, i: number) => ({
  [`src/cycle${cycle}/file${i}.ts`]: `// cycle ${cycle} file ${i}\nexport const value${i} = ${cycle * 10 + i};\n${"// filler\n".repeat(40)}`,
});
const threeFiles = (cycle: number) => ({ ...fileOf(cycle, 0), ...fileOf(cycle, 1), ...fileOf(cycle, 2) });

interface Step {
  ms: number[];
  cpuMs: number[];
  statements: number[];
  spawns: string[][];
}
const steps: Record<"commit" | "open" | "merge" | "cycle", Step> = {
  commit: { ms: [], cpuMs: [], statements: [], spawns: [] },
  open: { ms: [], cpuMs: [], statements: [], spawns: [] },
  merge: { ms: [], cpuMs: [], statements: [], spawns: [] },
  cycle: { ms: [], cpuMs: [], statements: [], spawns: [] },
};

async function timed<T>(step: Step | null, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const { result, statements, spawns } = await counted(work);
  if (step) {
    step.ms.push(performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    step.cpuMs.push((cpu.user + cpu.system) / 1000);
    step.statements.push(statements);
    step.spawns.push(spawns);
  }
  return result;
}

// The queue's turn runs in this process, woken by the change's queueing; it has landed once it settled.
async function landedByQueue(): Promise<void> {
  const { queuesSettled } = await import("@/server/changes");
  await queuesSettled();
}

const summary = (step: Step) => {
  const sorted = [...step.ms].sort((a, b) => a - b);
  const spawned = new Map<string, number>();
  for (const list of step.spawns) for (const name of list) spawned.set(name, (spawned.get(name) ?? 0) + 1);
  return {
    p50: +percentile(sorted, 0.5).toFixed(1),
    p99: +percentile(sorted, 0.99).toFixed(1),
    cpuMsP50: +median(step.cpuMs).toFixed(1),
    statements: median(step.statements),
    spawns: median(step.spawns.map((s) => s.length)),
    spawned: Object.fromEntries([...spawned].map(([name, n]) => [name, +(n / step.spawns.length).toFixed(2)])),
  };
};

try {
  const { token } = await createUser("agent");
  const policy = values.queue ? { ".svc/policy.yml": "merge:\n  autoQueue: true\n" } : {};
  const project = (
    await benchApi("POST", "/projects", token, {
      name: "loop",
      visibility: "private",
      files: { "README.md": "loop\n", ...policy },
    })
  ).body;
  const projectPath = `@${project.namespace ?? project.project?.namespace}/${project.slug ?? project.project?.slug}`;
  const projectId = project.id ?? project.project?.id;
  await benchApi("POST", `/workspaces/${projectPath}/workspaces`, token, { name: "agent" });

  const profiler = values.profile ? new Session() : null;
  const cpuBefore = process.cpuUsage();
  for (let cycle = 0; cycle < WARMUP + CYCLES; cycle++) {
    const measure = cycle >= WARMUP;
    if (profiler && cycle === WARMUP) {
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.start");
    }
    const t0 = performance.now();
    const pick = (step: Step) => (measure ? step : null);
    await timed(pick(steps.commit), () =>
      benchApi("POST", "/workspaces/agent/commit", token, {
        projectId,
        message: `cycle ${cycle}`,
        files: threeFiles(cycle),
      }),
    );
    if (values.only === "commit") continue;
    const opened = await timed(pick(steps.open), () =>
      benchApi("POST", `/projects/${projectPath}/changes`, token, { workspace: "agent" }),
    );
    if (opened.body.change.status !== "accepted")
      throw new Error(`change not accepted: ${JSON.stringify(opened.body).slice(0, 400)}`);
    if (values.queue) await timed(pick(steps.merge), landedByQueue);
    else await timed(pick(steps.merge), () => benchApi("POST", `/changes/${opened.body.change.id}/merge`, token));
    if (measure) steps.cycle.ms.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpuBefore);
  if (profiler) fs.writeFileSync(values.profile!, JSON.stringify((await profiler.post("Profiler.stop")).profile));

  if (values.only === "commit") {
    console.log(
      JSON.stringify(
        { cycles: CYCLES, load: os.loadavg().map((l) => +l.toFixed(2)), commit: summary(steps.commit) },
        null,
        2,
      ),
    );
    process.exit(0);
  }
  const plumbing = plumbingCycles(CYCLES, { warmup: WARMUP, files: threeFiles });
  const cycleP50 = median(steps.cycle.ms);
  const plumbingP50 = median(plumbing);
  console.log(
    JSON.stringify(
      {
        cycles: CYCLES,
        load: os.loadavg().map((l) => +l.toFixed(2)),
        commit: summary(steps.commit),
        open: summary(steps.open),
        merge: summary(steps.merge),
        cycle: {
          p50: +cycleP50.toFixed(1),
          cpuMsPerCycle: +((cpu.user + cpu.system) / 1000 / (WARMUP + CYCLES)).toFixed(1),
        },
        gitPlumbingCycle: { p50: +plumbingP50.toFixed(1) },
        loopRatio: +(cycleP50 / plumbingP50).toFixed(2),
      },
      null,
      2,
    ),
  );
} finally {
  await finishBench(dataDir);
}
