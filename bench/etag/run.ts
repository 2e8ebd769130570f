// CPU per request of a GET answered 304 (If-None-Match holding the current ETag) against the same
// GET answered in full (200, the baseline), through the REST handler in-process, sequential.
// Every read here declares its version (meta.etag is a ReadVersion), so a held ETag is answered
// before tRPC dispatch: repository reads from the project row (access cache) and the branch's
// commit, an issue or a project from one indexed read of its version columns.
// Rounds alternate the two so drift hits both alike. Embedded PGlite unless DATABASE_URL is set.
// Usage: npx tsx bench/etag/run.ts [--files 2000] [--requests 300] [--rounds 3]
import fs from "node:fs";
import { parseArgs } from "node:util";
import { benchApi, benchEnvironment, median } from "../support/in-process";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "2000" },
    requests: { type: "string", default: "300" },
    rounds: { type: "string", default: "3" },
  },
});
const FILES = Number(values.files);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

const dataDir = benchEnvironment("etag");
const { closeDatabase } = await import("@/server/db/client");
const { handleRestRequest } = await import("@/server/api/rest");
const api = benchApi;

/** Server CPU (this process) per request for `count` sequential GETs of `url`, expecting `status`. */
async function cpuPerGet(
  token: string,
  url: string,
  etag: string | undefined,
  status: number,
  count: number,
): Promise<number> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    ...(etag ? { "if-none-match": etag } : {}),
  };
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res = await handleRestRequest(new Request(`http://bench.test/api${url}`, { headers }));
    if (res.status !== status) throw new Error(`${url}: ${res.status}, expected ${status}`);
    await res.arrayBuffer();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

try {
  const owner = (await api("POST", "/admin/users", null, { username: "owner" })).body;
  const files = Object.fromEntries(
    Array.from({ length: FILES }, (_, i) => [
      `src/dir${i % 40}/file${i}.ts`,
      `export const value${i} = ${i};\n`.repeat(20),
    ]),
  );
  const project = (await api("POST", "/projects", owner.token, { name: "big", files })).body;
  for (let i = 0; i < 30; i++) {
    await api("POST", `/workspaces/${project.path}/workspaces`, owner.token, { name: `w${i}` });
    await api("POST", `/workspaces/w${i}/commit`, owner.token, {
      projectId: project.id,
      message: `change ${i}`,
      files: { [`notes/n${i}.md`]: `note ${i}\n` },
    });
  }
  const issue = (
    await api("POST", `/projects/${project.path}/issues`, owner.token, {
      title: "a single resource",
      body: "x".repeat(2000),
    })
  ).body.issue;
  const reads = [
    { name: "files (tree listing)", url: `/projects/${project.path}/files` },
    { name: "log (depth 50)", url: `/projects/${project.path}/log?depth=50` },
    { name: "content (one file)", url: `/projects/${project.path}/content?path=src/dir1/file1.ts` },
    { name: "issue (single resource)", url: `/projects/${project.path}/issues/${issue.number}` },
    { name: "project (single resource)", url: `/projects/${project.path}` },
  ];
  console.log(
    `${REQUESTS} sequential GETs x ${ROUNDS} rounds; ${FILES} files; ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; node ${process.version}`,
  );
  console.log("read                      200 (baseline)   304      ratio (target <= 0.50)");
  for (const read of reads) {
    const { etag } = await api("GET", read.url, owner.token);
    const warm = Math.min(50, REQUESTS);
    await cpuPerGet(owner.token, read.url, undefined, 200, warm);
    await cpuPerGet(owner.token, read.url, etag!, 304, warm);
    const full: number[] = [];
    const revalidated: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      full.push(await cpuPerGet(owner.token, read.url, undefined, 200, REQUESTS));
      revalidated.push(await cpuPerGet(owner.token, read.url, etag!, 304, REQUESTS));
    }
    const ratio = median(revalidated) / median(full);
    console.log(
      `${read.name.padEnd(26)}${median(full).toFixed(3).padStart(8)} ms   ${median(revalidated).toFixed(3).padStart(7)} ms   ${ratio.toFixed(2)}x`,
    );
  }
} finally {
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
