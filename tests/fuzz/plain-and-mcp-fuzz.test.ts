import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, projectWith } from "@/server/changes/test-fixtures";

/**
 * What the OpenAPI fuzz (openapi-fuzz.test.ts) cannot reach from the document: every MCP tool's
 * input schema, as the server lists it (so a tool is covered the day it is registered), and the
 * plain routes outside the document (/mcp itself, OAuth, discovery, git, the event streams).
 * Generated input must never be a server error; a NUL or a lone surrogate anywhere in a tool's
 * arguments or a stream's URL is the 400 VALIDATION_ERROR REST answers.
 * FUZZ_RUNS sets the runs per tool and route (default 10).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10);

useTestEnvironment({ RATE_LIMIT_PER_MINUTE: "100000000", ALLOW_PRIVATE_TARGETS: "" });

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const UNSTORABLE = ["\u0000", "a\u0000b", "\ud800", "x\udc00y"];

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  required?: string[];
};
type ListedTool = { name: string; inputSchema: JsonSchema };

const world = {} as { token: string; real: Record<string, unknown[]>; tools: ListedTool[]; project: string };

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", ...UNSTORABLE, "x".repeat(100_000), "../../etc/passwd", "@a/b/c", "%00", "2147483648"),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.constantFrom(2 ** 31, 2 ** 63, -1, 0, 1.5, true, false, null),
  fc.array(hostileString, { maxLength: 4 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
  fc.object({ maxDepth: 3 }),
);

/** Arguments for a tool: each listed property real (to reach deep code) or hostile, plus stray keys. */
function argumentsFor(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.fromEntries(
    Object.keys(schema.properties ?? {}).map((name) => {
      const real = world.real[name] ?? [];
      return [name, real.length ? fc.oneof(fc.constantFrom(...real), hostileValue) : hostileValue];
    }),
  );
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 2 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

/** A plausible value of a property (real where the world has one), so the NUL is the only thing wrong. */
function plausible(name: string, schema: JsonSchema): unknown {
  const real = world.real[name];
  if (real?.length) return real[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return false;
  if (type === "array") return [];
  if (type === "object") return {};
  return "text";
}

async function callTool(name: string, args: unknown) {
  return call("POST", "/mcp", {
    token: world.token,
    headers: MCP_HEADERS,
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
  });
}

/** A tool answer's status: the HTTP status, or the tool error's own (structuredContent.status). */
function statusOf(res: Awaited<ReturnType<typeof callTool>>): number {
  if (res.status !== 200) return res.status;
  const result = res.body?.result;
  return result?.isError ? Number(result.structuredContent?.status ?? 500) : 200;
}

beforeAll(async () => {
  const owner = await createTestUser();
  const project = await projectWith(owner.token, { "README.md": "hi\n", "src/a.ts": "a\n" });
  const { change, workspace } = await changeWith(owner.token, project, { "b.txt": "b\n" });
  const issue = await call("POST", `/api/projects/${project.path}/issues`, {
    token: owner.token,
    body: { title: "fuzzed" },
  });
  world.token = owner.token;
  world.project = project.path;
  world.real = {
    project: [project.path],
    change: [change.id],
    workspace: [workspace],
    number: [issue.body.issue.number],
    ref: ["main"],
    branch: ["main"],
    path: ["README.md", "src/a.ts"],
    files: [{ "fuzz.txt": "fuzz\n" }],
    message: ["a message"],
    title: ["a title"],
    body: ["a body"],
    verdict: ["comment"],
  };
  const listed = await call("POST", "/mcp", {
    token: owner.token,
    headers: MCP_HEADERS,
    body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  });
  world.tools = listed.body.result.tools;
});

describe("fuzzing every MCP tool the server lists", () => {
  it("refuses a NUL or a lone surrogate in any argument of any tool with VALIDATION_ERROR", async () => {
    expect(world.tools.length).toBeGreaterThan(15);
    const failures: string[] = [];
    for (const tool of world.tools) {
      const properties = Object.entries(tool.inputSchema.properties ?? {});
      const base = Object.fromEntries(properties.map(([name, schema]) => [name, plausible(name, schema)]));
      const poisoned: Array<[string, Record<string, unknown>]> = [["an unknown key", { ...base, "k\u0000": "v" }]];
      for (const [name, schema] of properties) {
        const value = base[name];
        for (const bad of ["\u0000", "\ud800"]) {
          const escaped = JSON.stringify(bad);
          if (typeof value === "string") poisoned.push([`${name} ${escaped}`, { ...base, [name]: `${value}${bad}` }]);
          else if (schema.type === "array" || schema.type === "object" || value === undefined)
            poisoned.push([
              `${name} ${escaped} inside`,
              { ...base, [name]: schema.type === "array" ? [bad] : { [bad]: bad } },
            ]);
        }
      }
      for (const [what, args] of poisoned) {
        const res = await callTool(tool.name, args);
        const code = res.body?.result?.structuredContent?.code;
        if (statusOf(res) !== 400 || code !== "VALIDATION_ERROR")
          failures.push(`${tool.name} (${what}) -> ${statusOf(res)} ${code} ${res.text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it("answers generated arguments with no server error", async () => {
    const failures: string[] = [];
    for (const tool of world.tools) {
      await fc
        .assert(
          fc.asyncProperty(argumentsFor(tool.inputSchema), async (args) => {
            const res = await callTool(tool.name, args);
            const status = statusOf(res);
            if (!(status < 500))
              failures.push(
                `${tool.name} ${JSON.stringify(args).slice(0, 200)} -> ${status} ${res.text.slice(0, 200)}`,
              );
            return status < 500;
          }),
          { numRuns: RUNS, endOnFailure: true },
        )
        .catch((error: Error) => {
          // A 5xx is recorded above with the tool and its answer (fast-check's message names neither); anything else thrown is a failure too.
          // fast-check's message holds the counterexample; what the property threw is its cause.
          const counterexample = error.message.split("\n").find((line) => line.startsWith("Counterexample")) ?? "";
          const cause =
            error.cause instanceof Error
              ? (error.cause.stack ?? error.cause.message).split("\n").slice(0, 4).join(" | ")
              : String(error.cause);
          if (!failures.some((failure) => failure.startsWith(`${tool.name} `)))
            failures.push(
              `${tool.name}: ${error.message.split("\n")[0]}; ${counterexample.slice(0, 400)}; threw ${cause.slice(0, 1000)}`,
            );
        });
    }
    expect(failures).toEqual([]);
  }, 600_000);
});

describe("fuzzing the plain routes outside the OpenAPI document", () => {
  it("the event streams refuse a NUL or malformed slug with the REST 400", async () => {
    const [namespace] = world.project.split("/");
    for (const stream of ["import", "sync"]) {
      for (const slug of ["a%00b", "%00", "%ff", "%ED%A0%80"]) {
        const res = await call("GET", `/api/projects/${namespace}/${slug}/${stream}/stream`, { token: world.token });
        expect(res.status, `${stream} ${slug}`).toBe(400);
        expect(res.body.code, `${stream} ${slug}`).toBe("VALIDATION_ERROR");
      }
    }
  });

  it("answers generated requests to /mcp, OAuth, discovery and git with no server error", async () => {
    const [namespace, slug] = world.project.split("/");
    const odd = fc.oneof(
      fc.constantFrom("%00", "%ff", "%ED%A0%80", "..", "a%2Fb"),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
    );
    const segment = fc.oneof(fc.constantFrom(namespace, slug), odd);
    const routes: Array<{
      name: string;
      request: fc.Arbitrary<{
        method: string;
        path: string;
        body?: unknown;
        form?: Record<string, string>;
        token?: string;
      }>;
    }> = [
      {
        name: "/mcp",
        request: fc
          .oneof(
            hostileValue,
            fc.record({ jsonrpc: fc.constant("2.0"), id: fc.integer(), method: hostileString, params: hostileValue }),
          )
          .map((body) => ({ method: "POST", path: "/mcp", body: JSON.stringify(body), token: world.token })),
      },
      {
        name: "/oauth/register",
        request: fc
          .record({ client_name: hostileValue, redirect_uris: hostileValue }, { requiredKeys: [] })
          .map((body) => ({ method: "POST", path: "/oauth/register", body })),
      },
      {
        name: "/oauth/token",
        request: fc
          .dictionary(
            fc.constantFrom("grant_type", "code", "code_verifier", "redirect_uri", "client_id", "refresh_token"),
            hostileString,
          )
          .map((form) => ({ method: "POST", path: "/oauth/token", form })),
      },
      {
        name: "/oauth/revoke",
        request: fc
          .dictionary(fc.constantFrom("token", "token_type_hint"), hostileString)
          .map((form) => ({ method: "POST", path: "/oauth/revoke", form })),
      },
      {
        name: "/oauth/authorize",
        request: fc
          .dictionary(
            fc.constantFrom(
              "response_type",
              "client_id",
              "redirect_uri",
              "code_challenge",
              "code_challenge_method",
              "scope",
              "state",
            ),
            hostileString,
          )
          .map((query) => ({ method: "GET", path: `/oauth/authorize?${new URLSearchParams(query)}` })),
      },
      {
        name: "/.well-known",
        request: fc
          .constantFrom("oauth-authorization-server", "oauth-protected-resource")
          .chain((doc) => segment.map((tail) => ({ method: "GET", path: `/.well-known/${doc}/${tail}` }))),
      },
      {
        name: "git",
        request: fc
          .tuple(
            segment,
            segment,
            fc.constantFrom(
              "info/refs?service=git-upload-pack",
              "info/refs?service=git-receive-pack",
              "git-upload-pack",
              "git-receive-pack",
            ),
          )
          .map(([ns, repo, endpoint]) => ({
            method: endpoint.startsWith("info") ? "GET" : "POST",
            path: `/${ns.startsWith("@") ? ns : `@${ns}`}/${repo}.git/${endpoint}`,
            token: world.token,
            body: endpoint.startsWith("info") ? undefined : "0000",
          })),
      },
      // Never the real project: a stream that opens is read to its end.
      {
        name: "streams",
        request: fc.tuple(odd, odd, fc.constantFrom("import", "sync")).map(([ns, repo, stream]) => ({
          method: "GET",
          path: `/api/projects/${ns}/${repo}/${stream}/stream`,
          token: world.token,
        })),
      },
    ];
    const failures: string[] = [];
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(route.request, async ({ method, path, body, form, token }) => {
          const res = await call(method, path, { body, form, token });
          if (res.status >= 500)
            failures.push(`${method} ${path.slice(0, 160)} -> ${res.status} ${res.text.slice(0, 160)}`);
          return res.status < 500;
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
