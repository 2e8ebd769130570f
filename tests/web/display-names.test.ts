import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createSignedInTestUser } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment();

const trpc = (procedure: string, input: unknown, token?: string) =>
  call("GET", `/api/trpc/users.${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token });

describe("PATCH /api/users/me", () => {
  it("sets a trimmed display name, shown by GET /users/me, the profile and the actor names; null clears it", async () => {
    const alice = await createTestUser();
    const set = await call("PATCH", "/api/users/me", { token: alice.token, body: { displayName: "  Alice Liddell " } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      id: alice.id,
      username: alice.username,
      displayName: "Alice Liddell",
      avatarUrl: null,
    });
    expect((await call("GET", "/api/users/me", { token: alice.token })).body.displayName).toBe("Alice Liddell");

    const profile = await trpc("profile", { username: alice.username });
    expect(profile.body.result.data.user).toMatchObject({ username: alice.username, displayName: "Alice Liddell" });
    const actors = await trpc("actors", { actors: [`user:${alice.id}`] });
    expect(actors.body.result.data.actors[0]).toMatchObject({ username: alice.username, displayName: "Alice Liddell" });
    const bob = await createTestUser();
    const names = await trpc("displayNames", { usernames: [alice.username, bob.username, "nobody-here"] });
    expect(names.body.result.data.names).toEqual([{ username: alice.username, displayName: "Alice Liddell" }]);

    const cleared = await call("PATCH", "/api/users/me", { token: alice.token, body: { displayName: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.displayName).toBeNull();
    expect((await trpc("displayNames", { usernames: [alice.username] })).body.result.data.names).toEqual([]);
  });

  it("an empty body changes nothing; a browser session may set it too (same-origin)", async () => {
    const carol = await createSignedInTestUser();
    expect(
      (await call("PATCH", "/api/users/me", { cookie: carol.cookie, body: { displayName: "Carol" } })).status,
    ).toBe(200);
    const unchanged = await call("PATCH", "/api/users/me", { cookie: carol.cookie, body: {} });
    expect([unchanged.status, unchanged.body.displayName]).toEqual([200, "Carol"]);
  });

  it.each([
    ["empty", ""],
    ["only spaces", "   "],
    ["65 characters", "x".repeat(65)],
    ["a newline", "Ann\nEvil"],
    ["a tab", "Ann\tEvil"],
    ["a line separator", "Ann\u2028Evil"],
    ["a NUL", "Ann\u0000"],
    ["a number", 42],
  ])("refuses %s with a 400 VALIDATION_ERROR", async (_label, displayName) => {
    const dave = await createTestUser();
    const res = await call("PATCH", "/api/users/me", { token: dave.token, body: { displayName } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: expect.any(String), code: "VALIDATION_ERROR" });
    expect((await call("GET", "/api/users/me", { token: dave.token })).body.displayName).toBeNull();
  });

  it("64 characters are accepted; anonymous callers are 401", async () => {
    const erin = await createTestUser();
    const long = "é".repeat(64);
    expect(
      (await call("PATCH", "/api/users/me", { token: erin.token, body: { displayName: long } })).body.displayName,
    ).toBe(long);
    expect((await call("PATCH", "/api/users/me", { body: { displayName: "x" } })).status).toBe(401);
  });

  it("a read-only token is 403 and an agent is 401; neither changes the name", async () => {
    const fay = await createSignedInTestUser();
    const issued = await call("POST", "/api/users/me/tokens", {
      cookie: fay.cookie,
      body: { name: "ro", scope: "read" },
    });
    expect(issued.status).toBe(201);
    const readOnly = await call("PATCH", "/api/users/me", {
      token: issued.body.plaintext,
      body: { displayName: "Fay" },
    });
    expect(readOnly.status).toBe(403);
    const agent = await call("POST", "/api/agents", { token: fay.token, body: { name: "bot", model: "m" } });
    expect(agent.status).toBe(201);
    const asAgent = await call("PATCH", "/api/users/me", { token: agent.body.token, body: { displayName: "Bot" } });
    expect(asAgent.status).toBe(401);
    expect((await call("GET", "/api/users/me", { token: fay.token })).body.displayName).toBeNull();
  });
});
