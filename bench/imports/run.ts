// Imports from the hosting provider, against the stub provider (a real HTTP server on 127.0.0.1
// serving git through `git http-backend`):
// 1. import of a generated repository (default 5,000 files, 500 commits), from the import request
//    to `completed`, vs `git clone --mirror` of the same repository from the same stub (the
//    baseline, measured alternately in the same run; target <= 1.3x);
// 2. a sync of 10 new upstream commits (server time = request + job; target < 1 s), vs a plain
//    `git fetch` of the same commits from the same stub;
// 3. this process's RSS growth while importing a ~100 MB repository (target < 100 MB; git's own
//    processes are not the server's memory).
// PGlite in a throwaway DATA_DIR; the embedded executor drives the real import and sync jobs.
// Usage: npx tsx bench/imports/run.ts [--files 5000] [--commits 500] [--runs 5] [--big-mb 100] [--sync-commits 10]
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";

const execFileAsync = promisify(execFile);

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    commits: { type: "string", default: "500" },
    runs: { type: "string", default: "5" },
    "big-mb": { type: "string", default: "100" },
    "sync-commits": { type: "string", default: "10" },
  },
});
const FILES = Number(values.files);
const COMMITS = Number(values.commits);
const RUNS = Number(values.runs);
const BIG_MB = Number(values["big-mb"]);
const SYNC_COMMITS = Number(values["sync-commits"]);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-imports-"));
Object.assign(process.env, { DATA_DIR: dataDir, BASE_URL: "http://bench.test", PROVIDER_TIMEOUT_SECONDS: "120" });

const { startStubProvider } = await import("@/tests/support/provider-stub");
const stub = await startStubProvider();
Object.assign(process.env, { GITHUB_URL: stub.url, GITHUB_API_URL: stub.apiUrl, GITHUB_TOKEN: stub.token! });

const { closeDatabase, database } = await import("@/server/db/client");
const { functions } = await import("@/inngest/functions");
const { serveFunctions } = await import("@/server/jobs/serve");
const { EmbeddedExecutor } = await import("@/server/jobs/executor");
const { requestImport } = await import("@/server/imports/service");
const { requestSync } = await import("@/server/imports/sync");

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: dataDir };
// The stub's credential, as the plain git baselines send it.
const authedGitEnv = {
  ...gitEnv,
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "http.extraHeader",
  GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${stub.token}`).toString("base64")}`,
};

/** Writes a repository into the stub with git fast-import: `files` files, then one commit of 10 edits per further commit. */
function generate(repo: string, files: number, commits: number, fileBytes: (i: number, commit: number) => Buffer) {
  const gitdir = stub.repoPath("octo", repo);
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", gitdir], { env: gitEnv });
  const parts: Buffer[] = [];
  const data = (bytes: Buffer) => Buffer.concat([Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from("\n")]);
  for (let c = 0; c < commits; c++) {
    parts.push(
      Buffer.from(`commit refs/heads/main\ncommitter Bench <bench@example.test> ${1_700_000_000 + c} +0000\n`),
      data(Buffer.from(`commit ${c}`)),
    );
    const touched =
      c === 0 ? [...Array(files).keys()] : Array.from({ length: 10 }, (_, k) => (c * 7919 + k * 104729) % files);
    for (const i of touched) parts.push(Buffer.from(`M 100644 inline d${i % 100}/f${i}.txt\n`), data(fileBytes(i, c)));
  }
  execFileSync("git", ["--git-dir", gitdir, "fast-import", "--quiet"], {
    input: Buffer.concat(parts),
    env: gitEnv,
    maxBuffer: 1 << 30,
  });
}

const text = (i: number, c: number) =>
  Buffer.from(
    Array.from(
      { length: 30 },
      (_, line) => `line ${line} of file ${i} at commit ${c}: ${(i * 31 + line * 17 + c) % 9973}`,
    ).join("\n") + "\n",
  );

const db = await database();
// The server's own idle poll (1 s): polling the database every 20 ms took ~40% of this process's
// main thread, which also serves the stub to both the import and the clone.
const executor = new EmbeddedExecutor({ handler: serveFunctions(functions) });
await executor.start();

let userCounter = 0;
async function newUser() {
  const user = await db.prisma.user.create({ data: { username: `bench${++userCounter}${Date.now().toString(36)}` } });
  return {
    kind: "user" as const,
    userId: user.id,
    username: user.username,
    isAdmin: false,
    via: "token" as const,
    scope: "read_write" as const,
  };
}

async function until<T>(read: () => Promise<T | null>, intervalMs = 10, timeoutMs = 600_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits for the import's status to read `completed`, as a client reading it would see it. The
 * status is read every 100 ms (to see a failure), and every 2 ms once the project's repository has
 * the imported branch (the swap is the completing transaction's last step before it commits):
 * reading it every 10 ms from the start took ~12% of this process's main thread, which also
 * serves the stub, in database reads the clone does not pay for.
 */
async function completedImport(importId: string, onTick?: () => void) {
  const { projectId } = await db.prisma.projectImport.findUniqueOrThrow({
    where: { id: importId },
    select: { projectId: true },
  });
  const importedBranch = path.join(dataDir, "repos", projectId, "project.git", "refs", "heads", "main");
  let nextRead = 0;
  return until(async () => {
    onTick?.();
    const swapped = fs.statSync(importedBranch, { throwIfNoEntry: false }) !== undefined;
    if (!swapped && performance.now() < nextRead) return null;
    nextRead = performance.now() + 100;
    const current = await db.prisma.projectImport.findUnique({ where: { id: importId } });
    if (current?.status === "failed") throw new Error(`import failed: ${current.error}`);
    return current?.status === "completed" ? current : null;
  }, 2);
}

/** One import through the service, timed from the request to `completed`. */
async function timedImport(repo: string, onTick?: () => void) {
  const identity = await newUser();
  const slug = `b${Date.now().toString(36)}`;
  const started = performance.now();
  const { body } = await requestImport(
    identity,
    { namespace: identity.username, slug },
    { url: `${stub.url}/octo/${repo}`, branch: "main", visibility: "private" },
  );
  const row = await completedImport(body.importId, onTick);
  return { ms: performance.now() - started, identity, slug, projectId: row.projectId };
}

// Asynchronous: the stub answers from this same process.
async function timedMirrorClone(repo: string) {
  const target = fs.mkdtempSync(path.join(dataDir, "mirror-"));
  const started = performance.now();
  await execFileAsync("git", ["clone", "-q", "--mirror", `${stub.url}/octo/${repo}.git`, target], {
    env: authedGitEnv,
  });
  const ms = performance.now() - started;
  fs.rmSync(target, { recursive: true, force: true });
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const stage = (name: string) => console.error(`[bench/imports] ${name}`);

// 1. Import vs git clone --mirror, alternating, after one warm-up of each.
stage("generating the repository");
generate("generated", FILES, COMMITS, text);
stage("warm-up");
await timedMirrorClone("generated");
await timedImport("generated");
const clones: number[] = [];
const imports: number[] = [];
let last: Awaited<ReturnType<typeof timedImport>> | null = null;
for (let run = 0; run < RUNS; run++) {
  clones.push(await timedMirrorClone("generated"));
  last = await timedImport("generated");
  imports.push(last.ms);
}

stage("sync");
// 2. A sync of SYNC_COMMITS new upstream commits into the last imported project, against the
//    baseline: a plain `git fetch` of the same commits from the same stub into a copy of that
//    project's repository as it was before the sync.
const baselineRepo = path.join(dataDir, "baseline-fetch.git");
fs.cpSync(path.join(dataDir, "repos", last!.projectId, "project.git"), baselineRepo, { recursive: true });
stub.addCommits(
  "octo",
  "generated",
  Array.from({ length: SYNC_COMMITS }, (_, i) => ({ [`sync/f${i}.txt`]: `sync ${i}\n` })),
);
const fetchStarted = performance.now();
await execFileAsync(
  "git",
  [
    "--git-dir",
    baselineRepo,
    "fetch",
    "-q",
    `${stub.url}/octo/generated.git`,
    "+refs/heads/main:refs/remotes/baseline/main",
  ],
  { env: authedGitEnv },
);
const plainFetchMs = performance.now() - fetchStarted;
const syncStarted = performance.now();
await requestSync(last!.identity, { namespace: last!.identity.username, slug: last!.slug });
const syncRequestMs = performance.now() - syncStarted;
const syncRun = await until(async () => {
  const run = await db.prisma.syncRun.findFirst({
    where: { projectId: last!.projectId },
    orderBy: { createdAt: "desc" },
  });
  if (run?.status === "failed") throw new Error(`sync failed: ${run.errorMessage}`);
  return run?.status === "succeeded" ? run : null;
});
const syncMs = performance.now() - syncStarted;

stage("big import");
// 3. RSS growth of this process while importing a ~BIG_MB repository of incompressible files.
const bigFiles = Math.max(1, BIG_MB);
generate("big", bigFiles, 1, () => randomBytes(1024 * 1024));
global.gc?.();
const rssBefore = process.memoryUsage().rss;
let rssPeak = rssBefore;
const big = await timedImport("big", () => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)));
const bigPack = fs
  .readdirSync(path.join(dataDir, "repos", big.projectId, "project.git", "objects", "pack"))
  .reduce(
    (total, name) =>
      total + fs.statSync(path.join(dataDir, "repos", big.projectId, "project.git", "objects", "pack", name)).size,
    0,
  );

await executor.stop();
await closeDatabase();
await stub.close();
fs.rmSync(dataDir, { recursive: true, force: true });

const mib = (bytes: number) => +(bytes / 1024 / 1024).toFixed(1);
console.log(
  JSON.stringify(
    {
      database: db.kind,
      repository: { files: FILES, commits: COMMITS, runs: RUNS },
      importVsMirrorClone: {
        baseline: "git clone --mirror from the same stub",
        mirrorCloneMs: Math.round(median(clones)),
        importMs: Math.round(median(imports)),
        ratio: +(median(imports) / median(clones)).toFixed(2),
        target: 1.3,
      },
      // Server time = the request (ls-remote, compare, queue) + the job's own run; the rest is the executor's pick-up.
      sync: {
        commits: SYNC_COMMITS,
        commitsSynced: syncRun.commitsSynced,
        requestMs: Math.round(syncRequestMs),
        jobMs: syncRun.finishedAt!.getTime() - syncRun.startedAt!.getTime(),
        serverMs: Math.round(syncRequestMs) + (syncRun.finishedAt!.getTime() - syncRun.startedAt!.getTime()),
        baseline: "plain git fetch of the same commits from the same stub",
        plainFetchMs: Math.round(plainFetchMs),
        serverVsPlainFetch: +(
          (syncRequestMs + (syncRun.finishedAt!.getTime() - syncRun.startedAt!.getTime())) /
          plainFetchMs
        ).toFixed(2),
        requestToSucceededMs: Math.round(syncMs),
        targetServerMs: 1000,
      },
      bigImport: {
        packMiB: mib(bigPack),
        importMs: Math.round(big.ms),
        rssBeforeMiB: mib(rssBefore),
        rssPeakMiB: mib(rssPeak),
        rssGrowthMiB: mib(rssPeak - rssBefore),
        targetMiB: 100,
      },
    },
    null,
    2,
  ),
);
process.exit(0);
