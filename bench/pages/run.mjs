// Server time of the heaviest web pages under `next start` (a throwaway build of HEAD under
// bench/.work/): the project page of a 5,000-file repository, the change page of a 500-file diff
// (one line rewritten per file) and of a 100-file diff (three edits in each 100-line TypeScript
// file, the shape of a real review), a highlighted 100-line file, the issues list (ISSUES issues,
// labelled and commented) and the settings page (issue 44 names these four), beside the JSON API routes
// reading the same data in the same run (GET .../files and GET /api/changes/{id}), and GET /health
// as the floor. Requests go one at a time on loopback, so latency is the server's time per page.
// Reports p50/p99, the ratio to the baseline, HTML bytes and the page's size over its size without
// <script> elements (issue 29: at most 2.2x). `--dump DIR` writes each page's HTML and its inline
// RSC payload (the `self.__next_f.push` chunks, decoded) there, to see what the payload repeats.
// Usage: node bench/pages/run.mjs [--files 5000] [--diff 500] [--review 100] [--issues 100] [--requests 40] [--app <built app>] [--dump DIR]
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  boundedLoad,
  buildAppCopy,
  request,
  root,
  startNext,
  stopProcess,
  waitForServer,
} from "../support/next-app.mjs";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    diff: { type: "string", default: "500" },
    review: { type: "string", default: "100" },
    issues: { type: "string", default: "100" },
    requests: { type: "string", default: "40" },
    app: { type: "string" },
    dump: { type: "string" },
  },
});
const FILES = Number(values.files);
const DIFF = Number(values.diff);
const REVIEW = Number(values.review);
const ISSUES = Number(values.issues);
const REQUESTS = Number(values.requests);
const PORT = 3907;
const KEY = "bench-key";
const work = path.join(root, "bench/.work/pages");

const app = values.app ? path.resolve(root, values.app) : buildAppCopy(work);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-pages-"));
const logFile = path.join(work, "server.log");
fs.mkdirSync(work, { recursive: true });
const child = startNext(
  app,
  PORT,
  { DATA_DIR: dataDir, ADMIN_API_KEY: KEY, RATE_LIMIT_PER_MINUTE: "100000000", BASE_URL: `http://127.0.0.1:${PORT}` },
  { logFile },
);
const step = (what) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${what}`);

/**
 * A set-up call on a connection of its own: the default agent would reuse a kept-alive socket
 * that the server closed while pushFiles' git held the event loop (a "socket hang up").
 */
async function json(method, urlPath, token, body) {
  const headers = {
    "content-type": "application/json",
    ...(token === KEY ? { "x-admin-api-key": KEY } : { authorization: `Bearer ${token}` }),
  };
  const res = await request(PORT, urlPath, {
    method,
    headers,
    agent: false,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body);
}

/**
 * A 100-line TypeScript module (doc comments, template strings, generics), `edited` with three
 * conditions changed the way a review would change them.
 */
function codeFile(i, edited = false) {
  const lines = [
    `// Module ${i}: item loaders for the page benchmark.`,
    `import { readFile } from "node:fs/promises";`,
    "",
  ];
  for (let f = 0; f < 12; f++) {
    const condition = edited && f % 4 === 2 ? "retries <= 0" : "retries < 0";
    lines.push(
      `/** Reads item ${f} of module ${i} and answers its parsed value, or null when it is missing. */`,
      `export async function loadItem${f}(path: string, retries = ${f % 4}): Promise<Record<string, number> | null> {`,
      `  const text = await readFile(\`\${path}/item-${f}.json\`, "utf8").catch(() => null);`,
      `  if (text === null || ${condition}) return null;`,
      `  const value = JSON.parse(text) as Record<string, number>;`,
      `  return { ...value, index: ${f}, module: ${i} };`,
      "}",
      "",
    );
  }
  return lines.join("\n");
}

/** FILES files and REVIEW TypeScript modules pushed with git (one commit) onto the project's default branch. */
function pushFiles(remote, token) {
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-pages-clone-"));
  const git = (...args) =>
    execFileSync("git", ["-c", `http.extraHeader=Authorization: Bearer ${token}`, ...args], {
      cwd: clone,
      stdio: ["ignore", "ignore", "inherit"],
    });
  git("clone", "-q", remote, ".");
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(clone, `src/module${Math.floor(i / 100)}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`);
  }
  fs.mkdirSync(path.join(clone, "lib"));
  for (let i = 0; i < REVIEW; i++) fs.writeFileSync(path.join(clone, `lib/code${i}.ts`), codeFile(i));
  fs.writeFileSync(path.join(clone, "README.md"), "# Big\n\nA repository of many files.\n");
  git("add", "-A");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "many files");
  git("push", "-q", "origin", "HEAD");
  fs.rmSync(clone, { recursive: true, force: true });
}

/** The inline RSC payload of a page: the strings its `self.__next_f.push([1, "..."])` scripts carry, joined. */
const payloadOf = (html) =>
  [...html.matchAll(/<script\b[^>]*>self\.__next_f\.push\((\[[\s\S]*?\])\)<\/script>/g)]
    .map((match) => JSON.parse(match[1]))
    .filter(([kind]) => kind === 1)
    .map(([, chunk]) => chunk)
    .join("");

async function measure(name, urlPath, headers, dumpAs) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let bytes = 0;
  let markup = 0;
  let body = "";
  const send = async () => {
    const res = await request(PORT, urlPath, { headers, agent });
    body = res.body;
    bytes = Buffer.byteLength(res.body);
    // The page without its <script> elements: what the framework's inline payload repeats.
    markup = Buffer.byteLength(res.body.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ""));
    return res.status === 200;
  };
  await boundedLoad(Math.max(3, Math.ceil(REQUESTS / 5)), 1, send);
  const result = await boundedLoad(REQUESTS, 1, send);
  agent.destroy();
  if (result.failures) throw new Error(`${name}: ${result.failures} requests failed`);
  if (values.dump && dumpAs) {
    fs.mkdirSync(values.dump, { recursive: true });
    fs.writeFileSync(path.join(values.dump, `${dumpAs}.html`), body);
    fs.writeFileSync(path.join(values.dump, `${dumpAs}.rsc.txt`), payloadOf(body));
  }
  return { name, ...result, bytes, markup };
}

/** A first start on a new PGlite database can take minutes on a busy machine: up to three 90 s waits. */
async function started() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await waitForServer(PORT, child);
    } catch (error) {
      if (attempt === 3 || child.exitCode !== null) throw error;
    }
  }
}

try {
  step("starting the server");
  await started();
  const user = await json("POST", "/api/admin/users", KEY, { username: `pages${Date.now().toString(36)}` });
  const token = user.token;
  const ns = `@${user.user.username}`;
  const big = await json("POST", "/api/projects", token, { name: "big", visibility: "public" });
  step(`pushing ${FILES} files`);
  pushFiles(big.remote, token);
  const { defaultBranch } = await json("GET", `/api/projects/${ns}/big/branches`, token);
  await json("POST", `/api/workspaces/${ns}/big/workspaces`, token, { name: "wide" });
  const changed = {};
  for (let i = 0; i < DIFF; i++)
    changed[`src/module${Math.floor(i / 100)}/file${i}.ts`] = `export const value${i} = ${i + 1};\n// changed\n`;
  step(`committing ${DIFF} changed files and proposing the change`);
  await json("POST", "/api/workspaces/wide/commit", token, {
    projectId: big.id,
    message: "touch many",
    files: changed,
  });
  const { change } = await json("POST", `/api/projects/${ns}/big/changes`, token, { workspace: "wide" });
  await json("POST", `/api/workspaces/${ns}/big/workspaces`, token, { name: "review" });
  const edited = {};
  for (let i = 0; i < REVIEW; i++) edited[`lib/code${i}.ts`] = codeFile(i, true);
  step(`committing ${REVIEW} edited modules and proposing the change`);
  await json("POST", "/api/workspaces/review/commit", token, {
    projectId: big.id,
    message: "stricter retries",
    files: edited,
  });
  const { change: review } = await json("POST", `/api/projects/${ns}/big/changes`, token, { workspace: "review" });

  step(`opening ${ISSUES} issues`);
  const issuesPath = `/api/projects/${ns}/big/issues`;
  for (let i = 0; i < ISSUES; i++) {
    const { issue } = await json("POST", issuesPath, token, { title: `Issue ${i}`, body: `The body of issue ${i}.` });
    await json("PATCH", `${issuesPath}/${issue.number}`, token, { labels: [`area-${i % 5}`, "bench"] });
    if (i % 3 === 0) await json("POST", `${issuesPath}/${issue.number}/comments`, token, { body: "A comment." });
  }

  const auth = { authorization: `Bearer ${token}` };
  step("measuring");
  const rows = [];
  rows.push(await measure("GET /health (floor)", "/health", {}));
  const filesApi = await measure(
    `GET /api/projects/${ns}/big/files (JSON, ${FILES + 1} paths)`,
    `/api/projects/${ns}/big/files`,
    auth,
  );
  const projectPage = await measure(
    `GET /${ns}/big (project page, ${FILES + REVIEW + 1} files)`,
    `/${ns}/big`,
    auth,
    "project",
  );
  const filePage = await measure(
    `GET /${ns}/big/blob/${defaultBranch}/lib/code0.ts (file page, 100 lines highlighted)`,
    `/${ns}/big/blob/${defaultBranch}/lib/code0.ts`,
    auth,
    "file",
  );
  const changeApi = await measure("GET /api/changes/{id} (JSON, no diff)", `/api/changes/${change.id}`, auth);
  const changePage = await measure(
    `GET /${ns}/big/changes/{id} (change page, ${DIFF}-file diff)`,
    `/${ns}/big/changes/${change.id}`,
    auth,
    `change-${DIFF}`,
  );
  const reviewPage = await measure(
    `GET /${ns}/big/changes/{id} (change page, ${REVIEW}-file diff of 3 edits each)`,
    `/${ns}/big/changes/${review.id}`,
    auth,
    `change-${REVIEW}`,
  );
  const anonymousPage = await measure(
    `GET /${ns}/big/changes/{id} (the same, signed out)`,
    `/${ns}/big/changes/${review.id}`,
    {},
    `change-${REVIEW}-anonymous`,
  );
  const issuesApi = await measure(`GET ${issuesPath} (JSON, ${ISSUES} issues)`, issuesPath, auth);
  const issuesPage = await measure(
    `GET /${ns}/big/issues (issues list, ${ISSUES} issues)`,
    `/${ns}/big/issues`,
    auth,
    "issues",
  );
  const settingsPage = await measure(
    `GET /${ns}/big/settings (settings page)`,
    `/${ns}/big/settings`,
    auth,
    "settings",
  );
  rows.push(
    filesApi,
    projectPage,
    filePage,
    changeApi,
    changePage,
    reviewPage,
    anonymousPage,
    issuesApi,
    issuesPage,
    settingsPage,
  );

  console.log(`\npages: one request at a time on loopback, ${REQUESTS} each after warm-up\n`);
  console.log("| route | p50 ms | p99 ms | HTML/JSON bytes | bytes / bytes without <script> |");
  console.log("|---|---|---|---|---|");
  for (const row of rows)
    console.log(
      `| ${row.name} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.bytes} | ${(row.bytes / row.markup).toFixed(2)} |`,
    );
  console.log(
    `\nproject page / files JSON route: ${(projectPage.p50 / filesApi.p50).toFixed(2)}x (p50); target at most 100 ms: ${projectPage.p50.toFixed(1)} ms`,
  );
  console.log(
    `change page / change JSON route: ${(changePage.p50 / changeApi.p50).toFixed(2)}x (p50); target at most 300 ms: ${changePage.p50.toFixed(1)} ms`,
  );
} catch (error) {
  console.error(`failed; the server's log is ${logFile}`);
  throw error;
} finally {
  await stopProcess(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
