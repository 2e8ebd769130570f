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
  /** The procedure's input schema (Standard Schema, as tRPC validates it), if it takes input. */
  input?: InputSchema;
}

/** The part of the Standard Schema interface used here: zod schemas implement it. */
interface InputSchema {
  "~standard": {
    validate(value: unknown): { value?: unknown; issues?: unknown } | Promise<{ value?: unknown; issues?: unknown }>;
  };
}

/** Every procedure the REST surface exposes, read from the routers' `meta.openapi`. */
function collectRestProcedures(): RestProcedure[] {
  const out: RestProcedure[] = [];
  const visit = (record: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(record)) {
      const def = (value as { _def?: { meta?: Meta; procedure?: boolean; inputs?: InputSchema[] } })._def;
      if (def?.procedure) {
        const meta = def.meta;
        if (meta?.openapi)
          out.push({
            name: `${prefix}${key}`,
            method: meta.openapi.method.toUpperCase(),
            path: meta.openapi.path,
            meta,
            input: def.inputs?.[0],
          });
      } else if (value && typeof value === "object") {
        visit(value as Record<string, unknown>, `${prefix}${key}.`);
      }
    }
  };
  visit(appRouter._def.record, "");
  return out;
}

interface Template {
  procedure: RestProcedure;
  pattern: RegExp;
  /** Literal segments: among templates matching one URL, the most literal is the route served. */
  literals: number;
}

const holder = globalThis as unknown as { __svcRestProcedures?: RestProcedure[]; __svcRestTemplates?: Template[] };

export function restProcedures(): RestProcedure[] {
  holder.__svcRestProcedures ??= collectRestProcedures();
  return holder.__svcRestProcedures;
}

function templates(): Template[] {
  holder.__svcRestTemplates ??= restProcedures().map((procedure) => ({
    procedure,
    pattern: new RegExp(
      `^${procedure.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, "(?<$1>[^/]+)")}/?$`,
    ),
    literals: procedure.path.split("/").filter((segment) => segment && !segment.startsWith("{")).length,
  }));
  return holder.__svcRestTemplates;
}

/** The methods some procedure serves at `apiPath` (below /api), for a 405's `Allow` header. */
export function methodsServing(apiPath: string): string[] {
  return [
    ...new Set(
      templates()
        .filter(({ pattern }) => pattern.test(apiPath))
        .map(({ procedure }) => procedure.method),
    ),
  ];
}

/** The procedure serving `method` at `apiPath` (below /api), if any: its route pattern and meta. */
export function procedureAt(method: string, apiPath: string): RestProcedure | undefined {
  const matches = templates().filter(
    (template) => template.procedure.method === method && template.pattern.test(apiPath),
  );
  return matches.sort((a, b) => b.literals - a.literals)[0]?.procedure;
}

/**
 * The input a REST call gives `procedure`, validated by its own schema: the path parameters (still
 * percent-encoded, as trpc-to-openapi passes them) over the query (a repeated key becomes an array).
 * Undefined when the schema refuses it.
 */
export async function restInputOf(
  procedure: RestProcedure,
  apiPath: string,
  query: URLSearchParams,
): Promise<{ value: unknown } | undefined> {
  const template = templates().find((candidate) => candidate.procedure === procedure);
  const params = template?.pattern.exec(apiPath)?.groups;
  if (!params || !procedure.input) return undefined;
  const raw: Record<string, string | string[]> = {};
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key);
    raw[key] = values.length === 1 ? values[0] : values;
  }
  const result = await procedure.input["~standard"].validate({ ...raw, ...params });
  return result.issues ? undefined : { value: result.value };
}

/** Whether a tRPC procedure name is an administrator procedure (REST path under /admin/). */
export const isAdminProcedure = (name: string): boolean =>
  restProcedures().some((procedure) => procedure.name === name && procedure.path.startsWith("/admin/"));
