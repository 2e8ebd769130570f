// Changes benchmark on a repository of a few thousand files (embedded PGlite, throwaway DATA_DIR),
// through the REST handler in-process (auth, routing, validation, service, git, database):
//   1. secret-scan throughput over a synthetic diff;
//   2. change creation for a 500-file diff (diff + secret scan + records);
//   3. merge-batch of 80 non-conflicting changes (server timings and wall time), --rounds times, median;
//   4. single merges per second.
// Usage: npx tsx bench/changes/run.ts [--files 3000] [--batch 80] [--rounds 1] [--singles 30] [--diff 500]
//                                     [--scan-files 2000] (20 KB each, for 1.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "3000" },
    batch: { type: "string", default: "80" },
    rounds: { type: "string", default: "1" },
    singles: { type: "string", default: "30" },
    diff: { type: "string", default: "500" },
    "scan-files": { type: "string", default: "2000" },
  },
});
const FILES = Number(values.files);
const BATCH = Number(values.batch);
const ROUNDS = Number(values.rounds);
const SINGLES = Number(values.singles);
const DIFF_FILES = Number(values.diff);
const SCAN_FILES = Number(values["scan-files"]);

(process.env as Record<string, string>).NODE_ENV ??= "production";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-changes-"));
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
const { openProjectRepo } = await import("@/server/git");
const { commitUnhooked } = await import("@/server/git/commit");
const { handleRestRequest } = await import("@/server/api/rest");
const { scanFiles } = await import("@/server/evaluators/secret-scan/scanner");

const source = (name: string, round: number, size = 1000) => {
  const lines = [
    `// ${name} round ${round}`,
    `export function f${round}(token: string, password = process.env.PASSWORD) {`,
  ];
  while (lines.join("\n").length < size)
    lines.push(
      `  const value_${lines.length} = compute("${name}", ${lines.length * round}); // auth check ${lines.length}`,
    );
  lines.push("}");
  return `${lines.join("\n")}\n`;
};
const filePath = (i: number) => `src/pkg${i % 40}/mod${i % 7}/file${i}.ts`;

let token = "";
async function rest(method: string, url: string, body?: unknown) {
  const response = await handleRestRequest(
    new Request(`http://bench.test/api${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const json = await response.json();
  if (response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json).slice(0, 500)}`);
  return json;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

try {
  console.log(`node ${process.version}; ${os.cpus().length} CPUs; repository of ${FILES} files`);

  // 1. Secret scan throughput: code-like text full of the generic rule's keywords (worst case).
  const scanInput = Array.from({ length: SCAN_FILES }, (_, i) => ({
    path: filePath(i),
    oldText: null,
    newText: source(`scan${i}`, i, 20_000),
  }));
  const scanBytes = scanInput.reduce((sum, f) => sum + f.newText.length, 0);
  scanFiles(scanInput.slice(0, 50));
  let t0 = performance.now();
  const findings = scanFiles(scanInput);
  let elapsed = performance.now() - t0;
  console.log(
    `secret scan (added files)          ${(scanBytes / 1e6).toFixed(1)} MB in ${ms(elapsed)} = ${(scanBytes / 1e6 / (elapsed / 1000)).toFixed(1)} MB/s (${findings.length} findings)`,
  );
  const modified = scanInput.map((f) => ({ ...f, oldText: f.newText.replace(/round/g, "rnd"), newText: f.newText }));
  t0 = performance.now();
  scanFiles(modified);
  elapsed = performance.now() - t0;
  console.log(
    `secret scan (modified files)       ${(scanBytes / 1e6).toFixed(1)} MB in ${ms(elapsed)} = ${(scanBytes / 1e6 / (elapsed / 1000)).toFixed(1)} MB/s`,
  );

  // Setup: a project of FILES files; the policy lets single merges land on a moved head.
  const created = await createUser("bench");
  token = created.token;
  const identity = {
    kind: "user",
    userId: created.user.id,
    username: created.user.username,
    isAdmin: false,
    via: "legacy",
    scope: "read_write",
  } as const;
  const initial: Record<string, string> = { ".svc/policy.yml": "merge: { requireFreshBase: false }\n" };
  for (let i = 0; i < Math.min(FILES, 1999); i++) initial[filePath(i)] = source(`f${i}`, 0);
  const { project } = await createProject(identity, { name: "bench", visibility: "private", files: initial });
  const ref = { namespace: project.namespace, slug: project.slug };
  const projectPath = `@${project.namespace}/${project.slug}`;
  for (let start = 1999; start < FILES; start += 1000) {
    const files: Record<string, string> = {};
    for (let i = start; i < Math.min(FILES, start + 1000); i++) files[filePath(i)] = source(`f${i}`, 0);
    await commitUnhooked(openProjectRepo(project.id), "main", {
      files,
      message: "more files",
      author: { name: "bench", email: "bench@example.com" },
    });
  }

  async function workspaceWith(name: string, files: Record<string, string>) {
    await createWorkspace(identity, ref, name);
    await commitToWorkspace(identity, { projectId: project.id, name, files, message: `${name}` });
  }

  // 2. Change creation for a DIFF_FILES-file diff.
  const big: Record<string, string> = {};
  for (let i = 0; i < DIFF_FILES; i++) big[filePath(i)] = source(`f${i}`, 1, 2000);
  await workspaceWith("big", big);
  const diffBytes = Object.values(big).reduce((sum, text) => sum + text.length, 0);
  t0 = performance.now();
  const bigChange = await rest("POST", `/projects/${projectPath}/changes`, { workspace: "big" });
  elapsed = performance.now() - t0;
  const scanRun = bigChange.evalRuns.find((r: { evaluator: string }) => r.evaluator === "secretScan");
  console.log(
    `change creation, ${DIFF_FILES}-file diff        ${ms(elapsed)} wall (${(diffBytes / 1e6).toFixed(2)} MB new content; secret scan ${scanRun.durationMs} ms; status ${bigChange.change.status})`,
  );
  await rest("POST", `/changes/${bigChange.change.id}/reject`);

  // 3. merge-batch of BATCH non-conflicting changes, ROUNDS times (each on the head the last one left).
  const serverTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const batchIds: string[] = [];
    t0 = performance.now();
    for (let i = 0; i < BATCH; i++) {
      const name = `batch${round}-${i}`;
      await workspaceWith(name, {
        [filePath(i * 7 + round)]: source(`f${i * 7 + round}`, 2),
        [`new/${name}.txt`]: `batch ${i}\n`,
      });
      batchIds.push((await rest("POST", `/projects/${projectPath}/changes`, { workspace: name })).change.id);
    }
    const creationEach = (performance.now() - t0) / BATCH;
    t0 = performance.now();
    const result = await rest("POST", `/projects/${projectPath}/changes/merge-batch`, { changeIds: batchIds });
    elapsed = performance.now() - t0;
    const { resolveMs, batchMs, persistMs, serverMs } = result.timings;
    serverTimes.push(serverMs);
    console.log(
      `merge-batch of ${BATCH}                    merged ${result.merged.length}, conflicted ${result.conflicted.length}, skipped ${result.skipped.length}; ` +
        `server ${ms(serverMs)} (resolve ${ms(resolveMs)}, batch ${ms(batchMs)}, persist ${ms(persistMs)}); wall ${ms(elapsed)}`,
    );
    console.log(`  (setup: workspace + commit + change creation ${ms(creationEach)} per change)`);
  }
  if (ROUNDS > 1)
    console.log(
      `merge-batch of ${BATCH}, median of ${ROUNDS}       server ${ms(serverTimes.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)])}`,
    );

  // 4. Single merges per second (each lands on the head the previous one moved).
  const singleIds: string[] = [];
  for (let i = 0; i < SINGLES; i++) {
    await workspaceWith(`single${i}`, { [`single/file${i}.txt`]: `single ${i}\n` });
    singleIds.push((await rest("POST", `/projects/${projectPath}/changes`, { workspace: `single${i}` })).change.id);
  }
  const latencies: number[] = [];
  t0 = performance.now();
  for (const id of singleIds) {
    const start = performance.now();
    await rest("POST", `/changes/${id}/merge`);
    latencies.push(performance.now() - start);
  }
  elapsed = performance.now() - t0;
  latencies.sort((a, b) => a - b);
  console.log(
    `single merges                      ${(SINGLES / (elapsed / 1000)).toFixed(1)} merges/s (p50 ${ms(latencies[Math.floor(SINGLES / 2)])}, p99 ${ms(latencies[Math.floor(SINGLES * 0.99)])})`,
  );
} finally {
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
