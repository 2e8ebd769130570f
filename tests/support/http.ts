import * as rest from "@/app/api/[...rest]/route";
import * as trpc from "@/app/api/trpc/[trpc]/route";
import * as openapi from "@/app/api/openapi.json/route";
import * as rootHealth from "@/app/health/route";
import * as inngestServe from "@/app/api/inngest/route";
import * as devLogin from "@/app/api/auth/dev-login/route";
import * as nextAuth from "@/app/api/auth/[...nextauth]/route";
import * as gitHttp from "@/app/(git)/git-http/[...path]/route";
import * as adminMetrics from "@/app/api/admin/metrics/route";
import * as mcp from "@/app/mcp/route";
import * as oauthAuthorize from "@/app/oauth/authorize/route";
import * as oauthToken from "@/app/oauth/token/route";
import * as oauthRegister from "@/app/oauth/register/route";
import * as oauthRevoke from "@/app/oauth/revoke/route";
import * as authorizationServerMetadata from "@/app/oauth/metadata/authorization-server/route";
import * as protectedResourceMetadata from "@/app/oauth/metadata/protected-resource/route";
import * as logout from "@/app/logout/route";
import * as backupArchive from "@/app/api/admin/backups/[id]/archive/route";
import * as restoreUpload from "@/app/api/admin/restore/route";
import { parseGitPath } from "@/server/git-http/target";
import * as importStream from "@/app/api/projects/[namespace]/[slug]/import/stream/route";
import * as syncStream from "@/app/api/projects/[namespace]/[slug]/sync/stream/route";
import * as providerWebhook from "@/app/api/providers/github/webhook/route";
import * as projectArchive from "@/app/api/projects/[namespace]/[slug]/archive/route";
import * as projectRaw from "@/app/api/projects/[namespace]/[slug]/raw/route";
import * as changeDiff from "@/app/api/changes/[id]/diff/route";
import * as evalRunLog from "@/app/api/changes/[id]/evaluations/[runId]/log/route";

export const TEST_ORIGIN = "http://svc.test";

type Handler = (req: Request) => Response | Promise<Response>;
type RouteModule = Record<string, unknown>;

/** Plain route modules outside the REST catch-all; areas add theirs here (git, inngest, streams). */
export const routeTable: Array<{ match: (pathname: string) => boolean; module: RouteModule }> = [
  { match: (p) => p === "/api/inngest", module: inngestServe },
  { match: (p) => p === "/health", module: rootHealth },
  { match: (p) => p === "/api/openapi.json", module: openapi },
  { match: (p) => p.startsWith("/api/trpc/"), module: trpc },
  { match: (p) => p === "/api/auth/dev-login", module: devLogin },
  { match: (p) => p === "/logout", module: logout },
  { match: (p) => p.startsWith("/api/auth/"), module: nextAuth },
  { match: (p) => parseGitPath(p) !== null, module: gitHttp },
  { match: (p) => p === "/api/admin/metrics", module: adminMetrics },
  { match: (p) => /^\/api\/projects\/[^/]+\/[^/]+\/import\/stream$/.test(p), module: importStream },
  { match: (p) => /^\/api\/projects\/[^/]+\/[^/]+\/sync\/stream$/.test(p), module: syncStream },
  { match: (p) => p === "/api/providers/github/webhook", module: providerWebhook },
  { match: (p) => /^\/api\/projects\/[^/]+\/[^/]+\/archive$/.test(p), module: projectArchive },
  { match: (p) => /^\/api\/projects\/[^/]+\/[^/]+\/raw$/.test(p), module: projectRaw },
  { match: (p) => /^\/api\/changes\/[^/]+\/diff$/.test(p), module: changeDiff },
  { match: (p) => /^\/api\/changes\/[^/]+\/evaluations\/[^/]+\/log$/.test(p), module: evalRunLog },
  { match: (p) => p === "/mcp", module: mcp },
  { match: (p) => p === "/oauth/authorize", module: oauthAuthorize },
  { match: (p) => p === "/oauth/token", module: oauthToken },
  { match: (p) => p === "/oauth/register", module: oauthRegister },
  { match: (p) => p === "/oauth/revoke", module: oauthRevoke },
  // next.config.mjs rewrites these (a folder named .well-known is not routed).
  {
    match: (p) => /^\/(\.well-known\/oauth-authorization-server|oauth\/metadata\/authorization-server)(\/|$)/.test(p),
    module: authorizationServerMetadata,
  },
  {
    match: (p) => /^\/(\.well-known\/oauth-protected-resource|oauth\/metadata\/protected-resource)(\/|$)/.test(p),
    module: protectedResourceMetadata,
  },
  { match: (p) => /^\/api\/admin\/backups\/[^/]+\/archive$/.test(p), module: backupArchive },
  { match: (p) => p === "/api/admin/restore", module: restoreUpload },
];

/** The route module Next.js would serve `pathname` with (the REST catch-all when none matches). */
export const routeModuleFor = (pathname: string): RouteModule =>
  routeTable.find((entry) => entry.match(pathname))?.module ?? rest;

export interface CallOptions {
  token?: string;
  cookie?: string;
  body?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** For cookie callers: send a same-host Origin (default true when a cookie is given). */
  origin?: string | null;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** Calls the app's route handlers in-process with a real Request, as Next.js would. */
export async function call<T = any>(
  method: string,
  pathAndQuery: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  const url = new URL(pathAndQuery, TEST_ORIGIN);
  const headers = new Headers(options.headers);
  headers.set("host", url.host);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  if (options.cookie) {
    headers.set("cookie", options.cookie);
    if (options.origin !== null) headers.set("origin", options.origin ?? TEST_ORIGIN);
  } else if (options.origin) {
    headers.set("origin", options.origin);
  }
  let body: string | undefined;
  if (options.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(options.form).toString();
  } else if (options.body instanceof Uint8Array) {
    if (!headers.has("content-type")) headers.set("content-type", "application/octet-stream");
  } else if (options.body !== undefined) {
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const request = new Request(url, {
    method,
    headers,
    body: options.body instanceof Uint8Array ? new Blob([options.body as Uint8Array<ArrayBuffer>]) : body,
  });
  const handler = routeModuleFor(url.pathname)[method.toUpperCase()] as Handler | undefined;
  if (!handler) return { status: 405, body: undefined as T, headers: new Headers(), text: "" };
  const response = await handler(request);
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
  return { status: response.status, body: parsed as T, headers: response.headers, text };
}

/** A `fetch` that answers from the route handlers in-process (for clients such as the MCP SDK's). */
export async function fetchInProcess(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const handler = routeModuleFor(new URL(request.url).pathname)[request.method.toUpperCase()] as Handler | undefined;
  if (!handler) return new Response(null, { status: 405 });
  return handler(request);
}
