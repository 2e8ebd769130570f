// Workspace commits per second: a 10-file map (~1 KiB each, 2 directories deep) committed to one
// workspace, sequentially and with concurrent writers, through the REST handler in-process (auth,
// routing, validation, service, git) and through the service alone. Embedded PGlite in a
// throwaway DATA_DIR. Usage: npx tsx bench/git-workspace/run.ts [--commits 200] [--concurrency 4]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { commits: { type: "string", default: "200" }, concurrency: { type: "string", default: "4" } },
});
const COMMITS = Number(values.commits);
const CONCURRENCY = Number(values.concurrency);

// Production mode, as under `next start` (the OpenAPI adapter rebuilds its document per request otherwise).
(process.env as Record<string, string>).NODE_ENV ??= "production";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-git-"));
Object.assign(process.env, {
  DATA_DIR: dataDir,
  BASE_URL: "http://bench.test",
  ADMIN_API_KEY: "bench",
  RATE_LIMIT_PER_MINUTE: "100000000",
});

const { closeDatabase } = await import("@/server/db/client");
const { createUser } = await import("@/server/auth/users");
const { createProject } = await import("@/server/projects/service");
const { createWorkspace, commitToWorkspace } = await import("@/server/workspaces/service");
const { handleRestRequest } = await import("@/server/api/rest");

const fileMap = (round: number) =>
  Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`src/mod${i % 3}/file${i}.ts`, `// round ${round}\n${"x".repeat(1000)}\n`]),
  );

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function measure(label: string, commit: (round: number) => Promise<void>, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < COMMITS) {
        const round = next++;
        const t0 = performance.now();
        await commit(round);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(34)} ${(COMMITS / seconds).toFixed(1).padStart(7)} commits/s   p50 ${percentile(latencies, 0.5).toFixed(1)} ms   p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
  );
}

try {
  const { user, token } = await createUser("bench");
  const identity = {
    kind: "user",
    userId: user.id,
    username: user.username,
    isAdmin: false,
    via: "legacy",
    scope: "read_write",
  } as const;
  const { project } = await createProject(identity, { name: "bench", visibility: "private" });
  const ref = { namespace: project.namespace, slug: project.slug };

  const viaService = (name: string) => async (round: number) => {
    await commitToWorkspace(identity, {
      projectId: project.id,
      name,
      files: fileMap(round),
      message: `round ${round}`,
    });
  };
  const viaHttp = (name: string) => async (round: number) => {
    const response = await handleRestRequest(
      new Request(`http://bench.test/api/workspaces/${name}/commit`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ projectId: project.id, message: `round ${round}`, files: fileMap(round) }),
      }),
    );
    if (response.status !== 201) throw new Error(`commit failed: ${response.status} ${await response.text()}`);
  };

  console.log(`${COMMITS} commits of a 10-file map per run; node ${process.version}; ${os.cpus().length} CPUs`);
  for (const [label, make] of [
    ["service", viaService],
    ["REST handler (in-process)", viaHttp],
  ] as const) {
    for (const concurrency of [1, CONCURRENCY]) {
      const name = `${label.split(" ")[0].toLowerCase()}-c${concurrency}`;
      await createWorkspace(identity, ref, name);
      await measure(`${label}, ${concurrency} writer${concurrency > 1 ? "s" : ""}`, make(name), concurrency);
    }
  }
} finally {
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
