import { config } from "@/server/config";
import { errorResponse, readBodyText } from "@/server/http";
import { PROVIDER_WEBHOOK_BYTES_MAX } from "@/server/limits";
import { verifyWebhookSignature } from "@/server/providers";
import { projectsFollowing, queueSync } from "./sync";

interface PushPayload {
  ref?: unknown;
  repository?: { name?: unknown; owner?: { login?: unknown; name?: unknown } };
}

/** The provider branch a push payload moved, or null when it is not a branch push. */
function pushedBranch(payload: PushPayload): { owner: string; repo: string; branch: string } | null {
  const owner = payload.repository?.owner?.login ?? payload.repository?.owner?.name;
  const repo = payload.repository?.name;
  if (
    typeof owner !== "string" ||
    typeof repo !== "string" ||
    typeof payload.ref !== "string" ||
    !payload.ref.startsWith("refs/heads/")
  )
    return null;
  return { owner, repo, branch: payload.ref.slice("refs/heads/".length) };
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
    const pushed = pushedBranch(payload);
    for (const projectId of pushed ? await projectsFollowing(pushed) : [])
      if (await queueSync(projectId, "webhook")) queued += 1;
    return Response.json({ queued }, { status: 200 });
  } catch (error) {
    return errorResponse(error);
  }
}
