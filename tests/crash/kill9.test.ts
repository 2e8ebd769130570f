import { execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
// @ts-expect-error: the benchmark support module is plain JavaScript without types.
import { sharedAppBuild, request, root, startNext, waitForServer } from "@/bench/support/next-app.mjs";
import { useTestEnvironment } from "@/tests/support/harness";
import { freePort } from "@/tests/support/ports";
import { GitClient, withToken } from "@/tests/git/support";
import { startReceiver, type Receiver } from "@/server/webhooks/test-receiver";

/**
 * `kill -9` of a real `next start` in the middle of merges, pushes, issue creation and webhook
 * deliveries; a restart on the same DATA_DIR (and database); then every acknowledged write is
 * there, the database and the repositories agree, and the deliveries that were owed go out.
 * On PostgreSQL (TEST_DATABASE_URL) the server uses this file's database; on PGlite its own DATA_DIR.
 */
const env = useTestEnvironment();
const ADMIN_KEY = "crash-admin-key";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-crash-"));
let app: string;
let port: number;
let server: ChildProcess | undefined;
let receiver: Receiver;
// Each start's log (its stdout), printed when the test does not reach its end: a run that hangs on
// CI says where.
const logs: string[] = [];
let reachedTheEnd = false;

async function start(): Promise<void> {
  const logFile = path.join(dataDir, `server-${logs.length}.log`);
  logs.push(logFile);
  server = startNext(
    app,
    port,
    {
      DATA_DIR: dataDir,
      BASE_URL: `http://127.0.0.1:${port}`,
      ADMIN_API_KEY: ADMIN_KEY,
      ALLOW_PRIVATE_TARGETS: "1",
      WEBHOOK_RETRY_BASE_MS: "200",
      // The runs the killed server held (deliveries among them) resume once their lease ends.
      JOB_LEASE_MS: "10000",
      RATE_LIMIT_PER_MINUTE: "1000000",
      ...(env.databaseUrl ? { DATABASE_URL: env.databaseUrl } : {}),
    },
    { detached: true, logFile },
  );
  await waitForServer(port, server, "/api/health");
}

function crash(): void {
  if (server?.pid) process.kill(-server.pid, "SIGKILL");
  server = undefined;
}

async function api(method: string, url: string, token: string | undefined, body?: unknown) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : { "x-admin-api-key": ADMIN_KEY }),
  };
  const res = await request(port, url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status as number, body: res.body ? JSON.parse(res.body) : undefined };
}

beforeAll(async () => {
  app = sharedAppBuild(path.join(root, "bench/.work/crash"));
  port = await freePort();
  receiver = await startReceiver();
  await start();
}, 600_000);

afterAll(async () => {
  crash();
  if (!reachedTheEnd)
    for (const log of logs)
      console.error(`[crash] ${log}, last lines:\n${fs.readFileSync(log, "utf8").split("\n").slice(-80).join("\n")}`);
  await receiver?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it("after kill -9 mid-burst and a restart, nothing acknowledged is lost and the database agrees with git", async () => {
  const owner = await api("POST", "/api/admin/users", undefined, { username: "crash" });
  const token: string = owner.body.token;
  const project = (await api("POST", "/api/projects", token, { name: "crash", files: { "README.md": "r\n" } })).body;
  const base = `/api/projects/${project.path}`;
  expect((await api("POST", `${base}/webhooks`, token, { url: receiver.url, events: "issue.opened" })).status).toBe(
    201,
  );
  const policy = { ".svc/policy.yml": "merge: { requireFreshBase: false }\n" };
  await api("POST", `/api/workspaces/${project.path}/workspaces`, token, { name: "policy" });
  await api("POST", "/api/workspaces/policy/commit", token, {
    projectId: project.id,
    message: "policy",
    files: policy,
  });
  const policyChange = (await api("POST", `${base}/changes`, token, { workspace: "policy" })).body.change;
  expect((await api("POST", `/api/changes/${policyChange.id}/merge`, token)).status).toBe(200);
  const changes: string[] = [];
  for (let i = 0; i < 6; i++) {
    await api("POST", `/api/workspaces/${project.path}/workspaces`, token, { name: `w${i}` });
    await api("POST", `/api/workspaces/w${i}/commit`, token, {
      projectId: project.id,
      message: `w${i}`,
      files: { [`w${i}.txt`]: `${i}\n` },
    });
    changes.push((await api("POST", `${base}/changes`, token, { workspace: `w${i}` })).body.change.id);
  }
  const git = new GitClient();
  const work = git.dir("clone");
  await git.ok(["clone", "-q", withToken(project.remote, token), work]);

  // The burst: issues, merges and pushes at once; the server dies part-way through.
  const acknowledged = {
    issues: [] as Array<{ number: number; title: string }>,
    merges: [] as Array<{ id: string; commit: string }>,
    pushes: [] as Array<{ ref: string; oid: string }>,
  };
  let killed = false;
  const burst: Array<Promise<unknown>> = [];
  // Four writers open issues without pause until the server dies.
  for (let writer = 0; writer < 4; writer++) {
    burst.push(
      (async () => {
        for (let i = 0; !killed && i < 25; i++) {
          const title = `crash ${writer}-${i}`;
          const res = await api("POST", `${base}/issues`, token, { title }).catch(() => undefined);
          if (res?.status === 201) acknowledged.issues.push({ number: res.body.issue.number, title });
        }
      })(),
    );
  }
  for (const id of changes) {
    burst.push(
      api("POST", `/api/changes/${id}/merge`, token).then(
        (res) => res.status === 200 && acknowledged.merges.push({ id, commit: res.body.commit }),
        () => undefined,
      ),
    );
  }
  for (let i = 0; i < 3; i++) {
    const oid = await git.commit(work, { [`push${i}.txt`]: `${i}\n` }, `push ${i}`);
    burst.push(
      git
        .run(["push", "-q", "origin", `${oid}:refs/heads/pushed-${i}`], { cwd: work })
        .then((res) => res.code === 0 && acknowledged.pushes.push({ ref: `pushed-${i}`, oid })),
    );
  }
  // Die once some of each kind landed, with the rest in flight (or after 10 s at the latest).
  const killAt = Date.now() + 10_000;
  while (Date.now() < killAt && (acknowledged.merges.length < 2 || acknowledged.pushes.length < 1))
    await new Promise((r) => setTimeout(r, 20));
  crash();
  killed = true;
  await Promise.all(burst);

  await start();

  const stored = await Promise.all(
    acknowledged.issues.map(
      async (issue) => (await api("GET", `${base}/issues/${issue.number}`, token)).body?.issue?.title,
    ),
  );
  expect(stored).toEqual(acknowledged.issues.map((issue) => issue.title));
  const gitdir = path.join(dataDir, "repos", project.id, "project.git");
  const isAncestor = (commit: string) => {
    try {
      execFileSync("git", ["--git-dir", gitdir, "merge-base", "--is-ancestor", commit, "refs/heads/main"]);
      return true;
    } catch {
      return false;
    }
  };
  for (const merge of acknowledged.merges) {
    expect((await api("GET", `/api/changes/${merge.id}`, token)).body.change.status).toBe("merged");
    expect(isAncestor(merge.commit)).toBe(true);
  }
  // Database and git agree for every change, acknowledged or not: merged exactly when its commit is on main.
  for (const id of changes) {
    const change = (await api("GET", `/api/changes/${id}`, token)).body.change;
    if (change.status === "merged") expect(isAncestor(change.mergedSha), id).toBe(true);
  }
  for (const push of acknowledged.pushes) {
    const branches = (await api("GET", `${base}/branches`, token)).body.branches as Array<{
      name: string;
      oid: string;
    }>;
    expect(branches.find((b) => b.name === push.ref)?.oid).toBe(push.oid);
  }
  expect((await api("GET", `${base}/files`, token)).status).toBe(200);
  // The production server answers what Next.js alone would answer with a bare 500.
  for (const malformed of ["/api/projects/%ff/x", "/api/changes/%zz", "/api/trpc/%ff"]) {
    const res = await request(port, malformed);
    expect([res.status, JSON.parse(res.body).code], malformed).toEqual([400, "VALIDATION_ERROR"]);
  }

  // Deliveries owed at the kill (events recorded, not yet delivered) go out after the restart.
  const deadline = Date.now() + 60_000;
  const delivered = () =>
    new Set(receiver.received.filter((r) => r.headers["x-svc-signature"]).map((r) => JSON.parse(r.body).data.title));
  while (acknowledged.issues.some((issue) => !delivered().has(issue.title)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 250));
  expect(acknowledged.issues.filter((issue) => !delivered().has(issue.title))).toEqual([]);
  reachedTheEnd = true;
  console.log(
    `[crash] acknowledged before kill -9: ${acknowledged.issues.length} issues, ${acknowledged.merges.length} merges, ${acknowledged.pushes.length} pushes; ${receiver.received.length} delivery attempts`,
  );
}, 300_000);
