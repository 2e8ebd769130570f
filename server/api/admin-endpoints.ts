import { admitRequest, type Identity } from "@/server/auth";
import { requestRestore, openBackupArchive } from "@/server/backup";
import { unauthenticated } from "@/server/errors";
import { config } from "@/server/config";
import { assertWellFormedUrl, cappedBody, errorResponse } from "@/server/http";
import { exposition, instrumentRequest } from "@/server/metrics";
import { assertAdmin } from "@/server/trpc";
import { handleRestRequest } from "./rest";

// Administrator routes whose bodies are not JSON (a text exposition, tar archives): plain route
// handlers behind the same admission gate and administrator rule as the admin procedures.

async function answerAsAdmin(
  req: Request,
  route: string,
  answer: (identity: Identity) => Promise<Response>,
): Promise<Response> {
  return instrumentRequest(
    req,
    () => route,
    async () => {
      let headers: Record<string, string> = {};
      try {
        assertWellFormedUrl(new URL(req.url));
        const admission = await admitRequest(req, { allowAdminKey: true });
        headers = admission.headers;
        if (admission.identity.kind === "anonymous") throw unauthenticated();
        assertAdmin(admission.identity);
        const response = await answer(admission.identity);
        for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        return response;
      } catch (error) {
        return errorResponse(error, headers);
      }
    },
  );
}

const wantsJson = (req: Request) => (req.headers.get("accept") ?? "").includes("application/json");

/** GET /api/admin/metrics: the text exposition; the JSON form is the REST procedure `admin.metrics`. */
export function handleMetricsRequest(req: Request): Promise<Response> {
  if (wantsJson(req)) return handleRestRequest(req);
  return answerAsAdmin(req, "/api/admin/metrics", async () => {
    const { contentType, text } = await exposition();
    return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  });
}

/** GET /api/admin/backups/{id}/archive: a completed backup's tar archive. */
export function handleBackupArchiveRequest(req: Request): Promise<Response> {
  return answerAsAdmin(req, "/api/admin/backups/{id}/archive", async () => {
    const id = decodeURIComponent(new URL(req.url).pathname.split("/").at(-2) ?? "");
    const { stream, bytes } = await openBackupArchive(id);
    return new Response(stream, {
      headers: {
        "content-type": "application/x-tar",
        "content-length": String(bytes),
        "content-disposition": `attachment; filename="${id}.tar"`,
        "cache-control": "no-store",
      },
    });
  });
}

/** POST /api/admin/restore: the body is a backup archive (413 past RESTORE_ARCHIVE_BYTES_MAX); 202 while it is restored in the background. */
export function handleRestoreRequest(req: Request): Promise<Response> {
  return answerAsAdmin(req, "/api/admin/restore", async (identity) => {
    const restore = await requestRestore(identity, cappedBody(req, config.restoreArchiveBytesMax));
    return Response.json({ restore: { id: restore.id, status: restore.status } }, { status: 202 });
  });
}
