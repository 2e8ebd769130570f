// A fleet of workers, each holding the least it needs (docs/agents.md):
//
//   SVC_URL=http://localhost:3000 SVC_TOKEN=svc_user_... npx tsx examples/fleet-orchestrator.ts @alice/demo 3
//
// The orchestrator (the project's owner, or an agent with write access) makes one workspace per
// worker and mints one workspace key for it. Each worker, holding only its key, commits, opens a
// change and waits on the change's event stream (no polling). The changes land through the merge
// queue (the orchestrator queues each one as the owner; a project whose policy says
// `merge.autoQueue: true` needs not even that), and every key ends revoked by the merge itself: the
// orchestrator revokes nothing.
import { createSvcClient, projectParams, watchChange, type ChangeEvent, type SvcClient } from "../client/index";

export interface FleetResult {
  worker: number;
  changeId: string;
  outcome: string;
  events: string[];
  keyId: string;
  keyRevokedReason: string | null;
}

const unwrap = <T>(result: { data?: T; error?: unknown; response: Response }): T => {
  if (result.data === undefined) throw new Error(`${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
};

/** One worker: it knows its key, its workspace and the project's id, and nothing else. */
async function runWorker(
  baseUrl: string,
  key: string,
  projectId: string,
  project: { namespace: string; slug: string },
  workspace: string,
  worker: number,
  fetchFn?: typeof fetch,
) {
  const svc = createSvcClient({ baseUrl, token: key, fetch: fetchFn });
  unwrap(
    await svc.POST("/api/workspaces/{name}/commit", {
      params: { path: { name: workspace } },
      body: {
        projectId,
        message: `worker ${worker}`,
        files: { [`workers/${worker}.txt`]: `done by worker ${worker}\n` },
      },
    }),
  );
  const opened = unwrap(
    await svc.POST("/api/projects/{namespace}/{slug}/changes", { params: { path: project }, body: { workspace } }),
  );
  const events: ChangeEvent[] = [];
  const outcome = watchChange(opened.change.id, {
    baseUrl,
    token: key,
    fetch: fetchFn,
    onEvent: (event) => events.push(event),
  });
  return { changeId: opened.change.id, outcome, events };
}

/** The orchestrator's side: workspaces and keys out, outcomes in. `land` hands a change to whatever lands it (default: the queue). */
export async function runFleet(options: {
  baseUrl: string;
  token: string;
  project: string;
  workers: number;
  fetch?: typeof fetch;
  land?: (svc: SvcClient, changeId: string) => Promise<void>;
}): Promise<FleetResult[]> {
  const { baseUrl, token } = options;
  const svc = createSvcClient({ baseUrl, token, fetch: options.fetch });
  const project = projectParams(options.project);
  const { id: projectId } = unwrap(await svc.GET("/api/projects/{namespace}/{slug}", { params: { path: project } }));
  // "Merge when ready": the queue lands each change on the base it will really land on, in order,
  // so no worker's change goes stale because another landed first.
  const land =
    options.land ??
    (async (client: SvcClient, changeId: string) =>
      void unwrap(
        await client.POST("/api/changes/{id}/queue", {
          params: { path: { id: changeId } },
          body: { strategy: "merge" },
        }),
      ));

  const handedOut = await Promise.all(
    Array.from({ length: options.workers }, async (_, worker) => {
      const ws = unwrap(
        await svc.POST("/api/workspaces/{namespace}/{slug}/workspaces", {
          params: { path: project },
          body: { name: `fleet-${Date.now().toString(36)}-${worker}` },
        }),
      );
      const minted = unwrap(
        await svc.POST("/api/workspaces/{namespace}/{slug}/workspaces/{workspace}/keys", {
          params: { path: { ...project, workspace: ws.workspace } },
          body: { ttlMinutes: 30, name: `worker ${worker}` },
        }),
      );
      return { worker, workspace: ws.workspace, keyId: minted.key.id, key: minted.plaintext };
    }),
  );

  const running = await Promise.all(
    handedOut.map((w) => runWorker(baseUrl, w.key, projectId, project, w.workspace, w.worker, options.fetch)),
  );
  for (const { changeId } of running) await land(svc, changeId);

  const results: FleetResult[] = [];
  for (const [index, run] of running.entries()) {
    const final = await run.outcome;
    const { workspace, keyId, worker } = handedOut[index];
    const keys = unwrap(
      await svc.GET("/api/workspaces/{namespace}/{slug}/workspaces/{workspace}/keys", {
        params: { path: { ...project, workspace }, query: { revoked: "true" } },
      }),
    );
    results.push({
      worker,
      changeId: run.changeId,
      outcome: final.data.change.status,
      events: run.events.map((event) => event.event),
      keyId,
      keyRevokedReason: keys.keys.find((key) => key.id === keyId)?.revokedReason ?? null,
    });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [project, workers = "3"] = process.argv.slice(2);
  const baseUrl = process.env.SVC_URL ?? "http://localhost:3000";
  const token = process.env.SVC_TOKEN;
  if (!project || !token) {
    console.error("usage: SVC_URL=... SVC_TOKEN=... tsx examples/fleet-orchestrator.ts @namespace/slug [workers]");
    process.exit(2);
  }
  const results = await runFleet({ baseUrl, token, project, workers: Number(workers) });
  console.log(JSON.stringify(results, null, 2));
  process.exitCode = results.every((result) => result.outcome === "merged" && result.keyRevokedReason === "merged")
    ? 0
    : 1;
}
