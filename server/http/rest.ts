import type { Context } from "@/server/trpc";
import { admitRequest } from "./gate";
import { bodyLimitFor, formToObject, parseJsonBody, readBodyText } from "./body";
import { errorResponse } from "./errors";
import { dispatchOpenApi } from "./openapi-dispatch";
import { publishAfterCommit } from "@/server/events/publish";
import { trackRecordedEvents } from "@/server/events/record";

const BODYLESS = new Set(["GET", "HEAD"]);

/**
 * Path params that may span several segments (trpc-to-openapi matches one segment per param): the
 * `tail` group is re-joined with %2F before routing, and the procedure's pathSegment() decodes it.
 */
const MULTI_SEGMENT_PARAMS: RegExp[] = [/^(?<head>\/api\/projects\/[^/]+\/[^/]+\/branches\/)(?<tail>[^/]+(?:\/[^/]+)+)$/];

function joinMultiSegmentParams(url: URL): void {
  for (const pattern of MULTI_SEGMENT_PARAMS) {
    const match = pattern.exec(url.pathname);
    if (match?.groups) {
      url.pathname = match.groups.head + match.groups.tail.replaceAll("/", "%2F");
      return;
    }
  }
}

function isFormRequest(req: Request): boolean {
  const type = req.headers.get("content-type") ?? "";
  return type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data");
}

/** Reads the input: form bodies become objects (`isForm`), a DELETE body joins the query (`{confirm}`). */
async function readInput(req: Request, url: URL): Promise<{ body: unknown; isForm: boolean }> {
  const method = req.method.toUpperCase();
  if (BODYLESS.has(method)) return { body: undefined, isForm: false };
  const isForm = isFormRequest(req);
  const text = await readBodyText(req, bodyLimitFor(url.pathname));
  const payload = isForm ? formToObject(text) : parseJsonBody(text);
  if (method === "DELETE") {
    for (const [key, value] of Object.entries(payload)) {
      if (value !== undefined && value !== null && typeof value !== "object") url.searchParams.set(key, String(value));
    }
    return { body: undefined, isForm };
  }
  return { body: payload, isForm };
}

/** The REST surface: every `/api/*` route generated from the tRPC routers. */
export async function handleRestRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  let baseHeaders: Record<string, string> = {};
  try {
    const admission = await admitRequest(req, { allowAdminKey: url.pathname.startsWith("/api/admin/") });
    baseHeaders = admission.headers;
    joinMultiSegmentParams(url);
    const { body, isForm } = await readInput(req, url);
    const ctx: Context = { req, identity: admission.identity, isForm, response: { headers: {} } };
    const { value: result, recorded } = await trackRecordedEvents(() =>
      dispatchOpenApi(req, url.pathname.replace(/^\/api/, ""), url.search, body, ctx),
    );
    // Events the request's transactions recorded go out now rather than at the next outbox sweep.
    if (recorded) await publishAfterCommit();
    if (result.failure !== undefined) return errorResponse(result.failure, baseHeaders);
    const headers = { ...baseHeaders, ...ctx.response.headers };
    if (ctx.isForm && ctx.response.redirect) {
      return new Response(null, { status: ctx.response.status && ctx.response.status >= 300 && ctx.response.status < 400 ? ctx.response.status : 302, headers: { ...headers, Location: ctx.response.redirect } });
    }
    return new Response(result.body, {
      status: ctx.response.status ?? result.status,
      headers: { "content-type": "application/json", ...headers },
    });
  } catch (error) {
    return errorResponse(error, baseHeaders);
  }
}
