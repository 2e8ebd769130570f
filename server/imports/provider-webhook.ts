import { config } from "@/server/config";
import { db } from "@/server/db";
import { errorResponse, readBodyText } from "@/server/http";
import { PROVIDER_WEBHOOK_BYTES_MAX } from "@/server/limits";
import { verifyWebhookSignature } from "@/server/providers";
import { queueSync } from "./sync";

interface PushPayload {
  ref?: unknown;
  repository?: { name?: unknown; owner?: { login?: unknown; name?: unknown } };
}

/** The connected projects a push to `owner/repo` `ref` concerns (auto-sync on, import completed). */
async function projectsFollowing(payload: PushPayload): Promise<string[]> {
  const owner = payload.repository?.owner?.login ?? payload.repository?.owner?.name;
  const repo = payload.repository?.name;
  if (typeof owner !== "string" || typeof repo !== "string" || typeof payload.ref !== "string" || !payload.ref.startsWith("refs/heads/")) return [];
  const branch = payload.ref.slice("refs/heads/".length);
  const sources = await (await db()).projectSource.findMany({
    where: { owner: { equals: owner, mode: "insensitive" }, repo: { equals: repo, mode: "insensitive" }, branch, autoSyncEnabled: true, project: { importPending: false, deletingAt: null } },
    select: { projectId: true },
  });
  return sources.map((source) => source.projectId);
}

/**
 * POST /api/providers/github/webhook: 404 unless GITHUB_WEBHOOK_SECRET is set; 401 when
 * X-Hub-Signature-256 does not match the raw body. `ping` answers 200; a `push` to a connected
 * source's branch queues a sync (trigger `webhook`) for each project following it with auto-sync
 * on (200 with the count); any other event is 202 and ignored.
 */
export async function receiveProviderWebhook(req: Request): Promise<Response> {
  try {
    const secret = config.githubWebhookSecret;
    if (!secret) return Response.json({ error: "Not found" }, { status: 404 });
    const raw = await readBodyText(req, PROVIDER_WEBHOOK_BYTES_MAX);
    if (!(await verifyWebhookSignature(secret, raw, req.headers.get("x-hub-signature-256")))) {
      return Response.json({ error: "Signature does not match" }, { status: 401 });
    }
    const event = req.headers.get("x-github-event");
    if (event === "ping") return Response.json({ ok: true }, { status: 200 });
    if (event !== "push") return Response.json({ ignored: event ?? null }, { status: 202 });
    let payload: PushPayload;
    try {
      payload = JSON.parse(raw) as PushPayload;
    } catch {
      return Response.json({ error: "Body is not valid JSON", code: "VALIDATION_ERROR" }, { status: 400 });
    }
    let queued = 0;
    for (const projectId of await projectsFollowing(payload)) if (await queueSync(projectId, "webhook")) queued += 1;
    return Response.json({ queued }, { status: 200 });
  } catch (error) {
    return errorResponse(error);
  }
}
