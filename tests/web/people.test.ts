import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, createAgentFor, projectWith } from "@/server/changes/test-fixtures";
import { grantCollaborator } from "@/server/projects/test-fixtures";

useTestEnvironment();

/** users.profile and users.actors have no REST routes: pages read them in-process, typed callers through /api/trpc. */
const query = (procedure: string, input: unknown, token?: string) =>
  call("GET", `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token });

describe("users.actors, the names pages show for actors", () => {
  it("names users by username and agents by name with their owner, never failing on unknown ones", async () => {
    const alice = await createTestUser();
    const agent = await createAgentFor(alice.token);
    const res = await query("users.actors", {
      actors: [
        `user:${alice.id}`,
        `agent:${agent.id}`,
        "system",
        "user:00000000-0000-4000-8000-000000000000",
        "user:nope",
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.data.actors).toEqual([
      { actor: `user:${alice.id}`, kind: "user", username: alice.username, displayName: null, agentName: null },
      { actor: `agent:${agent.id}`, kind: "agent", username: alice.username, displayName: null, agentName: "bot" },
      { actor: "system", kind: "system", username: null, displayName: null, agentName: null },
      {
        actor: "user:00000000-0000-4000-8000-000000000000",
        kind: "user",
        username: null,
        displayName: null,
        agentName: null,
      },
      { actor: "user:nope", kind: "user", username: null, displayName: null, agentName: null },
    ]);
  });

  it("refuses more than 500 actors at once with a 400", async () => {
    const res = await query("users.actors", { actors: Array.from({ length: 501 }, (_, i) => `user:${i}`) });
    expect(res.status).toBe(400);
  });
});

describe("users.profile", () => {
  it("shows the projects a viewer may read, shared organizations, and recent activity on readable projects", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const open = await projectWith(alice.token, { "README.md": "hi\n" }, "public");
    const hidden = await projectWith(alice.token, { "README.md": "secret\n" }, "private");
    await changeWith(alice.token, hidden, { "x.txt": "x\n" });
    const issue = await call("POST", `/api/projects/${open.path}/issues`, {
      token: alice.token,
      body: { title: "Public work" },
    });
    expect(issue.status).toBe(201);
    const org = await call("POST", "/api/orgs", {
      token: alice.token,
      body: { slug: `o${Date.now().toString(36)}`, name: "Acme" },
    });
    expect(org.status).toBe(201);

    const asBob = (await query("users.profile", { username: alice.username }, bob.token)).body.result.data;
    expect(asBob.user).toMatchObject({ id: alice.id, username: alice.username });
    expect(asBob.projects.map((p: { path: string }) => p.path)).toEqual([open.path]);
    expect(asBob.orgs).toEqual([]);
    expect(asBob.activity.map((e: { kind: string; project: string }) => [e.kind, e.project])).toEqual([
      ["issue.opened", open.path],
      ["project.created", open.path],
    ]);

    const asAnonymous = (await query("users.profile", { username: alice.username })).body.result.data;
    expect(asAnonymous.projects.map((p: { path: string }) => p.path)).toEqual([open.path]);

    await grantCollaborator(hidden.id, bob.id, "read");
    const granted = (await query("users.profile", { username: alice.username }, bob.token)).body.result.data;
    expect(granted.projects.map((p: { path: string }) => p.path).sort()).toEqual([open.path, hidden.path].sort());
    expect(granted.activity.map((e: { kind: string }) => e.kind)).toContain("change.created");

    const own = (await query("users.profile", { username: alice.username }, alice.token)).body.result.data;
    expect(own.orgs).toEqual([{ slug: org.body.org.slug, name: "Acme" }]);
  });

  it("answers 404 for an unknown user", async () => {
    expect((await query("users.profile", { username: "nobody-here" })).status).toBe(404);
  });
});
