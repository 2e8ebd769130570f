import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  benchEnv,
  sharedAppBuild,
  root,
  startNext,
  startRoundRobinProxy,
  waitForServer,
  // @ts-expect-error: the benchmark support module is plain JavaScript without types.
} from "@/bench/support/next-app.mjs";
import { useTestEnvironment } from "@/tests/support/harness";
import { freePort } from "@/tests/support/ports";
import { GitClient, withToken } from "@/tests/git/support";
import { redisServerInstalled, startRedisServer, type RedisServer } from "@/tests/support/redis-server";

/**
 * What docs/deploy.md says, run: three production servers (`node server.mjs`, as `npm start` runs
 * it) on one PostgreSQL and one shared REPOS_DIR, with the same keys, behind a round-robin proxy,
 * with the rate limit in a real Redis. PostgreSQL only (TEST_DATABASE_URL): PGlite is one process's.
 */
const env = useTestEnvironment();
const ADMIN_KEY = "scale-admin-key";
const RATE_LIMIT = 60;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-scale-"));
const reposDir = path.join(work, "repos");

interface Instance {
  port: number;
  child?: ChildProcess;
}

let app: string;
let proxy: { url: string; close(): Promise<void> };
let redis: RedisServer | undefined;
const instances: Instance[] = [{ port: 0 }, { port: 0 }, { port: 0 }];
const git = new GitClient();

function instanceEnv(baseUrl: string) {
  return {
    DATABASE_URL: env.databaseUrl,
    REPOS_DIR: reposDir,
    BASE_URL: baseUrl,
    TRUST_PROXY: "1",
    ADMIN_API_KEY: ADMIN_KEY,
    SECRET_KEY: "scale-test-secret-key-of-at-least-32-characters",
    AUTH_SECRET: "scale-test-auth-secret-of-at-least-32-characters",
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    ...(redis ? { REDIS_URL: redis.url } : {}),
  };
}

async function api(method: string, url: string, token: string | undefined, body?: unknown) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : { "x-admin-api-key": ADMIN_KEY }),
  };
  const res = await fetch(`${proxy.url}${url}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function newUser(name: string) {
  const res = await api("POST", "/api/admin/users", undefined, { username: `${name}${Date.now().toString(36)}` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { username: res.body.user.username as string, token: res.body.token as string };
}

describe.runIf(process.env.TEST_DATABASE_URL)("three instances behind a proxy (docs/deploy.md)", () => {
  beforeAll(async () => {
    app = sharedAppBuild(path.join(root, "bench/.work/scale"));
    if (redisServerInstalled) redis = await startRedisServer();
    for (const instance of instances) instance.port = await freePort();
    const balancer = await startRoundRobinProxy(instances.map((instance) => instance.port));
    proxy = { url: `http://127.0.0.1:${balancer.port}`, close: balancer.close };
    // Start together: migrations and start-up must tolerate siblings doing the same.
    await Promise.all(
      instances.map(async (instance) => {
        instance.child = startNext(
          app,
          instance.port,
          { ...instanceEnv(proxy.url), DATA_DIR: path.join(work, `data-${instance.port}`) },
          { detached: true },
        );
        await waitForServer(instance.port, instance.child, "/api/health");
      }),
    );
  }, 600_000);

  afterAll(async () => {
    for (const instance of instances) if (instance.child?.pid) process.kill(-instance.child.pid, "SIGKILL");
    await proxy?.close();
    await redis?.close();
    git.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("answers health checks on every instance", async () => {
    for (const instance of instances) {
      const res = await fetch(`http://127.0.0.1:${instance.port}/api/health`);
      expect(res.status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${instance.port}/health`)).status).toBe(200);
    }
  });

  it("merges concurrently across instances, past a ref lock a crashed instance left behind", async () => {
    const owner = await newUser("merger");
    // Merges that lose a race re-merge onto the new head instead of answering STALE_BASE.
    const policy = "merge: { requireFreshBase: false }\n";
    const project = (
      await api("POST", "/api/projects", owner.token, {
        name: "scale",
        files: { "README.md": "r\n", ".svc/policy.yml": policy },
      })
    ).body;
    const changes: string[] = [];
    for (let i = 0; i < 6; i++) {
      expect(
        (await api("POST", `/api/workspaces/${project.path}/workspaces`, owner.token, { name: `w${i}` })).status,
      ).toBe(201);
      expect(
        (
          await api("POST", `/api/workspaces/w${i}/commit`, owner.token, {
            projectId: project.id,
            message: `w${i}`,
            files: { [`w${i}.txt`]: `${i}\n` },
          })
        ).status,
      ).toBe(201);
      changes.push(
        (await api("POST", `/api/projects/${project.path}/changes`, owner.token, { workspace: `w${i}` })).body.change
          .id,
      );
    }
    // An instance killed between creating refs/heads/main.lock and renaming it leaves this behind.
    const lock = path.join(reposDir, project.id, "project.git", "refs", "heads", "main.lock");
    fs.writeFileSync(lock, "0".repeat(40) + "\n");
    const merges = await Promise.all(changes.map((id) => api("POST", `/api/changes/${id}/merge`, owner.token)));
    expect(
      merges.map((m) => m.status),
      JSON.stringify(merges.map((m) => m.body)),
    ).toEqual(changes.map(() => 200));
    expect(fs.existsSync(lock)).toBe(false);
    const files = (await api("GET", `/api/projects/${project.path}/files`, owner.token)).body;
    expect(JSON.stringify(files)).toMatch(/w5\.txt/);
    for (let i = 0; i < 6; i++) expect(JSON.stringify(files)).toContain(`w${i}.txt`);
  });

  it("serves git clone and push through the proxy to any instance", async () => {
    const owner = await newUser("pusher");
    const project = (
      await api("POST", "/api/projects", owner.token, { name: "gitscale", files: { "README.md": "r\n" } })
    ).body;
    expect(project.remote.startsWith(proxy.url)).toBe(true);
    const dir = git.dir("scale-clone");
    await git.ok(["clone", "-q", withToken(project.remote, owner.token), dir]);
    for (let i = 0; i < 3; i++) {
      const oid = await git.commit(dir, { [`p${i}.txt`]: `${i}\n` }, `push ${i}`);
      await git.ok(["push", "-q", "origin", `${oid}:refs/heads/main`], { cwd: dir });
    }
    const refs = await git.ok(["ls-remote", withToken(project.remote, owner.token)]);
    expect(refs).toContain(`${await git.ok(["rev-parse", "HEAD"], { cwd: dir })}\trefs/heads/main`);
  });

  it("revokes a token on every instance at once", async () => {
    const user = await newUser("revoked");
    // Warm every instance's credential cache.
    for (let i = 0; i < instances.length; i++) expect((await api("GET", "/api/users/me", user.token)).status).toBe(200);
    expect((await api("POST", "/api/users/me/rotate-token", user.token)).status).toBe(200);
    const deadline = Date.now() + 5000;
    const statuses: number[] = [];
    while (Date.now() < deadline) {
      statuses.splice(0, statuses.length);
      for (let i = 0; i < instances.length; i++) statuses.push((await api("GET", "/api/users/me", user.token)).status);
      if (statuses.every((status) => status === 401)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(statuses).toEqual(instances.map(() => 401));
  });

  it.runIf(redisServerInstalled)("counts one rate-limit budget across the instances (Redis)", async () => {
    const user = await newUser("limited");
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMIT; i++) statuses.push((await api("GET", "/api/users/me", user.token)).status);
    // Spread over three instances, in-memory limits would each see a third of these.
    expect(statuses.slice(0, RATE_LIMIT).every((status) => status === 200)).toBe(true);
    expect(statuses[RATE_LIMIT]).toBe(429);
  });

  it("loses no acknowledged write when an instance is killed mid-burst", async () => {
    const owner = await newUser("burst");
    const project = (await api("POST", "/api/projects", owner.token, { name: "burst" })).body;
    const acknowledged: number[] = [];
    const burst = Array.from({ length: 30 }, (_, i) =>
      api("POST", `/api/projects/${project.path}/issues`, owner.token, { title: `issue ${i}` }).then(
        (res) => res.status === 201 && acknowledged.push(res.body.issue.number),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    const victim = instances[1];
    if (victim.child?.pid) process.kill(-victim.child.pid, "SIGKILL");
    await Promise.allSettled(burst);
    const listed = (await api("GET", `/api/projects/${project.path}/issues?limit=100`, owner.token)).body
      .issues as Array<{ number: number }>;
    const numbers = new Set(listed.map((issue) => issue.number));
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const number of acknowledged) expect(numbers.has(number)).toBe(true);
    victim.child = startNext(
      app,
      victim.port,
      { ...instanceEnv(proxy.url), DATA_DIR: path.join(work, `data-${victim.port}`) },
      { detached: true },
    );
    await waitForServer(victim.port, victim.child, "/api/health");
  });

  it("refuses to start when its database cannot be reached, naming it without its password", async () => {
    const closedPort = await freePort();
    const child = spawn(process.execPath, ["server.mjs"], {
      cwd: app,
      env: {
        ...benchEnv,
        ...instanceEnv(proxy.url),
        DATABASE_URL: `postgresql://nobody:secret-password@127.0.0.1:${closedPort}/none`,
        DATABASE_CONNECT_TIMEOUT_SECONDS: "1",
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(output).toMatch(/start-up failed: cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/none/);
    expect(output).not.toContain("secret-password");
  });
});
