// A fleet of agents of one owner on one project, driven over HTTP against a running server (shared
// by bench/fleet and bench/soak). Each agent loops: commit 3 new files to its own workspace, open a
// change, wait until it has landed, by the merge queue (the change's event stream ends when it
// merges) or by whatever `land(change)` the caller passes. An agent given several tasks works each
// in a workspace of its own, the same loop side by side (it does not wait for one change to land
// before it opens the next).
import http from "node:http";
import { request } from "./next-app.mjs";

/**
 * Error counts every request adds to; `api` answers {status, body} and never throws. Requests share
 * one keep-alive pool whose idle connections live 60 s (the server keeps them 65, keep-alive.mjs),
 * as a client that honours the server's Keep-Alive hint (undici, so fetch) keeps them: Node's global
 * agent drops an idle one after 5 s, so every agent waiting ~20 s for its change to land would open
 * a new connection per cycle, and a busy server accepts one per turn of its event loop.
 */
export function fleetClient(port, adminKey) {
  const agent = new http.Agent({ keepAlive: true, timeout: 60_000 });
  const counters = {
    status5xx: 0,
    staleBase: 0,
    reevaluations: 0,
    mergeConflicts: 0,
    otherFailures: 0,
    networkErrors: 0,
    /** The slowest answer's time to its whole body, and which request it was. */
    slowestRequest: { ms: 0, request: null },
  };
  async function api(method, url, token, body) {
    const headers = {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : { "x-admin-api-key": adminKey }),
    };
    let res;
    const started = performance.now();
    try {
      res = await request(port, url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        agent,
      });
    } catch {
      counters.networkErrors++;
      return { status: 0, body: null };
    }
    const ms = performance.now() - started;
    if (ms > counters.slowestRequest.ms) counters.slowestRequest = { ms: Math.round(ms), request: `${method} ${url}` };
    if (res.status >= 500) counters.status5xx++;
    let json = null;
    try {
      json = JSON.parse(res.body);
    } catch {
      // not JSON: counted by status only
    }
    if (json?.code === "STALE_BASE") counters.staleBase++;
    return { status: res.status, body: json };
  }
  async function ok(method, url, token, body) {
    const res = await api(method, url, token, body);
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /**
   * Follows a change's event stream until it merges (true), ends otherwise (false) or `until`
   * (performance.now() ms) passes (false); reconnects with Last-Event-ID when the stream drops.
   * After the merge it reads on to the stream's end (the server ends it there), so the connection
   * goes back to the pool for the agent's next commit instead of a new one for each cycle.
   */
  function landedByStream(changeId, token, until) {
    return new Promise((resolve) => {
      let lastId = null;
      let settled = false;
      let merged = false;
      let ended = false;
      const finish = (landed) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!ended) req?.destroy();
        resolve(landed);
      };
      // A merge seen before `until` counts even if the stream's end did not follow in time.
      const timer = setTimeout(() => finish(merged), Math.max(0, until - performance.now()));
      let req;
      const connect = () => {
        const headers = {
          authorization: `Bearer ${token}`,
          accept: "text/event-stream",
          ...(lastId ? { "last-event-id": lastId } : {}),
        };
        req = http.request(
          { host: "127.0.0.1", port, path: `/api/changes/${changeId}/events`, headers, agent },
          (res) => {
            if (res.statusCode >= 500) counters.status5xx++;
            if (res.statusCode !== 200) return (res.resume(), res.on("end", () => finish(false)));
            let buffer = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => {
              buffer += chunk;
              let cut;
              while ((cut = buffer.indexOf("\n\n")) >= 0) {
                const frame = buffer.slice(0, cut);
                buffer = buffer.slice(cut + 2);
                const field = (name) =>
                  frame
                    .split("\n")
                    .find((line) => line.startsWith(`${name}: `))
                    ?.slice(name.length + 2);
                if (field("id")) lastId = field("id");
                const data = field("data");
                const status = data ? JSON.parse(data).change?.status : undefined;
                if (status === "merged") merged = true;
                if (status === "rejected" || status === "needs_changes") return finish(false);
              }
            });
            res.on("end", () => {
              if (merged) {
                ended = true;
                finish(true);
              } else if (!settled) setTimeout(connect, 100);
            });
          },
        );
        req.on("error", () => (merged ? finish(true) : !settled && setTimeout(connect, 100)));
        req.end();
      };
      connect();
    });
  }
  return { counters, api, ok, landedByStream };
}

export const fileText = (agent, cycle, i) =>
  `// agent ${agent} cycle ${cycle} file ${i}\nexport const v = ${cycle * 3 + i};\n${"// filler line\n".repeat(30)}`;

/**
 * The owner, its project (with `policy` as .svc/policy.yml) and `count` agents, each with a
 * workspace per task (`workspace` is the first); then one cycle of the first agent landed by
 * `land(agent, change, until, fleet)`, before any clock starts (the server loads each route's
 * modules on first use).
 */
export async function setUpFleet(client, { count, policy, name = "fleet", land, files = {}, tasks = 1 }) {
  const { ok } = client;
  const owner = await ok("POST", "/api/admin/users", null, { username: `${name}-owner` });
  const project = await ok("POST", "/api/projects", owner.token, {
    name,
    visibility: "private",
    files: { "README.md": `${name}\n`, ".svc/policy.yml": policy, ...files },
  });
  const projectPath = `@${project.namespace ?? project.project?.namespace}/${project.slug ?? project.project?.slug}`;
  const projectId = project.id ?? project.project?.id;
  const agents = [];
  for (let i = 0; i < count; i++) {
    const { token } = await ok("POST", "/api/agents", owner.token, { name: `agent-${i}`, model: "bench" });
    const workspaces = Array.from({ length: tasks }, (_, task) => (task === 0 ? `agent-${i}` : `agent-${i}-t${task}`));
    for (const workspace of workspaces)
      await ok("POST", `/api/workspaces/${projectPath}/workspaces`, token, { name: workspace });
    agents.push({ index: i, token, workspace: workspaces[0], workspaces });
  }
  const fleet = { owner, projectPath, projectId, agents };
  await ok("POST", `/api/workspaces/${agents[0].workspace}/commit`, agents[0].token, {
    projectId,
    message: "warm-up",
    files: { "warm-up.txt": "w\n" },
  });
  const warm = await ok("POST", `/api/projects/${projectPath}/changes`, agents[0].token, {
    workspace: agents[0].workspace,
  });
  if (!(await land(agents[0], warm.change, performance.now() + 60_000, fleet))) {
    const { body } = await client.api("GET", `/api/changes/${warm.change.id}`, agents[0].token);
    throw new Error(
      `the warm-up change did not land in 60 s; it is ${body?.change?.status}, queue ${JSON.stringify(body?.queue)}, ` +
        `findings ${JSON.stringify((body?.evalRuns ?? []).flatMap((run) => run.findings))}`,
    );
  }
  return fleet;
}

const agentFiles = (agent, cycle) =>
  Object.fromEntries([0, 1, 2].map((i) => [`agent${agent}/c${cycle}/f${i}.ts`, fileText(agent, cycle, i)]));

/**
 * Every agent's every task loops until `deadline` (performance.now() ms): commit `files(agent,
 * cycle)`, open (`openQuery` appended; the change must answer one of `opens`), `land(agent, change,
 * until)` with `until` = deadline + drainMs. `onCycle({t0, t1, t2, t3, merged, agent, cycle,
 * change})` hears each cycle (t0 before the commit, t1 after it, t2 after the open, t3 after
 * landing). `agent` is the agent's index, or `<index>t<task>` for its tasks after the first.
 */
export async function runAgents(
  client,
  fleet,
  { deadline, drainMs, land, onCycle, files = agentFiles, opens = ["accepted"], openQuery = "" },
) {
  const { api, counters } = client;
  const loops = fleet.agents.flatMap((agent) =>
    agent.workspaces.map((workspace, task) => ({
      agent,
      workspace,
      worker: task === 0 ? agent.index : `${agent.index}t${task}`,
    })),
  );
  await Promise.all(
    loops.map(async ({ agent, workspace, worker }) => {
      for (let cycle = 0; performance.now() < deadline; cycle++) {
        const t0 = performance.now();
        const committed = await api("POST", "/api/workspaces/" + workspace + "/commit", agent.token, {
          projectId: fleet.projectId,
          message: `cycle ${cycle}`,
          files: files(worker, cycle),
        });
        if (committed.status !== 201) {
          counters.otherFailures++;
          continue;
        }
        const t1 = performance.now();
        const res = await api("POST", `/api/projects/${fleet.projectPath}/changes${openQuery}`, agent.token, {
          workspace,
        });
        const t2 = performance.now();
        const ids = { agent: worker, cycle, change: res.body?.change };
        if (res.status !== 201 || !opens.includes(res.body.change.status)) {
          counters.otherFailures++;
          onCycle({ t0, t1, t2, opened: false, ...ids });
          continue;
        }
        const merged = await land(agent, res.body.change, deadline + drainMs);
        onCycle({ t0, t1, t2, t3: performance.now(), opened: true, merged, ...ids });
      }
    }),
  );
}
