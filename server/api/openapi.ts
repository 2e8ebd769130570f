import { generateOpenApiDocument } from "trpc-to-openapi";
import { config } from "@/server/config";
import { appRouter } from "@/server/api/router";
import type { Access, Meta } from "@/server/trpc";
import { errorStatusesOf, reasonOf } from "./openapi-errors";
import { plainRoutes } from "./openapi-plain-routes";
import { restProcedures } from "./procedures";

type Schema = { type?: string; properties?: Record<string, unknown>; required?: string[] };
type Response = {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown }>;
};
type Parameter = { in: string; name: string; required?: boolean; schema?: unknown };
type Operation = {
  operationId?: string;
  summary?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, Response>;
};

export const ERROR_REF = { $ref: "#/components/schemas/Error" };

const SECURITY_SCHEMES = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description: "A user token (`svc_user_…`), an OAuth grant (`svc_oauth_…`) or an agent token (`svc_agent_…`)",
  },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "svc_session",
    description: "A browser session; writes need an Origin or Referer naming this host",
  },
  adminKey: {
    type: "apiKey",
    in: "header",
    name: "X-Admin-API-Key",
    description: "The instance's ADMIN_API_KEY, on /api/admin/* only",
  },
} as const;

/** Which credentials an operation takes, by procedure kind (`{}` first: anonymous callers too). */
const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  public: [{}, { bearer: [] }, { session: [] }],
  authed: [{ bearer: [] }, { session: [] }],
  user: [{ bearer: [] }, { session: [] }],
  session: [{ session: [] }],
  admin: [{ adminKey: [] }, { bearer: [] }, { session: [] }],
};

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: { type: "string", description: "A human-readable message" },
    code: { type: "string", description: "A machine-readable code, on some errors (see each response's description)" },
  },
  additionalProperties: true,
};

const REQUEST_ID_HEADER = {
  description: "The request's id (an incoming valid X-Request-Id is echoed); it is in the server's log line",
  schema: { type: "string" },
};
const LIST_HEADERS = {
  "X-Total-Count": { description: "How many items match, over every page", schema: { type: "integer" } },
  Link: {
    description: 'RFC 8288 links to the rel="first", "prev", "next" and "last" pages (those that exist)',
    schema: { type: "string" },
  },
};
const CURSOR_HEADERS = {
  Link: {
    description:
      'RFC 8288 links to the rel="first" page and, while pages are full, the rel="next" (`before` the last item)',
    schema: { type: "string" },
  },
};
const ETAG_HEADER = {
  ETag: {
    description: "A strong validator of this representation; send it back in If-None-Match",
    schema: { type: "string" },
  },
};

export const isFormRoute = (meta: Meta): boolean =>
  meta.openapi?.contentTypes?.includes("application/x-www-form-urlencoded") ?? false;

function errorResponse(status: number, codes: Set<string>): Response {
  const list = [...codes];
  return {
    description: list.length ? `${reasonOf(status)}. Codes: ${list.join(", ")}` : reasonOf(status),
    headers: { "X-Request-Id": REQUEST_ID_HEADER },
    content: { "application/json": { schema: ERROR_REF } },
  };
}

/** Moves input fields the spec puts in the query of a non-GET route (`meta.query`) out of the body. */
function moveToQuery(operation: Operation, names: string[]): void {
  const content = operation.requestBody?.content ?? {};
  for (const name of names) {
    let schema: unknown;
    for (const media of Object.values(content)) {
      schema ??= media.schema?.properties?.[name];
      delete media.schema?.properties?.[name];
      if (media.schema?.required) media.schema.required = media.schema.required.filter((field) => field !== name);
    }
    operation.parameters = [
      ...(operation.parameters ?? []),
      { in: "query", name, required: false, schema: schema ?? {} },
    ];
  }
  const remaining = Object.values(content).some((media) => Object.keys(media.schema?.properties ?? {}).length > 0);
  if (!remaining) delete operation.requestBody;
}

function completeOperation(operation: Operation, method: string, path: string, name: string, meta: Meta): void {
  const success = operation.responses["200"];
  const status = meta.successStatus ?? 200;
  success.headers = {
    "X-Request-Id": REQUEST_ID_HEADER,
    ...(meta.etag ? ETAG_HEADER : {}),
    ...(meta.list === "cursor" ? CURSOR_HEADERS : meta.list ? LIST_HEADERS : {}),
  };
  const responses: Record<string, Response> = { [status]: success };
  if (status === 302)
    success.headers.Location = { description: "Where the caller is sent", schema: { type: "string" } };
  else if (isFormRoute(meta))
    responses["302"] = {
      description: "A form caller is redirected (Location)",
      headers: { Location: { schema: { type: "string" } } },
    };
  for (const other of meta.alsoSuccess ?? []) responses[other] = success;
  if (meta.etag) responses["304"] = { description: reasonOf(304), headers: ETAG_HEADER };
  for (const [code, codes] of errorStatusesOf(method, path, meta)) responses[code] = errorResponse(code, codes);
  operation.responses = responses;
  operation.summary ??= name;
  operation.security = SECURITY[meta.access ?? "public"];
  if (meta.query?.length) moveToQuery(operation, meta.query);
}

function buildDocument() {
  const document = generateOpenApiDocument(appRouter, {
    title: "Code collaboration service",
    description: "Every route of the service's HTTP API. `/api/trpc` serves the same procedures to tRPC clients.",
    version: "1.0.0",
    baseUrl: config.baseUrl,
    securitySchemes: SECURITY_SCHEMES,
  });
  const procedures = new Map(restProcedures().map((procedure) => [`${procedure.method} ${procedure.path}`, procedure]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      const procedure = procedures.get(`${method.toUpperCase()} ${path}`);
      if (procedure) completeOperation(operation, method, path, procedure.name, procedure.meta);
    }
    paths[`/api${path}`] = item as Record<string, unknown>;
  }
  Object.assign(paths, plainRoutes());
  document.paths = paths;
  // trpc-to-openapi's own error components (error.NOT_FOUND...) are replaced by Error.
  const named = Object.entries(document.components?.schemas ?? {}).filter(([id]) => !id.startsWith("error."));
  document.components = {
    ...document.components,
    schemas: { Error: ERROR_SCHEMA, ...Object.fromEntries(named) } as never,
  };
  return document;
}

const holder = globalThis as unknown as { __svcOpenApi?: ReturnType<typeof buildDocument> };

export function openApiDocument() {
  holder.__svcOpenApi ??= buildDocument();
  return holder.__svcOpenApi;
}
