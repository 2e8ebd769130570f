import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";

const env = useTestEnvironment();

async function createAgent(ownerToken: string, body: Record<string, unknown> = { name: "builder", model: "gpt-x" }) {
  const res = await call("POST", "/api/agents", { token: ownerToken, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { agent: { id: string }; token: string };
}

describe("POST /api/agents", () => {
  it("registers an agent and returns its token once, with no-store", async () => {
    const owner = await createTestUser();
    const res = await call("POST", "/api/agents", { token: owner.token, body: { name: "builder", model: "gpt-x" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.token).toMatch(/^svc_agent_/);
    expect(res.body.agent).toMatchObject({
      name: "builder",
      model: "gpt-x",
      owner: { id: owner.id, username: owner.username },
    });
    expect(res.body.token.startsWith(res.body.agent.tokenPrefix)).toBe(true);
    const row = await env.database.prisma.agent.findUniqueOrThrow({ where: { id: res.body.agent.id } });
    expect(Object.values(row)).not.toContain(res.body.token);
  });

  it("needs a user identity (agents 401) and valid input (400)", async () => {
    const owner = await createTestUser();
    const { token } = await createAgent(owner.token);
    const byAgent = await call("POST", "/api/agents", { token, body: { name: "child" } });
    expect(byAgent.status).toBe(401);
    expect(byAgent.body.code).toBeUndefined();
    expect((await call("POST", "/api/agents", { body: { name: "x" } })).status).toBe(401);
    expect((await call("POST", "/api/agents", { token: owner.token, body: { name: "x".repeat(101) } })).status).toBe(
      400,
    );
    expect((await call("POST", "/api/agents", { token: owner.token, body: { name: "a\u0000" } })).status).toBe(400);
    expect((await call("POST", "/api/agents", { token: owner.token, body: { model: "m\u0000" } })).status).toBe(400);
    expect((await call("POST", "/api/agents", { token: owner.token, body: {} })).status).toBe(201);
  });
});

describe("GET /api/agents and /api/agents/{id}", () => {
  it("lists the owner's agents without tokens; an agent sees its owner's agents; others see none", async () => {
    const owner = await createTestUser();
    const stranger = await createTestUser();
    const first = await createAgent(owner.token, { name: "one" });
    const second = await createAgent(owner.token, { name: "two" });
    const list = await call("GET", "/api/agents", { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.agents.map((a: { name: string }) => a.name).sort()).toEqual(["one", "two"]);
    expect(list.text).not.toContain(first.token);
    expect(list.text).not.toContain(second.token);
    const asAgent = await call("GET", "/api/agents", { token: first.token });
    expect(asAgent.body.agents).toHaveLength(2);
    expect((await call("GET", "/api/agents", { token: stranger.token })).body.agents).toEqual([]);
    expect((await call("GET", "/api/agents")).status).toBe(401);

    const one = await call("GET", `/api/agents/${first.agent.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.agent.id).toBe(first.agent.id);
    expect(one.text).not.toContain(first.token);
    expect((await call("GET", `/api/agents/${first.agent.id}`, { token: second.token })).status).toBe(200);
    expect((await call("GET", `/api/agents/${first.agent.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", "/api/agents/00000000-0000-4000-8000-000000000000", { token: owner.token })).status).toBe(
      404,
    );
    expect((await call("GET", "/api/agents/nope", { token: owner.token })).status).toBe(404);
  });

  it("an agent identity is never a user identity: GET /api/users/me is 401 for it", async () => {
    const owner = await createTestUser();
    const { token } = await createAgent(owner.token);
    const res = await call("GET", "/api/users/me", { token });
    expect(res.status).toBe(401);
    expect(res.body.code).toBeUndefined();
  });
});

describe("DELETE /api/agents/{id}", () => {
  it("401 for agents (itself or a sibling), 403 for another user, 404 for unknown ids", async () => {
    const owner = await createTestUser();
    const stranger = await createTestUser();
    const first = await createAgent(owner.token);
    const second = await createAgent(owner.token);
    for (const target of [first, second]) {
      const res = await call("DELETE", `/api/agents/${target.agent.id}`, { token: first.token });
      expect(res.status).toBe(401);
      expect(res.body.code).toBeUndefined();
    }
    expect((await call("DELETE", `/api/agents/${first.agent.id}`)).status).toBe(401);
    const byStranger = await call("DELETE", `/api/agents/${first.agent.id}`, { token: stranger.token });
    expect(byStranger.status).toBe(403);
    expect(
      (await call("DELETE", "/api/agents/00000000-0000-4000-8000-000000000000", { token: owner.token })).status,
    ).toBe(404);
    expect((await call("DELETE", "/api/agents/nope", { token: owner.token })).status).toBe(404);
    expect((await call("GET", "/api/agents", { token: first.token })).status).toBe(200);
  });

  it("the owner deletes: the token is 401 at once, the agent 404, and agent.revoked is audited", async () => {
    const owner = await createTestUser();
    const { agent, token } = await createAgent(owner.token);
    const sibling = await createAgent(owner.token);
    const res = await call("DELETE", `/api/agents/${agent.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.agent).toMatchObject({ id: agent.id, deleted: true });
    const after = await call("GET", "/api/agents", { token });
    expect(after.status).toBe(401);
    expect(after.body.code).toBeUndefined();
    expect((await call("GET", `/api/agents/${agent.id}`, { token: owner.token })).status).toBe(404);
    expect((await call("DELETE", `/api/agents/${agent.id}`, { token: owner.token })).status).toBe(404);
    expect((await call("GET", "/api/agents", { token: sibling.token })).status).toBe(200);
    const audit = await env.database.prisma.auditLog.findMany({ where: { action: "agent.revoked" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorUserId: owner.id, target: `agent:${agent.id}` });
  });
});
