// The fleet in-process (tsx, no build): N agents of one owner on one project under
// `merge.autoQueue: true`, each looping "commit 3 new files, open a change, wait until it merged"
// through the REST handler, for --seconds. For profiles with readable names (`--profile FILE`).
// Usage: npx tsx bench/fleet/in-process.ts [--agents 10] [--seconds 20] [--profile FILE]
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { parseArgs } from "node:util";
import { counts, installCounters } from "../support/counters";
import { BENCH_ORIGIN, benchApi, benchEnvironment, finishBench, median } from "../support/in-process";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "10" },
    seconds: { type: "string", default: "20" },
    profile: { type: "string" },
  },
});
const AGENTS = Number(values.agents);
const SECONDS = Number(values.seconds);
const dataDir = benchEnvironment("fleet-in-process");
await installCounters();
const compiled = new Map<string, number>();
if (process.env.BENCH_COUNT_COMPILES) {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the cast keeps tsc from resolving a module without types
  const { QueryCompiler } = await import("@prisma/client/runtime/query_compiler_small_bg.postgresql.mjs" as string);
  for (const name of ["compile", "compileBatch"]) {
    const original = QueryCompiler.prototype[name];
    QueryCompiler.prototype[name] = function (this: unknown, request: string) {
      const shape = request
        .replace(/"(?:[^"\\]|\\.)*"/g, (m) => (m.length > 40 ? '"…"' : m))
        .slice(0, Number(process.env.BENCH_COUNT_COMPILES) > 1 ? 2000 : 160);
      compiled.set(shape, (compiled.get(shape) ?? 0) + 1);
      return original.call(this, request);
    };
  }
}
/** CPU ms of this process's reaped children (git), from /proc/self/stat (cutime + cstime, in ticks of 10 ms). */
const childCpuMs = () => {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
};
// What `npm start` runs before it serves: migrations, subscribers, the executor, the queue runner.
const { startServerRuntime } = await import("@/server/runtime/start");
await startServerRuntime(async () => (await import("@/inngest/functions")).functions);
const { createUser } = await import("@/server/auth/users");

const fileText = (agent: number, cycle: number, i: number) =>
  `// agent ${agent} cycle ${cycle} file ${i}\nexport const v = ${cycle * 3 + i};\n${"// filler line\n".repeat(30)}`;
const steps = { commit: [] as number[], open: [] as number[], land: [] as number[] };
let landed = 0;

try {
  const { token: ownerToken } = await createUser("fleet-owner");
  const project = (
    await benchApi("POST", "/projects", ownerToken, {
      name: "fleet",
      visibility: "private",
      files: { "README.md": "fleet\n", ".svc/policy.yml": "merge:\n  autoQueue: true\n" },
    })
  ).body;
  const projectPath = `@${project.namespace ?? project.project?.namespace}/${project.slug ?? project.project?.slug}`;
  const projectId = project.id ?? project.project?.id;
  const agents: { index: number; token: string }[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const { token } = (await benchApi("POST", "/agents", ownerToken, { name: `agent-${i}`, model: "bench" })).body;
    await benchApi("POST", `/workspaces/${projectPath}/workspaces`, token, { name: `agent-${i}` });
    agents.push({ index: i, token });
  }
  // As the production fleet does: follow the change's event stream until a frame says it merged.
  const { changeEventsResponse } = await import("@/server/changes");
  const waitMerged = async (id: string, token: string) => {
    const res = await changeEventsResponse(
      new Request(`${BENCH_ORIGIN}/api/changes/${id}/events`, { headers: { authorization: `Bearer ${token}` } }),
    );
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream of ${id} ended before it merged`);
      buffer += value;
      if (/"status":"merged"/.test(buffer)) return void reader.cancel();
      buffer = buffer.slice(buffer.lastIndexOf("\n\n") + 1);
    }
  };
  const session = values.profile ? new Session() : null;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  const cpu0 = process.cpuUsage();
  const child0 = childCpuMs();
  const statements0 = counts.statements;
  const spawned0 = counts.spawned.length;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    agents.map(async (agent) => {
      for (let cycle = 0; performance.now() < deadline; cycle++) {
        const t0 = performance.now();
        const files = Object.fromEntries(
          [0, 1, 2].map((i) => [`agent${agent.index}/c${cycle}/f${i}.ts`, fileText(agent.index, cycle, i)]),
        );
        await benchApi("POST", `/workspaces/agent-${agent.index}/commit`, agent.token, {
          projectId,
          message: `cycle ${cycle}`,
          files,
        });
        const t1 = performance.now();
        const { body } = await benchApi("POST", `/projects/${projectPath}/changes`, agent.token, {
          workspace: `agent-${agent.index}`,
        });
        const t2 = performance.now();
        await waitMerged(body.change.id, agent.token);
        const t3 = performance.now();
        steps.commit.push(t1 - t0);
        steps.open.push(t2 - t1);
        steps.land.push(t3 - t2);
        landed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (session) {
    const { profile } = await session.post("Profiler.stop");
    fs.writeFileSync(values.profile!, JSON.stringify(profile));
  }
  const childMs = childCpuMs() - child0;
  const spawned = new Map<string, number>();
  for (const name of counts.spawned.slice(spawned0)) spawned.set(name, (spawned.get(name) ?? 0) + 1);
  const perLanded = (n: number) => +(n / landed).toFixed(2);
  const p50 = (xs: number[]) => Math.round(median(xs));
  if (compiled.size)
    for (const [shape, n] of [...compiled].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.error(String(n).padStart(5), shape);
  console.log(
    JSON.stringify({
      agents: AGENTS,
      load: os.loadavg().map((l) => +l.toFixed(2)),
      landed,
      perSecond: +(landed / elapsed).toFixed(2),
      cpuMsPerLanded: Math.round((cpu.user + cpu.system) / 1000 / landed),
      gitCpuMsPerLanded: Math.round(childMs / landed),
      statementsPerLanded: perLanded(counts.statements - statements0),
      spawnsPerLanded: Object.fromEntries([...spawned].map(([name, n]) => [name, perLanded(n)])),
      stepP50Ms: { commit: p50(steps.commit), open: p50(steps.open), land: p50(steps.land) },
    }),
  );
} finally {
  await finishBench(dataDir);
}
