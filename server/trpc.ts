import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { attributedTo, type Identity } from "@/server/auth";
import { DomainError, type ErrorCode, forbidden, unauthenticated } from "@/server/errors";
import { cursorHeaders, HttpError, paginationHeaders, toHttpError } from "@/server/http";
import { config } from "@/server/config";

export interface ResponseControl {
  status?: number;
  headers: Record<string, string>;
  /** Set for form callers on form-friendly routes: answered with 302 Location. */
  redirect?: string;
}

export interface Context {
  req: Request;
  identity: Identity;
  /** The request body was form-encoded (a browser form): form routes answer with a redirect. */
  isForm: boolean;
  response: ResponseControl;
  /**
   * REST only: a read whose route declares a `ReadVersion` passes the parts its answer is a function
   * of, which become its strong ETag (a caller holding it was answered 304 before dispatch).
   */
  setVersion?: (...parts: string[]) => void;
}

/**
 * What a read's answer is a function of (a branch and its commit, a row's version), read from its
 * parsed input with the caller's access checked; the procedure passes the same parts to
 * `ctx.setVersion`. Typed `never` so each route declares its own input type.
 */
export type ReadVersion = (identity: Identity, input: never) => Promise<string[]>;

/** The resolver of a public GET, for the REST pipeline to call itself (`meta.direct`). Typed `never` like `ReadVersion`. */
export type DirectRead = (ctx: Context, input: never) => Promise<unknown>;

/** `openapi.contentTypes` of a form-friendly route: a browser form is accepted and redirected; other routes answer a form with 415. */
export const FORM_OR_JSON: Array<"application/json" | "application/x-www-form-urlencoded"> = [
  "application/json",
  "application/x-www-form-urlencoded",
];

/** Who a procedure admits; set by the procedure kinds below, read by the OpenAPI document (security, 401/403). */
export type Access = "public" | "authed" | "user" | "session" | "admin";

/**
 * What a procedure declares beyond trpc-to-openapi's `openapi` block (docs/ARCHITECTURE.md, "The
 * OpenAPI document"): its success status, the error statuses its domain can answer with their codes
 * (the ones every route shares are derived), input fields the spec puts in the query of a non-GET
 * route, and whether the answer carries a strong ETag (304 on If-None-Match).
 */
export type Meta = OpenApiMeta<{
  successStatus?: number;
  /** Other success statuses the route can answer (a PUT that creates 201 or replaces 200). */
  alsoSuccess?: number[];
  access?: Access;
  errors?: Partial<Record<number, ErrorCode[]>>;
  query?: string[];
  /**
   * A strong ETag on the answer: `true` for the body's digest; a `ReadVersion` for a version read
   * from the input alone (the procedure passes the same parts to `ctx.setVersion`), so the REST
   * pipeline answers a conditional GET with 304 before dispatching the procedure.
   */
  etag?: true | ReadVersion;
  /**
   * A list: `true` for limit/offset with X-Total-Count and Link (first, prev, next, last;
   * `setPageHeaders`), `"cursor"` for an unbounded list paged by `before` (Link first and next;
   * `setCursorHeaders`). docs/api.md lists every list operation.
   */
  list?: true | "cursor";
  /**
   * A public GET's resolver (the procedure's must call the same function), which the REST pipeline
   * calls with the input the procedure's schema parsed, without tRPC's dispatch: its middleware
   * chain, the adapter and the output check cost ~5 ms of CPU on a 500 KB change diff, which is
   * measured against git's own time (bench/read).
   */
  direct?: DirectRead;
  /**
   * A write a workspace key may make (its service checks that the target is the key's workspace).
   * Every other write refuses a key with 403 TOKEN_SCOPE_INSUFFICIENT.
   */
  workspaceKey?: boolean;
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Errors are rewritten to the spec's shape by server/api/rest.ts; tRPC callers get the cause's message.
    errorFormatter({ shape, error }) {
      const cause = answeredError(error.cause);
      if (!cause) return shape;
      return {
        ...shape,
        message: cause.message,
        data: { ...shape.data, httpStatus: cause.status, appCode: cause.code, extra: cause.extra },
      };
    },
  });

export const router = t.router;
/** Server-side callers of a router with a context built like the REST pipeline's (the MCP tools use it). */
export const createCallerFactory = t.createCallerFactory;
export const mergeRouters = t.mergeRouters;

/** Limit/offset list routes (`meta.list: true`): X-Total-Count and Link (first, prev, next, last) for the page answered. */
export function setPageHeaders(ctx: Context, page: { total: number; limit: number; offset: number }): void {
  Object.assign(ctx.response.headers, paginationHeaders(ctx.req.url, config.baseUrl, page));
}

/** Cursor list routes (`meta.list: "cursor"`): Link first, and next (`before` the page's last item) while pages are full. */
export function setCursorHeaders(ctx: Context, page: { limit: number; count: number; nextBefore?: string }): void {
  Object.assign(ctx.response.headers, cursorHeaders(ctx.req.url, config.baseUrl, page));
}

/** Applies a route's declared success status (meta.successStatus) to the response. */
const withSuccessStatus = t.middleware(async ({ ctx, meta, next }) => {
  const result = await next();
  if (result.ok && meta?.successStatus && ctx.response.status === undefined) ctx.response.status = meta.successStatus;
  return result;
});

/** The tRPC code of an HTTP status, so /api/trpc answers a domain error with its own status. */
export function trpcCodeFor(status: number): TRPC_ERROR_CODE_KEY {
  const codes: Record<number, TRPC_ERROR_CODE_KEY> = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_SUPPORTED",
    409: "CONFLICT",
    410: "NOT_FOUND",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_CONTENT",
    429: "TOO_MANY_REQUESTS",
    501: "NOT_IMPLEMENTED",
    502: "BAD_GATEWAY",
    503: "SERVICE_UNAVAILABLE",
    504: "GATEWAY_TIMEOUT",
  };
  return codes[status] ?? "INTERNAL_SERVER_ERROR";
}

/** The wire form of a failure we answer on purpose (a domain refusal or an HTTP-level one), else undefined. */
export function answeredError(cause: unknown): HttpError | undefined {
  return cause instanceof DomainError || cause instanceof HttpError ? toHttpError(cause) : undefined;
}

/** A refusal as a TRPCError of the matching code, keeping the refusal itself as the cause. */
export function asTrpcError(refusal: DomainError | HttpError): TRPCError {
  const answered = toHttpError(refusal);
  return new TRPCError({ code: trpcCodeFor(answered.status), message: answered.message, cause: refusal });
}

/** A domain error keeps its meaning on /api/trpc (a 404 is NOT_FOUND, not INTERNAL_SERVER_ERROR); REST reads the cause. */
const withDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok || result.error.code !== "INTERNAL_SERVER_ERROR") return result;
  const cause = result.error.cause;
  if (cause instanceof DomainError || cause instanceof HttpError) throw asTrpcError(cause);
  return result;
});

/**
 * What a workspace key may reach (docs/contracts.md#agents): never an identity route (users, tokens,
 * agents), a session, admin or user-only read (401, as for a credential that is not a user's); of
 * the writes only those marked `workspaceKey` (else 403 TOKEN_SCOPE_INSUFFICIENT). Events recorded
 * for a key name it.
 */
const withWorkspaceKeyScope = t.middleware(({ ctx, meta, type, next }) => {
  const { identity } = ctx;
  if (identity.kind !== "workspace-key") return next();
  const identityRoute = meta?.openapi?.tags?.some((tag) => tag === "users" || tag === "agents");
  if (
    identityRoute ||
    meta?.access === "session" ||
    meta?.access === "admin" ||
    (meta?.access === "user" && type === "query")
  ) {
    throw unauthenticated("Workspace keys are not accepted here");
  }
  if (type === "mutation" && !meta?.workspaceKey)
    throw forbidden("A workspace key writes only to its own workspace", "TOKEN_SCOPE_INSUFFICIENT");
  return attributedTo(identity, () => next());
});

export const publicProcedure = t.procedure
  .meta({ access: "public" })
  .use(withDomainErrors)
  .use(withSuccessStatus)
  .use(withWorkspaceKeyScope);

/** Any authenticated caller: a user, an agent or the administrator key. */
export const authedProcedure = publicProcedure.meta({ access: "authed" }).use(({ ctx, next }) => {
  if (ctx.identity.kind === "anonymous") throw unauthenticated();
  return next({ ctx: { ...ctx, identity: ctx.identity } });
});

/** A user identity (agent tokens refused with 401, per the spec's user-only operations). */
export const userProcedure = publicProcedure.meta({ access: "user" }).use(({ ctx, next }) => {
  if (ctx.identity.kind !== "user") throw unauthenticated("A user identity is required");
  return next({ ctx: { ...ctx, identity: ctx.identity } });
});

/** Token-management routes: the browser session only; any token (agents' too) gets 403 SESSION_REQUIRED. */
export const sessionProcedure = authedProcedure.meta({ access: "session" }).use(({ ctx, next }) => {
  if (ctx.identity.kind !== "user" || ctx.identity.via !== "session") {
    throw forbidden("This endpoint accepts the session cookie only", "SESSION_REQUIRED");
  }
  return next({ ctx: { ...ctx, identity: ctx.identity } });
});

/** Admin routes take the X-Admin-API-Key header or an instance administrator's direct credential. */
export function assertAdmin(identity: Identity): void {
  if (identity.kind === "admin-key") return;
  if (identity.kind === "user" && identity.via === "oauth") {
    throw forbidden("OAuth grants are not accepted on admin routes", "ADMIN_REQUIRES_DIRECT_CREDENTIAL");
  }
  if (identity.kind === "user" && identity.isAdmin) return;
  throw forbidden("Administrator access required");
}

export const adminProcedure = authedProcedure.meta({ access: "admin" }).use(({ ctx, next }) => {
  assertAdmin(ctx.identity);
  return next();
});
