import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runSvcCommand } from "@/server/users/cli";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { connectMcp } from "@/tests/support/mcp";
import { createTestSession } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";
import { changeWith, createAgentFor, merge, projectWith, type TestProject } from "@/server/changes/test-fixtures";
import { TOOLS } from "./index";

useTestEnvironment();

type User = Awaited<ReturnType<typeof createTestUser>>;

const grantFor = async (username: string, scope: "read" | "read_write") =>
  ((await runSvcCommand(["oauth:grant", username, "--scope", scope])) as { token: string }).token;

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

async function tool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await tool(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as any;
}

let alice: User;
let project: TestProject;
let client: Client;
const clients: Client[] = [];

async function connect(token: string) {
  const connected = await connectMcp({ token });
  clients.push(connected);
  return connected;
}

beforeAll(async () => {
  alice = await createTestUser();
  project = await projectWith(alice.token, { "README.md": "hello\n", "src/a.txt": "a\n" });
  client = await connect(alice.token);
});

afterAll(async () => {
  for (const connected of clients) await connected.close();
});

describe("the /mcp gate", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
  const accept = { accept: "application/json, text/event-stream" };

  it("answers 401 with the protected-resource challenge without credentials, and invalid_token for a bad one", async () => {
    const bare = await call("POST", "/mcp", { body: initialize, headers: accept });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="http://svc.test/.well-known/oauth-protected-resource"',
    );
    expect(bare.body).toEqual({ error: "Authentication required" });
    const bad = await call("POST", "/mcp", { body: initialize, headers: accept, token: "svc_oauth_nottoken" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(bad.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  it("refuses bodies over 4 MiB with 413", async () => {
    const huge = { ...initialize, params: { ...initialize.params, padding: "x".repeat(4 * 1024 * 1024) } };
    const res = await call("POST", "/mcp", { body: huge, headers: accept, token: alice.token });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("serves POST only", async () => {
    expect((await call("GET", "/mcp", { token: alice.token, headers: accept })).status).toBe(405);
    expect((await call("DELETE", "/mcp", { token: alice.token })).status).toBe(405);
  });

  it.each(["2025-03-26", "2025-06-18"])("negotiates protocol version %s", async (version) => {
    const res = await call("POST", "/mcp", {
      body: { ...initialize, params: { ...initialize.params, protocolVersion: version } },
      headers: accept,
      token: alice.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBe(version);
    expect(res.body.result.capabilities.tools).toBeDefined();
  });

  it("gives 2025-03-26 clients the JSON as text, newer ones structuredContent and a short text", async () => {
    const request = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "get_project", arguments: { project: project.path } },
    };
    const old = await call("POST", "/mcp", {
      body: request,
      headers: { ...accept, "mcp-protocol-version": "2025-03-26" },
      token: alice.token,
    });
    expect(JSON.parse(old.body.result.content[0].text)).toEqual(old.body.result.structuredContent);
    const current = await call("POST", "/mcp", {
      body: request,
      headers: { ...accept, "mcp-protocol-version": "2025-06-18" },
      token: alice.token,
    });
    expect(current.body.result.content[0].text).toBe(`${project.path} (private, default branch main)`);
    expect(current.body.result.structuredContent.id).toBe(project.id);
  });

  it("ignores /mcp's query string (merge reads force from the REST query)", async () => {
    const res = await call("POST", "/mcp?force=true", {
      body: { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} },
      headers: { ...accept, "mcp-protocol-version": "2025-06-18" },
      token: alice.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.result.tools.length).toBe(TOOLS.length);
  });
});

describe("tools", () => {
  it("lists every tool with its annotations and a JSON Schema from the procedure's zod input", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "list_projects",
        "get_project",
        "list_files",
        "read_file",
        "get_log",
        "list_branches",
        "create_workspace",
        "commit_files",
        "create_change",
        "get_change",
        "get_evaluation_log",
        "list_changes",
        "comment_on_change",
        "review_change",
        "merge_change",
        "list_issues",
        "get_issue",
        "create_issue",
        "update_issue",
        "comment_on_issue",
        "list_deployments",
        "submit_change",
        "queue_change",
        "get_queue",
        // docs/contracts.md#reading-code (server/mcp/read-tools.ts)
        "get_change_diff",
        "get_commit",
        "compare",
        "search_code",
        "blame",
        "list_tags",
      ].sort(),
    );
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.read_file.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.merge_change.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.submit_change.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.read_file.inputSchema).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["project", "path"]),
    });
    expect(Object.keys(byName.update_issue.inputSchema.properties ?? {}).sort()).toEqual(
      ["assignee", "body", "labels", "linkedChangeId", "number", "project", "status", "title"].sort(),
    );
    expect(byName.create_issue.inputSchema.properties?.title).toMatchObject({ type: "string", maxLength: 200 });
    expect(Object.keys(byName.submit_change.inputSchema.properties ?? {}).sort()).toEqual([
      "files",
      "message",
      "project",
      "workspace",
    ]);
    expect(byName.submit_change.inputSchema.required?.sort()).toEqual(["files", "message", "project"]);
  });

  it("read tools answer the REST route's JSON", async () => {
    const rest = (path: string) => call("GET", path, { token: alice.token }).then((res) => res.body);
    expect(await ok(client, "list_projects")).toEqual(await rest("/api/projects"));
    expect(await ok(client, "get_project", { project: project.path })).toEqual(
      await rest(`/api/projects/${project.path}`),
    );
    expect(await ok(client, "list_files", { project: project.path })).toEqual(
      await rest(`/api/projects/${project.path}/files`),
    );
    expect(await ok(client, "read_file", { project: project.path, path: "src/a.txt", ref: "main" })).toEqual(
      await rest(`/api/projects/${project.path}/content?path=src/a.txt&ref=main`),
    );
    expect(await ok(client, "get_log", { project: project.path, depth: 5 })).toEqual(
      await rest(`/api/projects/${project.path}/log?depth=5`),
    );
    expect(await ok(client, "list_branches", { project: project.path })).toEqual(
      await rest(`/api/projects/${project.path}/branches`),
    );
  });

  it("contributes step by step: workspace, commit, change, comment, review, merge", async () => {
    const ws = await ok(client, "create_workspace", { project: project.path, workspace: "stepwise" });
    expect(ws.workspace).toBe("stepwise");
    const commit = await ok(client, "commit_files", {
      project: project.path,
      workspace: "stepwise",
      files: { "src/b.txt": "b\n" },
      message: "add b",
    });
    expect(commit).toMatchObject({ workspace: "stepwise", files: 1 });
    const created = await ok(client, "create_change", { project: project.path, workspace: "stepwise" });
    expect(created.change.status).toBe("accepted");
    const changeId = created.change.id;
    expect(await ok(client, "get_change", { change: changeId })).toEqual(
      (await call("GET", `/api/changes/${changeId}`, { token: alice.token })).body,
    );
    // The same change by its project and number.
    const byNumber = await ok(client, "get_change", { change: `${project.path}#${created.change.number}` });
    expect(byNumber.change.id).toBe(changeId);
    const byBang = await ok(client, "get_change", { change: `${project.path}!${created.change.number}` });
    expect(byBang.change.id).toBe(changeId);
    const runId = created.evalRuns[0].id;
    const log = await ok(client, "get_evaluation_log", { changeId, runId, tail: 10 });
    expect(log).toEqual({
      runId,
      status: "passed",
      logBytes: 0,
      log: (await call("GET", `/api/changes/${changeId}/evaluations/${runId}/log?tail=10`, { token: alice.token }))
        .text,
    });
    expect(
      (await tool(client, "get_evaluation_log", { changeId, runId: "00000000-0000-4000-8000-000000000000" })).isError,
    ).toBe(true);
    const listed = await ok(client, "list_changes", { project: project.path, status: "accepted" });
    expect(listed.changes.map((c: { id: string }) => c.id)).toContain(changeId);
    const comment = await ok(client, "comment_on_change", {
      change: changeId,
      body: "looks fine",
      file: "src/b.txt",
      line: 1,
      side: "new",
    });
    expect(comment.comment).toMatchObject({ file: "src/b.txt", line: 1, side: "new" });
    const review = await ok(client, "review_change", { change: changeId, verdict: "comment", comment: "noted" });
    expect(review.changeStatus).toBe("accepted");
    const merged = await ok(client, "merge_change", { change: changeId, strategy: "squash" });
    expect(merged).toMatchObject({ merged: true, changeId, strategy: "squash" });
    const file = await ok(client, "read_file", { project: project.path, path: "src/b.txt" });
    expect(file.value).toBe("b\n");
  });

  it("submit_change makes the workspace, commits, opens the change and returns its verdict with findings", async () => {
    const secret = "AKIA" + "IOSFODNN7EXAMPLQ";
    const result = await tool(client, "submit_change", {
      project: project.path,
      files: { "config.txt": `aws_access_key_id = ${secret}\n` },
      message: "oops",
    });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as any;
    expect(body.change.status).toBe("needs_changes");
    expect(body.eval).toBeDefined();
    expect(body.evalRuns.some((run: { findings: unknown[] }) => run.findings.length > 0)).toBe(true);
    expect(textOf(result)).toMatch(/^Change .* is needs_changes \(\d+ eval runs?, \d+ findings?\)$/);
    const clean = await ok(client, "submit_change", {
      project: project.path,
      workspace: "again",
      files: { "c.txt": "c\n" },
      message: "c",
    });
    expect(clean.change.status).toBe("accepted");
    // The named workspace is reused on a second submission.
    const second = await ok(client, "submit_change", {
      project: project.path,
      workspace: "again",
      files: { "c.txt": "c2\n" },
      message: "c2",
    });
    expect(second.change.workspace).toBe(clean.change.workspace);
    expect(second.change.id).not.toBe(clean.change.id);
  });

  it("issues: create, list, get, update, comment", async () => {
    const created = await ok(client, "create_issue", { project: project.path, title: "Bug", body: "it breaks" });
    const number = created.issue.number;
    expect(
      (await ok(client, "list_issues", { project: project.path, status: "open" })).issues.map(
        (i: { number: number }) => i.number,
      ),
    ).toContain(number);
    expect(await ok(client, "get_issue", { project: project.path, number })).toEqual(
      (await call("GET", `/api/projects/${project.path}/issues/${number}`, { token: alice.token })).body,
    );
    const updated = await ok(client, "update_issue", {
      project: project.path,
      number,
      status: "closed",
      labels: ["bug", "bug"],
    });
    expect(updated.issue).toMatchObject({ status: "closed", labels: ["bug"] });
    const comment = await ok(client, "comment_on_issue", { project: project.path, number, body: "fixed" });
    expect(comment.comment).toMatchObject({ issueNumber: number, body: "fixed" });
  });

  it("deployments: list_deployments answers what GET .../deployments answers, filters included", async () => {
    const listed = await ok(client, "list_deployments", { project: project.path, status: "succeeded", limit: 5 });
    expect(listed).toEqual(
      (await call("GET", `/api/projects/${project.path}/deployments?status=succeeded&limit=5`, { token: alice.token }))
        .body,
    );
    const refused = await client.callTool({
      name: "list_deployments",
      arguments: { project: project.path, status: "exploded" },
    });
    expect(refused.isError).toBe(true);
  });
});

describe("refusals", () => {
  it("failures are isError results whose text starts with the spec's code or status", async () => {
    const bob = await createTestUser();
    const bobs = await projectWith(bob.token, { "x.txt": "x" });
    const hidden = await tool(client, "get_project", { project: bobs.path });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toMatch(/^404: /);
    const invalid = await tool(client, "create_issue", { project: project.path, title: "" });
    expect(textOf(invalid)).toMatch(/^VALIDATION_ERROR \(400\): /);
    const badProject = await tool(client, "list_files", { project: "alice/x" });
    expect(textOf(badProject)).toMatch(/^VALIDATION_ERROR \(400\): .*project/);
    const noWorkspace = await tool(client, "create_workspace", { project: bobs.path });
    expect(textOf(noWorkspace)).toMatch(/^404: /);
    const unknown = await tool(client, "get_change", { change: "nope" });
    expect(textOf(unknown)).toMatch(/^404/);
    expect(unknown.structuredContent).toMatchObject({ status: 404, error: expect.any(String) });
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("a refusal's structuredContent.status is the HTTP status, whatever fields the refusal has", async () => {
    const { change } = await changeWith(alice.token, project, { "queued-late.txt": "q\n" });
    expect((await merge(alice.token, change.id)).status).toBe(200);
    const refused = await tool(client, "queue_change", { change: change.id });
    expect(textOf(refused)).toMatch(/^CHANGE_NOT_MERGEABLE \(409\): /);
    expect(refused.structuredContent).toEqual({
      status: 409,
      code: "CHANGE_NOT_MERGEABLE",
      error: expect.any(String),
      changeStatus: "merged",
    });
  });

  it("an agent may contribute and comment but never reviews or merges", async () => {
    const agent = await createAgentFor(alice.token);
    const agentClient = await connect(agent.token);
    const submitted = await ok(agentClient, "submit_change", {
      project: project.path,
      files: { "agent.txt": "hi\n" },
      message: "agent work",
    });
    const changeId = submitted.change.id;
    await ok(agentClient, "comment_on_change", { change: changeId, body: "by the agent" });
    for (const [name, args] of [
      ["review_change", { change: changeId, verdict: "approve" }],
      ["merge_change", { change: changeId }],
      ["update_issue", { project: project.path, number: 1, title: "x" }],
    ] as const) {
      const refused = await tool(agentClient, name, args);
      expect(refused.isError, name).toBe(true);
      expect(textOf(refused), name).toMatch(/^401: /);
    }
    expect((await ok(client, "get_change", { change: changeId })).change.status).toBe("accepted");
  });

  it("a read grant sees only read-only tools and is refused the others with TOKEN_SCOPE_INSUFFICIENT", async () => {
    const readClient = await connect(await grantFor(alice.username, "read"));
    const { tools } = await readClient.listTools();
    const expected = TOOLS.filter((t) => t.readOnly).map((t) => t.name);
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    await ok(readClient, "list_files", { project: project.path });
    const refused = await tool(readClient, "create_issue", { project: project.path, title: "nope" });
    expect(textOf(refused)).toMatch(/^TOKEN_SCOPE_INSUFFICIENT \(403\): /);
    const issues = await ok(client, "list_issues", { project: project.path, q: "nope" });
    expect(issues.issues).toEqual([]);
    const writeClient = await connect(await grantFor(alice.username, "read_write"));
    expect((await writeClient.listTools()).tools.length).toBe(TOOLS.length);
  });

  it("a revoked grant is refused at the gate", async () => {
    const grant = await grantFor(alice.username, "read_write");
    const grantClient = await connect(grant);
    await ok(grantClient, "list_projects");
    const { cookie } = await createTestSession(alice.username);
    const tokens = (await call("GET", "/api/users/me/tokens", { cookie })).body.tokens as Array<{
      id: string;
      prefix: string;
    }>;
    const row = tokens.find((t) => grant.startsWith(t.prefix))!;
    expect((await call("DELETE", `/api/users/me/tokens/${row.id}`, { cookie })).status).toBe(200);
    await expect(grantClient.listTools()).rejects.toThrow(/Invalid or expired token/);
  });
});
