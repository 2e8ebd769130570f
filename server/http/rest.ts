import { createOpenApiFetchHandler } from "trpc-to-openapi";
import { appRouter } from "@/server/router";
import type { Context } from "@/server/trpc";
import { admitRequest } from "./gate";
import { bodyLimitFor, formToObject, parseJsonBody, readBodyText } from "./body";
import { errorResponse } from "./errors";

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

/**
 * Rebuilds the request the way trpc-to-openapi can route it: form bodies re-encoded as JSON, and a
 * DELETE body folded into the query (the adapter reads DELETE input from the query only).
 */
async function normalizeRequest(req: Request, url: URL): Promise<{ request: Request; isForm: boolean }> {
  const method = req.method.toUpperCase();
  if (BODYLESS.has(method)) return { request: url.href === req.url ? req : new Request(url, { method, headers: req.headers }), isForm: false };
  const isForm = isFormRequest(req);
  const text = await readBodyText(req, bodyLimitFor(url.pathname));
  const payload = isForm ? formToObject(text) : parseJsonBody(text);
  const headers = new Headers(req.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  if (method === "DELETE") {
    if (payload && typeof payload === "object" && !Array.isArray(payload)) {
      for (const [key, value] of Object.entries(payload)) {
        if (value !== undefined && value !== null && typeof value !== "object") url.searchParams.set(key, String(value));
      }
    }
    return { request: new Request(url, { method, headers }), isForm };
  }
  return { request: new Request(url, { method, headers, body: JSON.stringify(payload ?? {}) }), isForm };
}

/** The REST surface: every `/api/*` route generated from the tRPC routers. */
export async function handleRestRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  let baseHeaders: Record<string, string> = {};
  try {
    const admission = await admitRequest(req, { allowAdminKey: url.pathname.startsWith("/api/admin/") });
    baseHeaders = admission.headers;
    joinMultiSegmentParams(url);
    const { request, isForm } = await normalizeRequest(req, url);
    const ctx: Context = { req, identity: admission.identity, isForm, response: { headers: {} } };
    let failure: unknown;
    const response = await createOpenApiFetchHandler({
      req: request,
      endpoint: "/api",
      router: appRouter,
      createContext: () => ctx,
      onError: ({ error }) => {
        failure = error;
      },
    });
    if (failure !== undefined) return errorResponse(failure, baseHeaders);
    const headers = { ...baseHeaders, ...ctx.response.headers };
    if (ctx.isForm && ctx.response.redirect) {
      return new Response(null, { status: ctx.response.status && ctx.response.status >= 300 && ctx.response.status < 400 ? ctx.response.status : 302, headers: { ...headers, Location: ctx.response.redirect } });
    }
    return new Response(response.body, {
      status: ctx.response.status ?? response.status,
      headers: { "content-type": "application/json", ...headers },
    });
  } catch (error) {
    return errorResponse(error, baseHeaders);
  }
}
