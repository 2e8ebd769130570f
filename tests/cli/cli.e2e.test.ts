import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: the benchmark support module is plain JavaScript without types.
import { benchEnv, sharedAppBuild, request, root, stopProcess } from "@/bench/support/next-app.mjs";
import { freePort } from "@/tests/support/ports";
import { startStubProvider, type StubProvider } from "@/tests/support/provider-stub";

/**
 * The CLI (and so the SDK) as users install it, the packed @svc-forge/client, against the production
 * server (`node server.mjs` of a build of HEAD): from the first user to a merged change and a clone,
 * the README's walkthrough (dev login, a session, a token), the server's log lines (pages' too,
 * written by server.mjs), and an import from the stub hosting provider.
 * SVC_E2E_APP=<dir> reuses a build made earlier (bench/.work/cli/app) instead of building HEAD again;
 * SVC_SDK_TARBALL=<file> a tarball packed earlier (.ci/run packs one for both test passes).
 */
const ADMIN_KEY = "cli-admin-key";
const work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-"));
/** The empty directory the tarball is installed into, as a user's project. */
const sdk = path.join(work, "sdk");
/** Where the CLI keeps its login: $XDG_CONFIG_HOME/svc-forge/cli.json. */
const configFile = path.join(work, "xdg/svc-forge/cli.json");
let port: number;
let base: string;
let server: ChildProcess;
let serverOutput = "";
/** The hosting provider the server imports from (GITHUB_URL/GITHUB_API_URL point at it). */
let stub: StubProvider;

/** One HTTP call on a fresh connection (a reused keep-alive socket can race the server closing it). */
function api(
  method: string,
  urlPath: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: urlPath,
        method,
        agent: false,
        headers: { ...(payload ? { "content-type": "application/json" } : {}), ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            json: text && /json/.test(res.headers["content-type"] ?? "") ? JSON.parse(text) : undefined,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** npm as a user runs it: without the npm_* variables of the `npm test` this may run under. */
async function npm(args: string[], cwd: string): Promise<string> {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)/.test(name)) delete env[name];
  try {
    return (await promisify(execFile)("npm", args, { cwd, env, encoding: "utf8" })).stdout;
  } catch (error) {
    // The compiler's errors (client/'s prepack) are on stdout.
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}${stderr ?? ""}`, { cause: error });
  }
}

/** The tarball .ci/run packed, else one `npm pack` of client/ (its prepack builds dist/), installed from the registry. */
async function installSdk(): Promise<void> {
  const tarball = process.env.SVC_SDK_TARBALL
    ? path.resolve(root, process.env.SVC_SDK_TARBALL)
    : path.join(
        work,
        (await npm(["pack", "--silent", "--pack-destination", work], path.join(root, "client")))
          .trim()
          .split("\n")
          .at(-1)!,
      );
  fs.mkdirSync(sdk);
  fs.writeFileSync(
    path.join(sdk, "package.json"),
    `${JSON.stringify({ name: "sdk-user", private: true, type: "module" })}\n`,
  );
  await npm(["install", "--no-audit", "--no-fund", tarball], sdk);
}

/** The installed bin itself (its shebang, its link), not node given a path. */
const svcForge = path.join(sdk, "node_modules/.bin/svc-forge");
const cliEnv = () => ({
  ...process.env,
  HOME: work,
  XDG_CONFIG_HOME: path.join(work, "xdg"),
  SVC_CONFIG: "",
  SVC_URL: "",
  SVC_TOKEN: "",
});
const cliResult = (status: number | null, stdout: string, stderr: string) => ({
  status,
  json: status === 0 ? JSON.parse(stdout) : undefined,
  stderr,
});

function cli(args: string[], options: { cwd?: string } = {}) {
  const result = spawnSync(svcForge, args, { cwd: options.cwd ?? work, env: cliEnv(), encoding: "utf8" });
  return cliResult(result.status, result.stdout, result.stderr);
}

/** `cli` without blocking this process: the stub provider, served from here, must answer while it runs. */
function cliServing(args: string[]): Promise<ReturnType<typeof cli>> {
  return new Promise((resolve, reject) => {
    const child = spawn(svcForge, args, { cwd: work, env: cliEnv() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve(cliResult(status, stdout, stderr)));
  });
}

/** Start-up on a busy shared machine can take minutes (migrations, Next.js warming up). */
async function waitForStart(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited during start-up:\n${serverOutput}`);
    try {
      if ((await request(port, "/health")).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`server did not start:\n${serverOutput}`);
}

beforeAll(async () => {
  const installing = installSdk();
  // Awaited below with the server's start; handled now, so a failure meanwhile is not reported as unhandled.
  installing.catch(() => undefined);
  const app = sharedAppBuild(path.join(root, "bench/.work/cli"));
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stub = await startStubProvider();
  const provider = { GITHUB_URL: stub.url, GITHUB_API_URL: stub.apiUrl, GITHUB_TOKEN: stub.token! };
  server = spawn(process.execPath, ["server.mjs"], {
    cwd: app,
    env: {
      ...benchEnv,
      ...provider,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      DATA_DIR: path.join(work, "data"),
      ADMIN_API_KEY: ADMIN_KEY,
      DEV_LOGIN: "1",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  server.stdout!.on("data", (chunk) => (serverOutput += chunk));
  await Promise.all([installing, waitForStart(server)]);
}, 1_200_000);

afterAll(async () => {
  if (server) await stopProcess(server);
  await stub?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the svc-forge CLI against a running server", () => {
  let token: string;

  it("takes a user from login to a merged change, a clone and an issue", async () => {
    token = (await api("POST", "/api/admin/users", { "x-admin-api-key": ADMIN_KEY }, { username: "carol" })).json.token;
    expect(cli(["login", "--url", base, "--token", token]).json).toMatchObject({
      loggedIn: true,
      user: { username: "carol" },
    });
    expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);
    expect(cli(["whoami"]).json.username).toBe("carol");

    expect(cli(["projects", "create", "demo"]).json).toMatchObject({ path: "@carol/demo", visibility: "private" });
    expect(cli(["projects", "list"]).json.projects.map((p: { slug: string }) => p.slug)).toContain("demo");
    expect(cli(["workspace", "create", "@carol/demo", "--name", "ws1"]).json.workspace).toBe("ws1");
    fs.writeFileSync(path.join(work, "hello.txt"), "hello from the CLI\n");
    expect(cli(["workspace", "commit", "ws1", "--project", "@carol/demo", "-m", "add hello", "hello.txt"]).status).toBe(
      0,
    );

    const opened = cli(["change", "open", "@carol/demo", "--workspace", "ws1"]).json;
    expect(["accepted", "needs_changes"]).toContain(opened.change.status);
    const id = opened.change.id;
    expect(cli(["change", "show", id]).json.change.id).toBe(id);
    // By its number in the project, as `12` or `#12`; a number without --project is a usage error.
    const number = String(opened.change.number);
    expect(cli(["change", "show", number, "--project", "@carol/demo"]).json.change.id).toBe(id);
    expect(cli(["change", "show", `#${number}`, "--project", "@carol/demo"]).json.change.id).toBe(id);
    expect(cli(["change", "show", number]).status).toBe(2);
    expect(cli(["change", "review", id, "--verdict", "comment", "--comment", "looks right"]).json.review).toBeDefined();
    expect(cli(["change", "merge", id]).json).toMatchObject({ merged: true, changeId: id, strategy: "merge" });
    expect(
      cli(["change", "list", "@carol/demo", "--status", "merged"]).json.changes.map((c: { id: string }) => c.id),
    ).toEqual([id]);

    // Merge when ready: the server's queue lands it; `change watch` exits 0 at the merge.
    fs.writeFileSync(path.join(work, "queued.txt"), "through the queue\n");
    expect(
      cli(["workspace", "commit", "ws1", "--project", "@carol/demo", "-m", "add queued", "queued.txt"]).status,
    ).toBe(0);
    const next = cli(["change", "open", "@carol/demo", "--workspace", "ws1"]).json.change.id;
    expect(cli(["change", "queue", next]).json).toMatchObject({ queued: true, changeId: next });
    expect(cli(["change", "watch", next]).status).toBe(0);
    expect(cli(["queue", "list", "@carol/demo"]).json).toEqual({ entries: [], mergedLastHour: 2 });
    const notQueued = cli(["change", "dequeue", next]);
    expect([notQueued.status, notQueued.stderr]).toEqual([1, expect.stringContaining("404")]);

    expect(cli(["clone", "@carol/demo", "demo-clone"]).status).toBe(0);
    expect(fs.readFileSync(path.join(work, "demo-clone/hello.txt"), "utf8")).toBe("hello from the CLI\n");
    expect(fs.readFileSync(path.join(work, "demo-clone/.git/config"), "utf8")).not.toContain(token);
    // A private project: git fetches with the token the installed CLI's credential helper answers.
    const fetched = spawnSync("git", ["-C", path.join(work, "demo-clone"), "fetch", "origin"], {
      env: { ...cliEnv(), GIT_TERMINAL_PROMPT: "0" },
      encoding: "utf8",
    });
    expect([fetched.status, fetched.stderr]).toEqual([0, ""]);

    // Issues count on their own, from 1, whatever changes the project has.
    expect(cli(["issue", "open", "@carol/demo", "--title", "a bug", "--body", "details"]).json.issue.number).toBe(1);
    expect(
      cli(["issue", "list", "@carol/demo", "--status", "open"]).json.issues.map((i: { title: string }) => i.title),
    ).toEqual(["a bug"]);

    const missing = cli(["change", "show", "00000000-0000-0000-0000-000000000000"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("404");
  }, 300_000);

  it("the installed SDK, imported by its name, type-checks in a TypeScript project and reads the service", async () => {
    fs.writeFileSync(
      path.join(sdk, "use.mts"),
      [
        `import { createSvcClient, projectParams, type SvcError } from "@svc-forge/client";`,
        `const svc = createSvcClient({ baseUrl: ${JSON.stringify(base)}, token: ${JSON.stringify(token)} });`,
        `const { data, error } = await svc.GET("/api/projects/{namespace}/{slug}", { params: { path: projectParams("@carol/demo") } });`,
        `const failure: SvcError | undefined = error;`,
        `const visibility: "public" | "private" | undefined = data?.visibility;`,
        `// @ts-expect-error: a path the service does not have`,
        `await svc.GET("/api/no-such-route");`,
        `console.log(JSON.stringify({ path: data?.path, visibility, failure }));`,
      ].join("\n"),
    );
    // The user's TypeScript finds the types through the package's exports (its schema.d.ts too:
    // the wrong path above is an error), and Node runs what it emits, the SDK resolved by name.
    const compiled = spawnSync(
      path.join(root, "node_modules/.bin/tsc"),
      ["--strict", "--skipLibCheck", "--module", "nodenext", "--target", "es2023", "--lib", "es2023,dom", "use.mts"],
      { cwd: sdk, encoding: "utf8" },
    );
    expect(compiled.stdout + compiled.stderr).toBe("");
    const run = spawnSync(process.execPath, ["use.mjs"], { cwd: sdk, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ path: "@carol/demo", visibility: "private" });
  }, 120_000);

  it("follows the README: a dev-login session mints a token, the Origin header guards cookie writes", async () => {
    const login = await api("POST", "/api/auth/dev-login", { origin: base }, { username: "dave" });
    expect(login.status).toBe(200);
    const cookie = String(login.headers["set-cookie"]).split(";")[0];
    expect((await api("POST", "/api/users/me/tokens", { cookie }, { name: "cli" })).status).toBe(403);
    const minted = await api(
      "POST",
      "/api/users/me/tokens",
      { cookie, origin: base },
      { name: "cli", scope: "read_write" },
    );
    expect(minted.status).toBe(201);
    const { plaintext } = minted.json;
    expect(cli(["login", "--url", base, "--token", plaintext]).json.user.username).toBe("dave");
  });

  it("logs one JSON line per request with its id, identity kind and route pattern, and never a token", async () => {
    const res = await api("GET", "/api/projects/@carol/demo/files", {
      authorization: `Bearer ${token}`,
      "x-request-id": "cli-e2e-log-1",
    });
    expect(res.headers["x-request-id"]).toBe("cli-e2e-log-1");
    const etag = String(res.headers.etag);
    expect(
      (await api("GET", "/api/projects/@carol/demo/files", { authorization: `Bearer ${token}`, "if-none-match": etag }))
        .status,
    ).toBe(304);
    const deadline = Date.now() + 5000;
    while (!serverOutput.includes("cli-e2e-log-1") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const line = serverOutput.split("\n").find((entry) => entry.includes("cli-e2e-log-1"))!;
    expect(JSON.parse(line)).toMatchObject({
      msg: "request",
      requestId: "cli-e2e-log-1",
      method: "GET",
      identity: "user",
      route: "/api/projects/{namespace}/{slug}/files",
      status: 200,
    });
    expect(serverOutput).not.toContain(token);
  });

  it("logs one line per web page, written once its status is known, and still one per API request", async () => {
    const login = await api("GET", "/login");
    const missing = await api("GET", "/no-such-page");
    await api("GET", "/api/health", { "x-request-id": "cli-e2e-page-api" });
    expect([login.status, missing.status]).toEqual([200, 404]);
    const linesOf = (requestId: string | string[] | undefined) =>
      serverOutput
        .split("\n")
        .filter((entry) => entry.includes(`"requestId":"${String(requestId)}"`))
        .map((entry) => JSON.parse(entry));
    const ids = [login.headers["x-request-id"], missing.headers["x-request-id"], "cli-e2e-page-api"];
    const deadline = Date.now() + 5000;
    while (ids.some((id) => linesOf(id).length === 0) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(linesOf(login.headers["x-request-id"])).toEqual([
      expect.objectContaining({
        msg: "request",
        method: "GET",
        route: "page",
        identity: "anonymous",
        status: 200,
        durationMs: expect.any(Number),
      }),
    ]);
    expect(linesOf(missing.headers["x-request-id"])).toEqual([
      expect.objectContaining({ msg: "request", route: "page", status: 404 }),
    ]);
    expect(linesOf("cli-e2e-page-api")).toEqual([expect.objectContaining({ route: "/api/health", status: 200 })]);
  });

  it("imports from the hosting provider and watches the import to its end: exit 0 when it completes, 1 when it fails", async () => {
    expect(cli(["login", "--url", base, "--token", token]).json.user.username).toBe("carol");
    stub.seed("octo", "hello", [{ "README.md": "upstream\n" }, { "src/app.ts": "export {};\n" }]);
    const started = await cliServing(["import", "start", "@carol/imported", "--url", `${stub.url}/octo/hello`]);
    expect(started.json, started.stderr).toMatchObject({
      path: "@carol/imported",
      status: "queued",
      source: { repo: "hello", branch: "main" },
    });
    const watched = await cliServing(["import", "watch", "@carol/imported", "--interval", "0.2"]);
    expect(watched.status, watched.stderr).toBe(0);
    expect(watched.json).toMatchObject({
      status: "completed",
      failureCategory: null,
      source: { owner: "octo", repo: "hello" },
    });
    const lines = watched.stderr.trim().split("\n");
    // One line per change (status, phase, objects received); the last is the end.
    for (const line of lines)
      expect(line).toMatch(
        /^(queued|running|completed)( cloning| checking| finalizing)?( \d+% \(\d+\/\d+ objects\))?$/,
      );
    expect(lines.at(-1)).toMatch(/^completed 100% /);
    expect(new Set(lines).size).toBe(lines.length);
    expect((await cliServing(["import", "watch", "@carol/imported"])).stderr.trim()).toBe(lines.at(-1));
    const files = await api("GET", "/api/projects/@carol/imported/files", { authorization: `Bearer ${token}` });
    expect(files.json.files).toEqual(["README.md", "src/app.ts"]);

    // The provider answers git with 404 (a repository gone upstream): the job fails, and so does the watch.
    stub.fault = 404;
    stub.faultScope = "git";
    try {
      expect(
        (await cliServing(["import", "start", "@carol/gone", "--url", `${stub.url}/octo/hello`])).json.status,
      ).toBe("queued");
      const failed = await cliServing(["import", "watch", "@carol/gone", "--interval", "0.2"]);
      expect(failed.status).toBe(1);
      expect(failed.stderr).toMatch(/^failed( \w+)* NOT_FOUND$/m);
      expect(failed.stderr).toMatch(/svc-forge: import failed: .+ \(NOT_FOUND\)/);
    } finally {
      stub.fault = null;
    }
    expect((await cliServing(["import", "watch", "@carol/nothing-here"])).stderr).toContain("404");
  }, 300_000);
});
