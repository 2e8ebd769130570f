import { appRouter } from "@/server/api/router";
import type { Meta } from "@/server/trpc";

export interface RestProcedure {
  /** The tRPC name, e.g. "projects.get". */
  name: string;
  /** Upper-case HTTP method. */
  method: string;
  /** The OpenAPI path below /api, e.g. "/projects/{namespace}/{slug}". */
  path: string;
  meta: Meta;
}

/** Every procedure the REST surface exposes, read from the routers' `meta.openapi`. */
function collectRestProcedures(): RestProcedure[] {
  const out: RestProcedure[] = [];
  const visit = (record: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(record)) {
      const def = (value as { _def?: { meta?: Meta; procedure?: boolean } })._def;
      if (def?.procedure) {
        const meta = def.meta;
        if (meta?.openapi) out.push({ name: `${prefix}${key}`, method: meta.openapi.method.toUpperCase(), path: meta.openapi.path, meta });
      } else if (value && typeof value === "object") {
        visit(value as Record<string, unknown>, `${prefix}${key}.`);
      }
    }
  };
  visit(appRouter._def.record as Record<string, unknown>, "");
  return out;
}

const holder = globalThis as unknown as { __svcRestProcedures?: RestProcedure[]; __svcRestTemplates?: Array<{ pattern: RegExp; method: string; path: string }> };

export function restProcedures(): RestProcedure[] {
  holder.__svcRestProcedures ??= collectRestProcedures();
  return holder.__svcRestProcedures;
}

function restTemplates() {
  holder.__svcRestTemplates ??= restProcedures().map(({ method, path }) => ({
    method,
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
  }));
  return holder.__svcRestTemplates;
}

/** The methods some procedure serves at `apiPath` (below /api), for a 405's `Allow` header. */
export function methodsServing(apiPath: string): string[] {
  return [...new Set(restTemplates().filter(({ pattern }) => pattern.test(apiPath)).map(({ method }) => method))];
}

/**
 * The route pattern serving a request (`/api/projects/{namespace}/{slug}`), the first that matches
 * as in routing; "unmatched" for anything else, so a metrics label never holds a raw path.
 */
export function restRoutePattern(method: string, pathname: string): string {
  const apiPath = pathname.replace(/^\/api/, "");
  const served = restTemplates().find((template) => template.method === method && template.pattern.test(apiPath));
  return served ? `/api${served.path}` : "unmatched";
}

/** Whether a tRPC procedure name is an administrator procedure (REST path under /admin/). */
export const isAdminProcedure = (name: string): boolean => restProcedures().some((procedure) => procedure.name === name && procedure.path.startsWith("/admin/"));
