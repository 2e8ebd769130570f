// CPU per call of the MCP endpoint against the REST route it wraps: a `get_change` tool call
// (POST /mcp, stateless, JSON response; one SDK server and transport per request, as served) vs
// GET /api/changes/{id} (the baseline) for the same change, same bearer token, both handlers
// in-process and sequential. Rounds alternate the two so drift hits both alike. Embedded PGlite
// unless DATABASE_URL is set.
// Usage: npx tsx bench/mcp/run.ts [--requests 2000] [--rounds 3]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { requests: { type: "string", default: "2000" }, rounds: { type: "string", default: "3" } } });
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

(process.env as Record<string, string>).NODE_ENV ??= "production";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-mcp-"));
Object.assign(process.env, { DATA_DIR: dataDir, BASE_URL: "http://bench.test", ADMIN_API_KEY: "bench", RATE_LIMIT_PER_MINUTE: "100000000" });

const { closeDatabase } = await import("@/server/db/client");
const { handleRestRequest } = await import("@/server/api/rest");
const { handleMcpRequest } = await import("@/server/mcp");

async function api(method: string, url: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  else headers["x-admin-api-key"] = "bench";
  const res = await handleRestRequest(new Request(`http://bench.test/api${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const restCall = (token: string, changeId: string) => () =>
  handleRestRequest(new Request(`http://bench.test/api/changes/${changeId}`, { headers: { authorization: `Bearer ${token}` } }));

const toolCall = (token: string, changeId: string) => {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_change", arguments: { change: changeId } } });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
  return () => handleMcpRequest(new Request("http://bench.test/mcp", { method: "POST", headers, body }));
};

/** Server CPU (this process: the handler runs in-process) per call for `count` sequential calls. */
async function cpuPerCall(send: () => Promise<Response>, count: number, check: (text: string) => boolean): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res = await send();
    const text = await res.text();
    if (res.status !== 200 || (i === 0 && !check(text))) throw new Error(`call failed: ${res.status} ${text.slice(0, 300)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

try {
  const owner = await api("POST", "/admin/users", null, { username: "owner" });
  const project = await api("POST", "/projects", owner.token, { name: "bench", files: { "README.md": "hi\n", "src/a.ts": "export const a = 1;\n" } });
  await api("POST", `/workspaces/${project.path}/workspaces`, owner.token, { name: "ws" });
  await api("POST", "/workspaces/ws/commit", owner.token, { projectId: project.id, message: "change a", files: { "src/a.ts": "export const a = 2;\n" } });
  const { change } = await api("POST", `/projects/${project.path}/changes`, owner.token, { workspace: "ws" });

  const rest = restCall(owner.token, change.id);
  const tool = toolCall(owner.token, change.id);
  const restOk = (text: string) => JSON.parse(text).change.id === change.id;
  const toolOk = (text: string) => JSON.parse(text).result?.structuredContent?.change?.id === change.id;
  const warm = Math.min(200, REQUESTS);
  await cpuPerCall(rest, warm, restOk);
  await cpuPerCall(tool, warm, toolOk);
  const restTimes: number[] = [];
  const toolTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    restTimes.push(await cpuPerCall(rest, REQUESTS, restOk));
    toolTimes.push(await cpuPerCall(tool, REQUESTS, toolOk));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`${REQUESTS} sequential calls x ${ROUNDS} rounds; ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; node ${process.version}`);
  console.log(`GET /api/changes/{id} (baseline): ${median(restTimes).toFixed(3)} ms CPU per call`);
  console.log(`MCP get_change tool call:         ${median(toolTimes).toFixed(3)} ms CPU per call`);
  console.log(`ratio: ${(median(toolTimes) / median(restTimes)).toFixed(2)}x (target <= 1.3x)`);
} finally {
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
