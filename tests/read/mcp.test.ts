import { afterAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { connectMcp } from "@/tests/support/mcp";
import { createTestUser } from "@/tests/support/users";
import { changeWith, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
});

async function structured(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent;
}

describe("the reading tools answer the REST bodies", () => {
  it("get_change_diff, get_commit, compare, search_code, blame, list_tags", { timeout: 120_000 }, async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "alpha\nbeta\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "alpha\nBETA\n", "b.txt": "beta two\n" });
    await call("POST", `/api/projects/${project.path}/tags`, {
      token: alice.token,
      body: { name: "v1", message: "first" },
    });
    const client = await connectMcp({ token: alice.token });
    clients.push(client);
    const base = `/api/projects/${project.path}`;
    const pairs: Array<[string, Record<string, unknown>, string]> = [
      ["get_change_diff", { change: change.id, limit: 1 }, `/api/changes/${change.id}/diff?limit=1`],
      ["get_commit", { project: project.path, sha: project.commit }, `${base}/commits/${project.commit}`],
      [
        "compare",
        { project: project.path, base: project.commit, head: "main" },
        `${base}/compare?base=${project.commit}&head=main`,
      ],
      ["search_code", { project: project.path, q: "ALPHA", case: "false" }, `${base}/search?q=ALPHA`],
      ["blame", { project: project.path, path: "a.txt" }, `${base}/blame?path=a.txt`],
      ["list_tags", { project: project.path }, `${base}/tags`],
    ];
    for (const [name, args, route] of pairs) {
      const rest = await call("GET", route, { token: alice.token });
      expect(rest.status, `${route}: ${JSON.stringify(rest.body)}`).toBe(200);
      expect(await structured(client, name, args), name).toEqual(rest.body);
    }
    expect((await structured(client, "get_change_diff", { change: change.id })) as { files: unknown[] }).toMatchObject({
      totals: { files: 2 },
    });
  });

  it("refuses a project the caller cannot read as the REST route does", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const client = await connectMcp({ token: mallory.token });
    clients.push(client);
    const result = (await client.callTool({
      name: "search_code",
      arguments: { project: project.path, q: "a" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("404");
  });
});
