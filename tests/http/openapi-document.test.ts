import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { SPEC_ROUTES, SPEC_STATUSES } from "@/tests/support/spec-routes";
import { restProcedures } from "@/server/api/procedures";

useTestEnvironment();

type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};
type Document = {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

let document: Document;
const operation = (method: string, route: string) => document.paths[route]?.[method];
const routesOf = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([route, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`),
  );

beforeAll(async () => {
  document = (await call("GET", "/api/openapi.json")).body;
});

describe("the OpenAPI document", () => {
  it("lists every route of the spec and the router's routes, no more", () => {
    const routes = routesOf(document);
    const missing = SPEC_ROUTES.filter((route) => !routes.includes(route));
    expect(missing, "spec routes the document lacks").toEqual([]);
    const procedures = restProcedures().map(({ method, path }) => `${method} /api${path}`);
    const plain = [
      "GET /health",
      "GET /api/openapi.json",
      "POST /api/auth/dev-login",
      "GET /api/projects/{namespace}/{slug}/import/stream",
      "GET /api/projects/{namespace}/{slug}/sync/stream",
      "GET /api/changes/{id}/events",
      "GET /api/changes/{id}/evaluations/{runId}/log",
      "POST /api/providers/github/webhook",
      "GET /api/admin/backups/{id}/archive",
      "POST /api/admin/restore",
      "GET /api/projects/{namespace}/{slug}/archive",
      "GET /api/projects/{namespace}/{slug}/raw",
    ];
    expect(routes.sort()).toEqual([...procedures, ...plain].sort());
  });

  it("lists every status the spec names for each of its routes", () => {
    const lacking = Object.entries(SPEC_STATUSES).flatMap(([route, statuses]) => {
      const [method, path] = route.split(" ");
      const documented = Object.keys(operation(method.toLowerCase(), path)?.responses ?? {});
      return statuses.filter((status) => !documented.includes(String(status))).map((status) => `${route} ${status}`);
    });
    expect(lacking).toEqual([]);
  });

  it("names its types as components and refers to them", () => {
    for (const id of [
      "Error",
      "Project",
      "Change",
      "Issue",
      "IssueComment",
      "Webhook",
      "Workspace",
      "Branch",
      "Agent",
      "Token",
      "User",
      "Review",
      "ChangeComment",
    ]) {
      expect(document.components.schemas, id).toHaveProperty(id);
    }
    const issue = operation("get", "/api/projects/{namespace}/{slug}/issues/{number}");
    expect(JSON.stringify(issue.responses["200"])).toContain('"#/components/schemas/Issue"');
    expect(issue.responses["404"].content?.["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
  });

  it("lists every error status a route can answer, with its codes", () => {
    const merge = operation("post", "/api/changes/{id}/merge");
    expect(Object.keys(merge.responses)).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "415",
      "429",
      "500",
    ]);
    const conflict = JSON.stringify(merge.responses["409"]);
    for (const code of ["STALE_BASE", "STALE_WORKSPACE", "WORKSPACE_UNVERIFIABLE", "MERGE_CONFLICT"])
      expect(conflict).toContain(code);
    expect(JSON.stringify(merge.responses["403"])).toContain("PROTECTION_BLOCKED");
    expect(Object.keys(operation("get", "/api/projects").responses)).toEqual(["200", "400", "401", "429", "500"]);
    expect(operation("get", "/api/projects/{namespace}/{slug}/files").responses).toHaveProperty("304");
    expect(operation("get", "/api/health").responses).toHaveProperty("503");
  });

  it("puts the merge route's force and strategy in the query, not in a body", () => {
    const merge = operation("post", "/api/changes/{id}/merge");
    expect(
      merge.parameters
        ?.filter((p) => p.in === "query")
        .map((p) => p.name)
        .sort(),
    ).toEqual(["force", "strategy"]);
    expect(merge.requestBody).toBeUndefined();
  });

  it("answers form routes and the issue toggle with 302 where the spec says", () => {
    expect(Object.keys(operation("post", "/api/projects/{namespace}/{slug}/issues/{number}/close").responses)[0]).toBe(
      "302",
    );
    expect(Object.keys(operation("post", "/api/projects/{namespace}/{slug}/webhooks/{id}/delete").responses)[0]).toBe(
      "302",
    );
    const createProject = operation("post", "/api/projects");
    expect(createProject.responses).toHaveProperty("201");
    expect(createProject.responses).toHaveProperty("302");
    expect(Object.keys(createProject.requestBody!.content)).toContain("application/x-www-form-urlencoded");
  });

  it("names the three credentials and which routes take them", () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["adminKey", "bearer", "session"]);
    expect(operation("get", "/api/users/me/tokens").security).toEqual([{ session: [] }]);
    expect(operation("get", "/api/admin/jobs").security).toContainEqual({ adminKey: [] });
    expect(operation("get", "/api/projects/{namespace}/{slug}").security).toContainEqual({});
    expect(operation("post", "/api/agents").security).not.toContainEqual({});
  });

  it("is the document checked in under client/ (run `npm run openapi` after changing a route)", () => {
    const committed = JSON.parse(
      fs.readFileSync(path.resolve(import.meta.dirname, "../../client/openapi.json"), "utf8"),
    ) as Document;
    expect({ ...committed, servers: document.servers }).toEqual(document);
  });
});
