import { answeredError, type Context } from "@/server/trpc";
import { admitRequest } from "@/server/auth";
import { assertWellFormedUrl, bodyLimitFor, errorResponse, formToObject, HttpError, parseJsonBody, readBodyText } from "@/server/http";
import { TRPCError } from "@trpc/server";
import { methodsServing, restRoutePattern } from "./procedures";
import { instrumentRequest } from "@/server/metrics";
import { dispatchOpenApi } from "./openapi-dispatch";
import { answerShadowedRoute } from "./shadowed-routes";
import { publishAfterCommit, trackRecordedEvents } from "@/server/events";

const BODYLESS = new Set(["GET", "HEAD"]);

/** A path no procedure serves with this method, though some serves with another: 405 with Allow. */
function methodNotAllowed(failure: unknown, apiPath: string): HttpError | undefined {
  const routerMiss = failure instanceof TRPCError && failure.code === "NOT_FOUND" && !answeredError(failure.cause);
  if (!routerMiss) return undefined;
  const allowed = methodsServing(apiPath);
  if (allowed.length === 0) return undefined;
  if (allowed.includes("GET")) allowed.push("HEAD");
  return new HttpError(405, "Method not allowed", undefined, {}, { Allow: allowed.join(", ") });
}

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

/** The REST surface: every `/api/*` route generated from the tRPC routers. HEAD is GET without the body. */
export async function handleRestRequest(req: Request): Promise<Response> {
  if (req.method.toUpperCase() !== "HEAD") return instrumentRequest(req, restRoutePattern, () => answerRestRequest(req));
  const response = await answerRestRequest(new Request(req, { method: "GET" }));
  return new Response(null, { status: response.status, headers: response.headers });
}

async function answerRestRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  let baseHeaders: Record<string, string> = {};
  try {
    assertWellFormedUrl(url);
    const admission = await admitRequest(req, { allowAdminKey: url.pathname.startsWith("/api/admin/") });
    baseHeaders = admission.headers;
    joinMultiSegmentParams(url);
    const { body, isForm } = await readInput(req, url);
    const ctx: Context = { req, identity: admission.identity, isForm, response: { headers: {} } };
    const apiPath = url.pathname.replace(/^\/api/, "");
    const shadowed = await answerShadowedRoute(req.method.toUpperCase(), apiPath, url.searchParams, ctx);
    if (shadowed) return Response.json(shadowed.body, { headers: { ...baseHeaders, ...ctx.response.headers } });
    const { value: result, recorded } = await trackRecordedEvents(() => dispatchOpenApi(req, apiPath, url.search, body, ctx));
    // Events the request's transactions recorded go out now rather than at the next outbox sweep.
    if (recorded) await publishAfterCommit();
    if (result.failure !== undefined) return errorResponse(methodNotAllowed(result.failure, apiPath) ?? result.failure, baseHeaders);
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
