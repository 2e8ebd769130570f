import { answeredError, type Context } from "@/server/trpc";
import { admitRequest } from "@/server/auth";
import { withConfigSnapshot } from "@/server/config";
import { noWaits, withRequestLog } from "@/server/log";
import {
  assertWellFormedUrl,
  bodyLimitFor,
  corsHeaders,
  errorResponse,
  formToObject,
  HttpError,
  ifNoneMatchMatches,
  parseJsonBody,
  preflightHeaders,
  readBodyText,
  requestIdOf,
  strongEtag,
  versionEtag,
  toHttpError,
  headFromGet,
} from "@/server/http";
import { TRPCError } from "@trpc/server";
import { methodsServing, procedureAt, type RestProcedure } from "./procedures";
import { instrumentRequest } from "@/server/metrics";
import { dispatchOpenApi } from "./openapi-dispatch";
import { answerDirectRead, notModifiedBeforeDispatch } from "./conditional-read";
import { isFormRoute } from "./openapi";
import { answerShadowedRoute } from "./shadowed-routes";
import { recordRequest, type RequestTrace } from "./request-log";
import { publishAfterCommit, trackRecordedEvents } from "@/server/events";
import { changeEventsResponse } from "@/server/changes";

const BODYLESS = new Set(["GET", "HEAD"]);

/** Every method answered at a path some procedure serves: GET brings HEAD, and OPTIONS is always there. */
function allowedMethods(apiPath: string): string[] {
  const served = methodsServing(apiPath);
  if (served.length === 0) return [];
  return [...served, ...(served.includes("GET") ? ["HEAD"] : []), "OPTIONS"];
}

/** A path no procedure serves with this method, though some serves with another: 405 with Allow. */
function methodNotAllowed(failure: unknown, apiPath: string): HttpError | undefined {
  const routerMiss = failure instanceof TRPCError && failure.code === "NOT_FOUND" && !answeredError(failure.cause);
  if (!routerMiss) return undefined;
  const allowed = allowedMethods(apiPath);
  if (allowed.length === 0) return undefined;
  return new HttpError(405, "Method not allowed", undefined, {}, { Allow: allowed.join(", ") });
}

/**
 * Path params that may span several segments (trpc-to-openapi matches one segment per param): the
 * `tail` group is re-joined with %2F before routing, and the procedure's pathSegment() decodes it.
 */
const MULTI_SEGMENT_PARAMS: RegExp[] = [
  /^(?<head>\/api\/projects\/[^/]+\/[^/]+\/(?:branches|tags|commits)\/)(?<tail>[^/]+(?:\/[^/]+)+)$/,
];

function joinMultiSegmentParams(url: URL): void {
  for (const pattern of MULTI_SEGMENT_PARAMS) {
    const match = pattern.exec(url.pathname);
    if (match?.groups) {
      url.pathname = match.groups.head + match.groups.tail.replaceAll("/", "%2F");
      return;
    }
  }
}

type BodyKind = "json" | "form" | "other";

function bodyKindOf(req: Request): BodyKind {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  // No Content-Type at all is read as JSON (what most hand-written clients mean).
  if (type === "" || type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type)) return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  return "other";
}

const unsupportedMediaType = (formToo: boolean) =>
  new HttpError(
    415,
    `This route takes application/json${formToo ? " or a form" : ""} bodies`,
    "UNSUPPORTED_MEDIA_TYPE",
    {},
    { Accept: formToo ? "application/json, application/x-www-form-urlencoded" : "application/json" },
  );

/**
 * Reads the input: JSON, or a form on form-friendly routes (`isForm`); any other body type is 415.
 * A DELETE body joins the query (`{confirm}`).
 */
async function readInput(
  req: Request,
  url: URL,
  procedure: RestProcedure | undefined,
): Promise<{ body: unknown; isForm: boolean }> {
  const method = req.method.toUpperCase();
  if (BODYLESS.has(method)) return { body: undefined, isForm: false };
  const text = await readBodyText(req, bodyLimitFor(url.pathname));
  const kind = bodyKindOf(req);
  const formRoute = procedure ? isFormRoute(procedure.meta) : false;
  if (text.length > 0 && (kind === "other" || (kind === "form" && !formRoute))) throw unsupportedMediaType(formRoute);
  const isForm = kind === "form";
  const payload = isForm ? formToObject(text) : parseJsonBody(text);
  if (method === "DELETE") {
    for (const [key, value] of Object.entries(payload)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
        url.searchParams.set(key, String(value));
    }
    return { body: undefined, isForm };
  }
  return { body: payload, isForm };
}

/** OPTIONS: the methods served at the path (`Allow`), and a CORS preflight's answer for allowed origins. */
function answerOptions(req: Request): Response {
  const apiPath = new URL(req.url).pathname.replace(/^\/api/, "");
  const allowed = allowedMethods(apiPath);
  if (allowed.length === 0) return errorResponse(new HttpError(404, "Not found"));
  return new Response(null, { status: 204, headers: { Allow: allowed.join(", "), ...preflightHeaders(req, allowed) } });
}

/**
 * A 200 read of a route whose ETag is its body's digest (`meta.etag: true`): the ETag, and 304 when
 * the caller holds it (the request is then given back to the caller's rate budget). A versioned read has set its ETag, and a caller holding it was answered before dispatch.
 */
function withValidator(req: Request, response: Response, body: string, procedure: RestProcedure | undefined): Response {
  if (procedure?.meta.etag !== true || response.status !== 200) return response;
  const etag = strongEtag(body);
  response.headers.set("ETag", etag);
  if (ifNoneMatchMatches(req, etag)) return new Response(null, { status: 304, headers: response.headers });
  return response;
}

/**
 * GET /api/changes/{id}/events is answered from this entry, not a route file of its own: Next.js
 * loads every route file's own copy of the server's modules (~4 MB resident each), and every agent
 * of a fleet follows its change's events beside its REST calls. OPTIONS and other methods answer as
 * Next.js answered them for the route file (204 and 405, with Allow).
 */
const CHANGE_EVENTS = /^\/api\/changes\/[^/]+\/events$/;
const changeEventsHead = headFromGet(changeEventsResponse);

const CHANGE_EVENTS_ALLOW = "GET, HEAD, OPTIONS";

function answerChangeEvents(req: Request): Promise<Response> {
  const method = req.method.toUpperCase();
  if (method === "GET") return changeEventsResponse(req);
  if (method === "HEAD") return changeEventsHead(req);
  if (method === "OPTIONS")
    return Promise.resolve(new Response(null, { status: 204, headers: { Allow: CHANGE_EVENTS_ALLOW } }));
  const refused = new HttpError(405, "Method not allowed", undefined, {}, { Allow: CHANGE_EVENTS_ALLOW });
  return Promise.resolve(errorResponse(refused));
}

/**
 * The REST surface: every `/api/*` route generated from the tRPC routers. HEAD is GET without the
 * body; OPTIONS lists the methods. Every answer carries X-Request-Id (and CORS headers for allowed
 * origins), and every request ends in one log line (`recordRequest`, the hook for metrics too).
 */
export function handleRestRequest(req: Request): Promise<Response> {
  if (CHANGE_EVENTS.test(new URL(req.url).pathname)) return answerChangeEvents(req);
  return withConfigSnapshot(() => answerRequest(req));
}

async function answerRequest(req: Request): Promise<Response> {
  const started = performance.now();
  const method = req.method.toUpperCase();
  const trace: RequestTrace = { requestId: requestIdOf(req), method, identity: "anonymous", status: 0, durationMs: 0 };
  const waits = noWaits();
  const response = await instrumentRequest(
    req,
    () => trace.route ?? "unmatched",
    () =>
      withRequestLog(
        trace.requestId,
        async () => {
          if (method === "OPTIONS") return answerOptions(req);
          if (method !== "HEAD") return answerRestRequest(req, trace);
          const full = await answerRestRequest(new Request(req, { method: "GET" }), trace);
          return new Response(null, { status: full.status, headers: full.headers });
        },
        waits,
      ),
  );
  response.headers.set("X-Request-Id", trace.requestId);
  for (const [name, value] of Object.entries(corsHeaders(req)))
    if (!response.headers.has(name)) response.headers.set(name, value);
  recordRequest({ ...trace, status: response.status, durationMs: performance.now() - started, waits });
  return response;
}

async function answerRestRequest(req: Request, trace: RequestTrace): Promise<Response> {
  const url = new URL(req.url);
  let baseHeaders: Record<string, string> = {};
  try {
    assertWellFormedUrl(url);
    joinMultiSegmentParams(url);
    const apiPath = url.pathname.replace(/^\/api/, "");
    const procedure = procedureAt(req.method.toUpperCase(), apiPath);
    // Named before admission, so a refused request's log line says which route it was refused.
    trace.route = procedure ? `/api${procedure.path}` : undefined;
    const admission = await admitRequest(req, { allowAdminKey: url.pathname.startsWith("/api/admin/") });
    trace.identity = admission.identity.kind;
    baseHeaders = admission.headers;
    const heldEtag = await notModifiedBeforeDispatch(req, apiPath, url.searchParams, procedure, admission.identity);
    if (heldEtag) return notModifiedResponse(heldEtag, await admission.refund());
    const { body, isForm } = await readInput(req, url, procedure);
    const ctx: Context = { req, identity: admission.identity, isForm, response: { headers: {} } };
    ctx.setVersion = (...parts) => void (ctx.response.headers.ETag = versionEtag(req, parts));
    const early =
      (await answerShadowedRoute(req.method.toUpperCase(), apiPath, url.searchParams, ctx)) ??
      (await answerDirectRead(req, apiPath, url.searchParams, procedure, ctx));
    if (early) return Response.json(early.body, { headers: { ...baseHeaders, ...ctx.response.headers } });
    const { value: result, recorded } = await trackRecordedEvents(() =>
      dispatchOpenApi(req, apiPath, url.search, body, ctx),
    );
    // Events the request's transactions recorded go out now rather than at the next outbox sweep.
    if (recorded) await publishAfterCommit();
    if (result.failure !== undefined)
      return failureResponse(methodNotAllowed(result.failure, apiPath) ?? result.failure, baseHeaders);
    const headers = { ...baseHeaders, ...ctx.response.headers };
    if (ctx.isForm && ctx.response.redirect) {
      return new Response(null, {
        status:
          ctx.response.status && ctx.response.status >= 300 && ctx.response.status < 400 ? ctx.response.status : 302,
        headers: { ...headers, Location: ctx.response.redirect },
      });
    }
    const response = withValidator(
      req,
      new Response(result.body, {
        status: ctx.response.status ?? result.status,
        headers: { "content-type": "application/json", ...headers },
      }),
      result.body,
      procedure,
    );
    if (response.status === 304)
      for (const [name, value] of Object.entries(await admission.refund())) response.headers.set(name, value);
    return response;
  } catch (error) {
    return failureResponse(error, baseHeaders);
  }
}

/** A refusal's answer. */
function failureResponse(failure: unknown, headers: Record<string, string>): Response {
  return errorResponse(toHttpError(failure), headers);
}

const notModifiedResponse = (etag: string, headers: Record<string, string>) =>
  new Response(null, { status: 304, headers: { ...headers, ETag: etag } });
