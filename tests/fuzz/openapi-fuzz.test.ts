import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { conformanceChecker } from "@/tests/support/openapi-conformance";
import { changeWith, projectWith } from "@/server/changes/test-fixtures";
import { grantCollaborator } from "@/server/projects/test-fixtures";

/**
 * Every operation of the OpenAPI document (so a route is covered the day it lands) gets generated
 * path parameters, query values and bodies, against a real project, change, issue and webhook.
 * Nothing may answer 5xx, every answer's status is one its operation lists, and the project must
 * still read afterwards.
 * FUZZ_RUNS sets the runs per operation (default 10 in `npm test`; e.g. FUZZ_RUNS=300 by hand).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10);

useTestEnvironment({ RATE_LIMIT_PER_MINUTE: "100000000", ALLOW_PRIVATE_TARGETS: "" });

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] };
type Operation = {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};

const world = {} as { token: string; readerToken: string; real: Record<string, string[]> };
const statuses = new Map<string, number>();

// Raw path segments and query values no encoder would produce.
const MALFORMED = ["%ff", "%zz", "%", "%00", "a%2Fb", "%c0%80", "..", "%2e%2e", "@", "9".repeat(25), "-1"];

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x".repeat(100_000),
    "GIT~1/x",
    "../../etc/passwd",
    "2147483648",
    "9223372036854775808",
    "true",
    "null",
  ),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.constantFrom(2 ** 31, 2 ** 63, -1, 0, 1.5, Number.MAX_SAFE_INTEGER, true, false, null),
  fc.array(fc.string(), { maxLength: 5 }),
  fc.constant(Array.from({ length: 64 }).reduce<unknown>((inner) => ({ a: inner }), {})),
  fc.object({ maxDepth: 3 }),
);

/** A value for a named parameter: a real one (to reach deep code), a hostile one, or a malformed raw one. */
function paramValue(name: string): fc.Arbitrary<{ raw: boolean; value: string }> {
  const real = world.real[name] ?? [];
  return fc.oneof(
    ...(real.length ? [fc.constantFrom(...real).map((value) => ({ raw: false, value }))] : []),
    hostileString.map((value) => ({ raw: false, value })),
    fc.constantFrom(...MALFORMED).map((value) => ({ raw: true, value })),
  );
}

function bodyFor(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const properties = schema?.properties ?? {};
  const fields = Object.fromEntries(
    Object.keys(properties).map((name) => {
      const real = world.real[name] ?? [];
      return [name, real.length ? fc.oneof(fc.constantFrom(...real), hostileValue) : hostileValue];
    }),
  );
  const object = fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
  return fc.oneof(
    { weight: 8, arbitrary: object },
    { weight: 1, arbitrary: fc.constantFrom([], 123, "text", null, [{}]) },
  );
}

/** Percent-encodes a generated value; a lone surrogate has no UTF-8 form and goes as its invalid CESU-8 bytes. */
function encode({ raw, value }: { raw: boolean; value: string }): string {
  if (raw) return value;
  return [...value].map((ch) => (/[\ud800-\udfff]/.test(ch) ? "%ED%A0%80" : encodeURIComponent(ch))).join("");
}

function operationCase(path: string, operation: Operation) {
  const pathParams = (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
  const queryParams = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
  const schema = operation.requestBody?.content?.["application/json"]?.schema;
  return fc.record({
    path: fc
      .tuple(...pathParams.map(paramValue))
      .map((values) => pathParams.reduce((out, name, i) => out.replace(`{${name}}`, encode(values[i])), path)),
    query: fc
      .tuple(...queryParams.map((name) => fc.option(paramValue(name))))
      .map((values) => queryParams.flatMap((name, i) => (values[i] ? [`${name}=${encode(values[i])}`] : [])).join("&")),
    body: operation.requestBody ? bodyFor(schema) : fc.constant(undefined),
  });
}

let document: { paths: Record<string, Record<string, Operation & { responses: Record<string, unknown> }>> };

beforeAll(async () => {
  const owner = await createTestUser();
  const project = await projectWith(owner.token, { "README.md": "hi\n", "src/a.ts": "a\n" });
  const { change, workspace } = await changeWith(owner.token, project, { "b.txt": "b\n" });
  const issue = await call("POST", `/api/projects/${project.path}/issues`, {
    token: owner.token,
    body: { title: "fuzzed" },
  });
  const agent = await call("POST", "/api/agents", { token: owner.token, body: { name: "fuzzbot" } });
  const [namespace, slug] = project.path.split("/");
  // The fuzzed calls may revoke the owner's own credential; a collaborator checks the project after.
  const reader = await createTestUser();
  await grantCollaborator(project.id, reader.id, "read");
  world.token = owner.token;
  world.readerToken = reader.token;
  world.real = {
    namespace: [namespace],
    slug: [slug],
    projectId: [project.id],
    id: [change.id, agent.body.agent.id, issue.body.issue.id],
    number: [String(issue.body.issue.number)],
    name: ["main", workspace],
    workspace: [workspace],
    changeIds: [change.id],
    title: ["a title"],
    verdict: ["approve", "comment"],
    ref: ["main"],
    path: ["README.md", "src/a.ts"],
    sha: [project.commit, "main"],
    base: [project.commit, "main"],
    head: ["main"],
    q: ["hi", "a("],
    format: ["patch", "zip", "tar.gz"],
  };
  document = (await call("GET", "/api/openapi.json")).body;
});

describe("fuzzing every operation of the OpenAPI document", () => {
  it("answers no 5xx and no undocumented status to generated input, and the project still reads afterwards", async () => {
    const conformance = conformanceChecker(document);
    // HEAD is served wherever GET is, so it is fuzzed there too.
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        (method === "get" ? ["GET", "HEAD"] : [method.toUpperCase()]).map((verb) => ({
          path,
          method: verb,
          operation,
        })),
      ),
    );
    expect(operations.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const { path, method, operation } of operations) {
      await fc.assert(
        fc.asyncProperty(operationCase(path, operation), async ({ path: concrete, query, body }) => {
          const url = `${concrete}${query ? `?${query}` : ""}`;
          const headers: Record<string, string> = concrete.startsWith("/api/admin")
            ? { "x-admin-api-key": TEST_ADMIN_KEY }
            : {};
          const res = await call(method, url, {
            token: world.token,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          conformance.check(method, url, res.status);
          const bucket = `${Math.floor(res.status / 100)}xx`;
          statuses.set(bucket, (statuses.get(bucket) ?? 0) + 1);
          if (res.status >= 500)
            failures.push(`${method} ${url.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`);
          return res.status < 500;
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    }
    console.log(
      `[fuzz] ${[...statuses.values()].reduce((a, b) => a + b, 0)} requests over ${operations.length} operations and methods:`,
      Object.fromEntries(statuses),
    );
    expect(failures).toEqual([]);
    expect(
      conformance.findings(),
      `statuses the document does not list: ${JSON.stringify(conformance.findings())}`,
    ).toEqual([]);
    const [namespace, slug] = [world.real.namespace[0], world.real.slug[0]];
    for (const read of ["", "/files", "/changes", "/issues"]) {
      const res = await call("GET", `/api/projects/${namespace}/${slug}${read}`, { token: world.readerToken });
      expect(res.status, read).toBe(200);
    }
  }, 600_000);
});
