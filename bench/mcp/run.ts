// CPU per call of the MCP endpoint against the REST route it wraps: a `get_change` tool call
// (POST /mcp, stateless, JSON response; one SDK server and transport per request, as served) vs
// GET /api/changes/{id} (the baseline) for the same change, same bearer token, both handlers
// in-process and sequential. Rounds alternate the two so drift hits both alike. Embedded PGlite
// unless DATABASE_URL is set.
// Usage: npx tsx bench/mcp/run.ts [--requests 2000] [--rounds 3]
import { api, cpuPerCall, finishBench, inProcessBench, median } from "../support/in-process";

const { requests: REQUESTS, rounds: ROUNDS, dataDir } = inProcessBench("mcp");
const { handleRestRequest } = await import("@/server/api/rest");
const { handleMcpRequest } = await import("@/server/mcp");

const restCall = (token: string, changeId: string) => () =>
  handleRestRequest(
    new Request(`http://bench.test/api/changes/${changeId}`, { headers: { authorization: `Bearer ${token}` } }),
  );

const toolCall = (token: string, changeId: string) => {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_change", arguments: { change: changeId } },
  });
  const headers = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
  return () => handleMcpRequest(new Request("http://bench.test/mcp", { method: "POST", headers, body }));
};

try {
  const owner = await api("POST", "/admin/users", null, { username: "owner" });
  const project = await api("POST", "/projects", owner.token, {
    name: "bench",
    files: { "README.md": "hi\n", "src/a.ts": "export const a = 1;\n" },
  });
  await api("POST", `/workspaces/${project.path}/workspaces`, owner.token, { name: "ws" });
  await api("POST", "/workspaces/ws/commit", owner.token, {
    projectId: project.id,
    message: "change a",
    files: { "src/a.ts": "export const a = 2;\n" },
  });
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
  console.log(
    `${REQUESTS} sequential calls x ${ROUNDS} rounds; ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; node ${process.version}`,
  );
  console.log(`GET /api/changes/{id} (baseline): ${median(restTimes).toFixed(3)} ms CPU per call`);
  console.log(`MCP get_change tool call:         ${median(toolTimes).toFixed(3)} ms CPU per call`);
  console.log(`ratio: ${(median(toolTimes) / median(restTimes)).toFixed(2)}x (target <= 1.3x)`);
} finally {
  await finishBench(dataDir);
}
