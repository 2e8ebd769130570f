// What an instance keeps for the routes it has served: the production server of a build (PGlite,
// no load), asked once for each group of routes in turn, its resident size and JS heap after full
// collections measured after each group. A route's first request loads the build's chunks it needs,
// and their source text stays for the life of the process (docs/soak, round 32).
// Usage: node bench/routes-heap/run.mjs --app DIR [--port 3946]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { request, startNext, stopProcess, waitForServer } from "../support/next-app.mjs";

const { values } = parseArgs({ options: { app: { type: "string" }, port: { type: "string", default: "3946" } } });
if (!values.app) throw new Error("--app DIR: a production build (bench/support/next-app.mjs buildAppCopy)");
const port = Number(values.port);

const ROUTE_GROUPS = [
  ["health", ["/api/health"]],
  ["REST", ["/api/projects", "/api/users/me"]],
  ["git", ["/git-http/a/b.git/info/refs?service=git-upload-pack"]],
  ["tRPC", ["/api/trpc/health"]],
  ["OpenAPI", ["/api/openapi.json"]],
  ["MCP", ["/mcp"]],
  ["pages", ["/", "/login"]],
];

const work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-routes-heap-"));
const log = path.join(work, "heap.jsonl");
const lines = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const server = startNext(path.resolve(values.app), port, {
  DATA_DIR: path.join(work, "data"),
  ADMIN_API_KEY: "routes-heap-admin-key-0123456789abcdef",
  BASE_URL: `http://127.0.0.1:${port}`,
  LOG_LEVEL: "warn",
  ROUTES_HEAP_LOG: log,
  NODE_OPTIONS: `--expose-gc --import ${path.join(import.meta.dirname, "gc-on-signal.mjs")}`,
});

async function measure() {
  const before = lines().length;
  process.kill(server.pid, "SIGUSR2");
  while (lines().length === before) await sleep(100);
  return JSON.parse(lines().at(-1));
}

const rows = [];
try {
  await waitForServer(port, server, "/api/health");
  rows.push(["started", await measure()]);
  for (const [group, paths] of ROUTE_GROUPS) {
    for (const urlPath of paths) await request(port, urlPath);
    rows.push([`+ ${group}`, await measure()]);
  }
} finally {
  await stopProcess(server);
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`| routes served | RSS MB | heap used MB | heap committed MB |\n|---|---|---|---|`);
for (const [name, m] of rows) console.log(`| ${name} | ${m.rssMB} | ${m.heapUsedMB} | ${m.heapTotalMB} |`);
