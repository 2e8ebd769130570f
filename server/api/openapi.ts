import { generateOpenApiDocument } from "trpc-to-openapi";
import { config } from "@/server/config";
import { appRouter } from "@/server/api/router";
import { restProcedures } from "./procedures";

const errorSchema = {
  type: "object",
  required: ["error"],
  properties: { error: { type: "string" }, code: { type: "string" } },
  additionalProperties: true,
};

type Operation = { responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }> };

/** Success statuses declared with `meta.successStatus`, keyed by "method /path". */
function declaredStatuses(): Map<string, number> {
  return new Map(restProcedures().flatMap(({ method, path, meta }) => (meta.successStatus ? [[`${method.toLowerCase()} ${path}`, meta.successStatus] as const] : [])));
}

function buildDocument() {
  const document = generateOpenApiDocument(appRouter, {
    title: "Code collaboration service",
    version: "1.0.0",
    baseUrl: `${config.baseUrl}/api`,
    securitySchemes: { bearer: { type: "http", scheme: "bearer" }, session: { type: "apiKey", in: "cookie", name: "svc_session" } },
  });
  const statuses = declaredStatuses();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      const responses = operation.responses;
      if (!responses) continue;
      const status = statuses.get(`${method} ${path}`);
      if (status && responses["200"]) {
        responses[String(status)] = responses["200"];
        delete responses["200"];
      }
      for (const [code, response] of Object.entries(responses)) {
        if (Number(code) >= 400) response.content = { "application/json": { schema: errorSchema } };
      }
    }
  }
  return document;
}

const holder = globalThis as unknown as { __svcOpenApi?: ReturnType<typeof buildDocument> };

export function openApiDocument() {
  holder.__svcOpenApi ??= buildDocument();
  return holder.__svcOpenApi;
}
