// Deployments: merge to provider call. A change is merged through the REST route handler (called
// in-process with a Request, as Next.js would); the merge's transaction requests the deployment,
// the request hands it to the deploy queue, the embedded Inngest executor runs the deploy job,
// which decrypts the entry's secrets and POSTs the signed webhook to a real HTTP receiver on
// 127.0.0.1. Latency runs from just before the merge request to the receiver having read the
// body. Baseline, measured in the same run: the merge request alone, on a project whose policy
// deploys nothing (the ratio says what deploying adds on top of merging). Embedded PGlite in a
// throwaway DATA_DIR, or the PostgreSQL of DATABASE_URL (an empty database).
// Usage: npx tsx bench/deployments/run.ts [--merges 40] [--gap 100]
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { merges: { type: "string", default: "40" }, gap: { type: "string", default: "100" } },
});
const MERGES = Number(values.merges);
// Pause between merges, so each one meets an idle executor rather than the previous job's bookkeeping.
const GAP_MS = Number(values.gap);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-deployments-"));
const ADMIN_KEY = "bench-admin-key";
Object.assign(process.env, {
  DATA_DIR: dataDir,
  BASE_URL: "http://bench.test",
  ADMIN_API_KEY: ADMIN_KEY,
  ALLOW_PRIVATE_TARGETS: "1",
  RATE_LIMIT_PER_MINUTE: "100000000",
  DEPLOY_SECRET_KEY: crypto.randomBytes(32).toString("base64"),
});

const { closeDatabase, database } = await import("@/server/db/client");
const { startEmbeddedExecutor } = await import("@/server/jobs/embedded");
const { functions } = await import("@/inngest/functions");
const { startReceiver } = await import("@/server/webhooks/test-receiver");
const { ms, percentile, rest } = await import("@/bench/support/in-process");
const pause = () => new Promise((resolve) => setTimeout(resolve, GAP_MS));

const receiver = await startReceiver(() => ({ status: 200, body: "deployed" }));
const executor = await startEmbeddedExecutor(functions);
try {
  const { token } = await rest("POST", "/api/admin/users", undefined, { username: "bench" }, 201, {
    "x-admin-api-key": ADMIN_KEY,
  });
  const policy = `deploys:\n  - { name: production, provider: webhook, url: "${receiver.url}", secrets: [DEPLOY_TOKEN], signWith: HOOK_KEY }\n`;
  const deploying = await rest(
    "POST",
    "/api/projects",
    token,
    { name: "deploying", files: { ".svc/policy.yml": policy } },
    201,
  );
  const plain = await rest("POST", "/api/projects", token, { name: "plain", files: { "README.md": "hi\n" } }, 201);
  for (const name of ["DEPLOY_TOKEN", "HOOK_KEY"])
    await rest("PUT", `/api/projects/${deploying.path}/secrets/${name}`, token, { value: `${name}-value` }, 201);

  let counter = 0;
  /** A proposed change of one new file (not timed). */
  async function changeOf(project: { id: string; path: string }) {
    const name = `ws${++counter}`;
    await rest("POST", `/api/workspaces/${project.path}/workspaces`, token, { name }, 201);
    await rest(
      "POST",
      `/api/workspaces/${name}/commit`,
      token,
      { projectId: project.id, message: "work", files: { [`f${counter}.txt`]: `${counter}\n` } },
      201,
    );
    return (await rest("POST", `/api/projects/${project.path}/changes`, token, { workspace: name }, 201)).change
      .id as string;
  }
  const load = os.loadavg()[0].toFixed(1);
  console.log(
    `node ${process.version}; ${os.cpus().length} CPUs (load ${load}); ${(await database()).kind}; embedded executor; webhook provider on 127.0.0.1`,
  );

  const baseline: number[] = [];
  const mergeWithDeploy: number[] = [];
  const toProvider: number[] = [];
  for (let i = 0; i < MERGES; i++) {
    const plainChange = await changeOf(plain);
    const t0 = performance.now();
    await rest("POST", `/api/changes/${plainChange}/merge`, token, undefined, 200);
    baseline.push(performance.now() - t0);
    await pause();

    const change = await changeOf(deploying);
    const expected = receiver.received.length + 1;
    const t1 = performance.now();
    await rest("POST", `/api/changes/${change}/merge`, token, undefined, 200);
    mergeWithDeploy.push(performance.now() - t1);
    const [arrived] = (await receiver.waitFor(expected, 30_000)).slice(expected - 1);
    toProvider.push(arrived.at - t1);
    await pause();
  }
  for (const list of [baseline, mergeWithDeploy, toProvider]) list.sort((a, b) => a - b);
  const p50 = (list: number[]) => percentile(list, 0.5);
  console.log(
    `baseline: merge alone (policy deploys nothing), ${MERGES} merges:  p50 ${ms(p50(baseline))}   p99 ${ms(percentile(baseline, 0.99))}`,
  );
  console.log(
    `merge request on a deploying project:  p50 ${ms(p50(mergeWithDeploy))}   p99 ${ms(percentile(mergeWithDeploy, 0.99))}   (${(p50(mergeWithDeploy) / p50(baseline)).toFixed(2)}x the baseline p50)`,
  );
  console.log(
    `merge to provider call (webhook received):  p50 ${ms(p50(toProvider))}   p99 ${ms(percentile(toProvider, 0.99))}   max ${ms(toProvider[toProvider.length - 1])}` +
      `   (${(p50(toProvider) / p50(baseline)).toFixed(2)}x the baseline p50; target p50 < 300 ms)`,
  );
} finally {
  await executor.stop();
  await receiver.close();
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
