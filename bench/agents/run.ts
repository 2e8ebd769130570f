// Pushed outcomes and workspace keys (docs/contracts.md#agents), in-process (the route handlers in this
// process, no server):
// 1. A transition to its event on an open change event stream: from the start of the request that
//    makes it (a comment; a merge) to the frame read off the stream, p50/p99, beside the request's
//    own duration (the baseline: the event cannot come before the commit).
// 2. --streams open streams on one instance (over --changes changes): RSS after GC vs none open, and
//    the process's CPU while they idle (no transitions; keep-alives included) vs idle with none.
//    The streams' readers live in this process too, so both numbers are upper bounds.
// 3. CPU per GET /api/projects/{ns}/{slug} with a workspace key vs with an agent token of the same
//    owner, alternating rounds.
// Embedded PGlite unless DATABASE_URL is set. Usage:
//   npx tsx bench/agents/run.ts [--comments 50] [--merges 10] [--streams 1000] [--changes 10] [--idle-seconds 20] [--requests 2000] [--rounds 3]
import { parseArgs } from "node:util";
import v8 from "node:v8";
import vm from "node:vm";
import { api, benchEnvironment, cpuPerCall, finishBench, median, ms, percentile } from "../support/in-process";

const { values } = parseArgs({
  options: {
    comments: { type: "string", default: "50" },
    merges: { type: "string", default: "10" },
    streams: { type: "string", default: "1000" },
    changes: { type: "string", default: "10" },
    "idle-seconds": { type: "string", default: "20" },
    requests: { type: "string", default: "2000" },
    rounds: { type: "string", default: "3" },
  },
});
const COMMENTS = Number(values.comments);
const MERGES = Number(values.merges);
const STREAMS = Number(values.streams);
const CHANGES = Math.max(1, Math.min(Number(values.changes), STREAMS));
const IDLE_MS = Number(values["idle-seconds"]) * 1000;
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

const dataDir = benchEnvironment("agents");
const { changeEventsResponse } = await import("@/server/changes");
const { handleRestRequest } = await import("@/server/api/rest");

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const settledRss = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return process.memoryUsage().rss;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const sleep = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));

/** An open change event stream, read frame by frame. */
async function openStream(changeId: string, token: string) {
  const controller = new AbortController();
  const res = await changeEventsResponse(
    new Request(`http://bench.test/api/changes/${changeId}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    }),
  );
  if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next(): Promise<string | null> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) continue;
          return /^event: (.*)$/m.exec(block)?.[1] ?? "";
        }
        const chunk = await reader.read();
        if (chunk.done) return null;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    close() {
      controller.abort();
      void reader.cancel().catch(() => {});
    },
  };
}

let opened = 0;
async function openChange(token: string, path: string, projectId: string): Promise<string> {
  const workspace = `ws${++opened}`;
  await api("POST", `/workspaces/${path}/workspaces`, token, { name: workspace });
  await api("POST", `/workspaces/${workspace}/commit`, token, {
    projectId,
    message: `change ${opened}`,
    files: { [`f${opened}.txt`]: `${opened}\n` },
  });
  return (await api("POST", `/projects/${path}/changes`, token, { workspace })).change.id;
}

/** Starts `act`, answers [ms until the stream shows `event`, ms the request took]. */
async function timed(
  stream: Awaited<ReturnType<typeof openStream>>,
  event: string,
  act: () => Promise<unknown>,
): Promise<[number, number]> {
  const started = performance.now();
  let requestMs = 0;
  const acting = act().then(() => (requestMs = performance.now() - started));
  for (;;) {
    const seen = await stream.next();
    if (seen === null) throw new Error(`stream ended before ${event}`);
    if (seen === event) break;
  }
  const eventMs = performance.now() - started;
  await acting;
  return [eventMs, requestMs];
}

const report = (label: string, samples: Array<[number, number]>, target: string) => {
  const events = samples.map(([event]) => event).sort((a, b) => a - b);
  const requests = samples.map(([, request]) => request).sort((a, b) => a - b);
  // The event cannot come before the commit, which comes before the answer: what follows the answer is the push's own cost (or less).
  const after = samples.map(([event, request]) => Math.max(0, event - request)).sort((a, b) => a - b);
  console.log(
    `${label}: event p50 ${ms(percentile(events, 0.5))}, p99 ${ms(percentile(events, 0.99))} after the request started (the request itself: p50 ${ms(percentile(requests, 0.5))}, p99 ${ms(percentile(requests, 0.99))}); after its answer: p50 ${ms(percentile(after, 0.5))}, p99 ${ms(percentile(after, 0.99))}; ${samples.length} samples; ${target}`,
  );
};

try {
  const owner = await api("POST", "/admin/users", null, { username: "owner" });
  const project = await api("POST", "/projects", owner.token, { name: "bench", files: { "README.md": "hi\n" } });
  console.log(`${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; node ${process.version}`);

  // 1. Transition to event.
  const commented = await openChange(owner.token, project.path, project.id);
  const stream = await openStream(commented, owner.token);
  await stream.next();
  const comments: Array<[number, number]> = [];
  for (let i = 0; i < COMMENTS; i++)
    comments.push(
      await timed(stream, "change.commented", () =>
        api("POST", `/changes/${commented}/comments`, owner.token, { body: `comment ${i}` }),
      ),
    );
  stream.close();
  report("comment -> change.commented", comments, "target p50 <= 50 ms, p99 <= 250 ms");
  const merges: Array<[number, number]> = [];
  for (let i = 0; i < MERGES; i++) {
    const changeId = await openChange(owner.token, project.path, project.id);
    const merging = await openStream(changeId, owner.token);
    await merging.next();
    merges.push(
      await timed(merging, "change.merged", () => api("POST", `/changes/${changeId}/merge`, owner.token, {})),
    );
    merging.close();
  }
  report("merge -> change.merged", merges, "target p50 <= 50 ms, p99 <= 250 ms");

  // 2. Many open streams, idle.
  const targets: string[] = [];
  for (let i = 0; i < CHANGES; i++) targets.push(await openChange(owner.token, project.path, project.id));
  const idleCpu = async () => {
    const before = process.cpuUsage();
    await sleep(IDLE_MS);
    const used = process.cpuUsage(before);
    return ((used.user + used.system) / 1000 / IDLE_MS) * 100;
  };
  const rssNone = await settledRss();
  const cpuNone = await idleCpu();
  const streams = [];
  for (let i = 0; i < STREAMS; i++) {
    const open = await openStream(targets[i % CHANGES], owner.token);
    await open.next();
    streams.push(open);
  }
  const rssOpen = await settledRss();
  const cpuOpen = await idleCpu();
  console.log(
    `${STREAMS} open streams over ${CHANGES} changes: RSS ${mb(rssOpen)} vs ${mb(rssNone)} with none: +${mb(rssOpen - rssNone)} (target <= 50 MB)`,
  );
  console.log(
    `idle CPU over ${IDLE_MS / 1000} s: ${cpuOpen.toFixed(2)}% of a core with them open, ${cpuNone.toFixed(2)}% with none (target <= 1%)`,
  );
  for (const open of streams) open.close();

  // 3. A workspace key's request vs an agent token's.
  const agent = await api("POST", "/agents", owner.token, { name: "bot", model: "bench" });
  await api("POST", `/workspaces/${project.path}/workspaces`, owner.token, { name: "keyed" });
  const key = await api("POST", `/workspaces/${project.path}/workspaces/keyed/keys`, owner.token, { ttlMinutes: 1440 });
  const read = (token: string) => () =>
    handleRestRequest(
      new Request(`http://bench.test/api/projects/${project.path}`, { headers: { authorization: `Bearer ${token}` } }),
    );
  const isProject = (text: string) => JSON.parse(text).id === project.id;
  const warm = Math.min(200, REQUESTS);
  await cpuPerCall(read(agent.token), warm, isProject);
  await cpuPerCall(read(key.plaintext), warm, isProject);
  const agentTimes: number[] = [];
  const keyTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    agentTimes.push(await cpuPerCall(read(agent.token), REQUESTS, isProject));
    keyTimes.push(await cpuPerCall(read(key.plaintext), REQUESTS, isProject));
  }
  console.log(
    `GET /api/projects/{ns}/{slug}, ${REQUESTS} calls x ${ROUNDS} rounds: agent token ${median(agentTimes).toFixed(3)} ms CPU per call (baseline), workspace key ${median(keyTimes).toFixed(3)} ms`,
  );
  console.log(`ratio: ${(median(keyTimes) / median(agentTimes)).toFixed(2)}x (target <= 1.1x)`);
} finally {
  await finishBench(dataDir);
}
