// Online backup vs the raw tools, and the cost of a metrics scrape.
// 1. N projects (F files, C commits each, written with `git fast-import`): time of a full backup
//    archive (snapshot + refs + bundles + tar) against the baseline `git bundle create --all` of
//    every repository plus a plain dump of the database (pg_dump on PostgreSQL; on PGlite, its own
//    dumpDataDir(), the equivalent), measured in the same run.
// 2. One metrics scrape (text exposition, every database family) with K changes in the database.
// PGlite in a throwaway DATA_DIR by default; DATABASE_URL=postgresql://... for PostgreSQL (a
// throwaway database: the bench migrates it and leaves its rows).
//    Baseline in the same run: the same scrape before the changes are written (0 changes).
// Usage: npx tsx bench/backup/run.ts [--only backup|scrape] [--projects 100] [--files 1000] [--commits 100] [--changes 10000] [--scrapes 20]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    projects: { type: "string", default: "100" },
    files: { type: "string", default: "1000" },
    commits: { type: "string", default: "100" },
    changes: { type: "string", default: "10000" },
    scrapes: { type: "string", default: "20" },
    only: { type: "string" },
  },
});
if (values.only !== undefined && values.only !== "backup" && values.only !== "scrape")
  throw new Error("--only takes backup or scrape");
const RUN_BACKUP = values.only !== "scrape";
const RUN_SCRAPE = values.only !== "backup";
const PROJECTS = RUN_BACKUP ? Number(values.projects) : 1;
const FILES = Number(values.files);
const COMMITS = Number(values.commits);
const CHANGES = Number(values.changes);
const SCRAPES = Number(values.scrapes);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-backup-"));
Object.assign(process.env, { DATA_DIR: dataDir, BASE_URL: "http://bench.test" });

const { closeDatabase, database } = await import("@/server/db/client");
const { initProjectRepo, projectRepoPath } = await import("@/server/git");
const { writeBackupArchive } = await import("@/server/backup/create");
const { exposition } = await import("@/server/metrics");

/** A fast-import stream: the first commit adds every file, each later one edits ten of them. */
function history(files: number, commits: number): string {
  const parts: string[] = [];
  const blob = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let c = 1; c <= commits; c++) {
    const message = `commit ${c}`;
    parts.push(
      `commit refs/heads/main\ncommitter Bench <bench@example.com> ${1_700_000_000 + c} +0000\ndata ${message.length}\n${message}\n`,
    );
    const touched =
      c === 1
        ? Array.from({ length: files }, (_, i) => i)
        : Array.from({ length: Math.min(10, files) }, (_, i) => (c * 10 + i) % files);
    for (const i of touched)
      parts.push(
        `M 100644 inline src/dir${i % 20}/file${i}.txt\n${blob(`file ${i} at commit ${c}\n${"x".repeat(200)}\n`)}`,
      );
  }
  return parts.join("");
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const time = async (fn: () => unknown) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

const db = await database();
const prisma = db.prisma;
const owner = await prisma.user.create({
  data: { username: "bench", legacyTokenHash: "x".repeat(64), legacyTokenPrefix: "svc_user_xxxx" },
});
const stream = history(FILES, COMMITS);
const setupStarted = performance.now();
const projectIds: string[] = [];
for (let p = 0; p < PROJECTS; p++) {
  const project = await prisma.project.create({ data: { namespace: "bench", slug: `p${p}`, ownerUserId: owner.id } });
  initProjectRepo(project.id);
  const imported = spawnSync("git", ["--git-dir", projectRepoPath(project.id), "fast-import", "--quiet"], {
    input: stream,
  });
  if (imported.status !== 0) throw new Error(imported.stderr.toString());
  projectIds.push(project.id);
}
console.log(
  `setup: ${PROJECTS} projects x ${FILES} files x ${COMMITS} commits in ${seconds(performance.now() - setupStarted)} s`,
);

if (RUN_BACKUP) await benchBackup();
if (RUN_SCRAPE) await benchScrape();

await closeDatabase();
fs.rmSync(dataDir, { recursive: true, force: true });

async function benchBackup() {
  // Baseline: the raw tools on the same data.
  const rawDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-raw-"));
  const bundlesMs = await time(() => {
    for (const id of projectIds) {
      const result = spawnSync("git", [
        "--git-dir",
        projectRepoPath(id),
        "bundle",
        "create",
        "--quiet",
        path.join(rawDir, `${id}.bundle`),
        "--all",
      ]);
      if (result.status !== 0) throw new Error(result.stderr.toString());
    }
  });
  // The database dump: pg_dump on PostgreSQL; on PGlite, which has no pg_dump, every table read in
  // full through the raw driver and written out as JSON (the same work without a snapshot or a format).
  const dumpMs = await time(async () => {
    const url = process.env.DATABASE_URL;
    if (url) {
      const result = spawnSync("pg_dump", ["--format=plain", "--file", path.join(rawDir, "dump.sql"), url]);
      if (result.status !== 0) throw new Error(`pg_dump: ${result.stderr.toString()}`);
      return;
    }
    const tables = await db.raw.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`,
    );
    const out = fs.openSync(path.join(rawDir, "dump.json"), "w");
    for (const { name } of tables)
      fs.writeSync(out, `${JSON.stringify(await db.raw.query(`SELECT * FROM "${name}"`))}\n`);
    fs.closeSync(out);
  });
  const baselineMs = bundlesMs + dumpMs;

  const archive = path.join(dataDir, "bench.tar");
  const backupMs = await time(() => writeBackupArchive(archive));
  const archiveMb = fs.statSync(archive).size / 1024 ** 2;
  const rawMb =
    fs.readdirSync(rawDir).reduce((sum, name) => sum + fs.statSync(path.join(rawDir, name)).size, 0) / 1024 ** 2;
  console.log(
    `raw tools: git bundle --all x ${PROJECTS} ${seconds(bundlesMs)} s + database dump ${seconds(dumpMs)} s = ${seconds(baselineMs)} s (${rawMb.toFixed(1)} MiB)`,
  );
  console.log(
    `backup archive: ${seconds(backupMs)} s (${archiveMb.toFixed(1)} MiB): ${(backupMs / baselineMs).toFixed(2)}x the raw tools (target <= 1.5x)`,
  );
  fs.rmSync(rawDir, { recursive: true, force: true });
}

/**
 * p50 and max (ms) of SCRAPES text expositions after one to warm up, in wall time and in this
 * process's CPU time (PGlite runs in-process, so that is the whole cost of a scrape, whatever the
 * machine's load).
 */
async function scrapeTimes(): Promise<{ p50: number; max: number; cpuP50: number }> {
  await exposition();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    const started = process.cpuUsage();
    wall.push(await time(() => exposition()));
    const used = process.cpuUsage(started);
    cpu.push((used.user + used.system) / 1000);
  }
  const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { p50: p50(wall), max: Math.max(...wall), cpuP50: p50(cpu) };
}

// Metrics scrape with CHANGES changes, against the same scrape with none.
async function benchScrape() {
  const baseline = await scrapeTimes();
  const workspace = await prisma.workspace.create({ data: { projectId: projectIds[0], name: "bench" } });
  const statuses = ["open", "merged", "rejected", "approved"] as const;
  for (let i = 0; i < CHANGES; i += 1000) {
    await prisma.change.createMany({
      data: Array.from({ length: Math.min(1000, CHANGES - i) }, (_, j) => ({
        projectId: projectIds[0],
        workspaceId: workspace.id,
        number: i + j + 1,
        status: statuses[(i + j) % statuses.length],
        authorId: owner.id,
        baseSha: "a".repeat(40),
        tipSha: "b".repeat(40),
      })),
    });
  }
  const loaded = await scrapeTimes();
  const line = (label: string, t: typeof loaded) =>
    `${label}: p50 ${t.p50.toFixed(1)} ms (CPU ${t.cpuP50.toFixed(1)} ms), max ${t.max.toFixed(1)} ms`;
  console.log(line("metrics scrape with 0 changes (baseline)", baseline));
  console.log(
    `${line(`metrics scrape with ${CHANGES} changes`, loaded)}: ${(loaded.p50 / baseline.p50).toFixed(2)}x the baseline (target < 50 ms); load average ${os.loadavg()[0].toFixed(1)}`,
  );
}
