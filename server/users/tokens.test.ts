import { afterEach, describe, expect, it, vi } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createSignedInTestUser, createTestToken } from "@/tests/support/sessions";

const env = useTestEnvironment();

afterEach(() => vi.restoreAllMocks());

const signedInUser = createSignedInTestUser;

describe("token management is session-only (rule 4)", () => {
  it("refuses every kind of token with 403 SESSION_REQUIRED and anonymous callers with 401", async () => {
    const user = await signedInUser();
    const readWrite = await createTestToken(user.cookie, { scope: "read_write" });
    const agent = (await call("POST", "/api/agents", { token: user.token, body: { name: "bot" } })).body.token;
    for (const token of [user.token, readWrite, agent]) {
      for (const [method, path] of [
        ["GET", "/api/users/me/tokens"],
        ["POST", "/api/users/me/tokens"],
        ["DELETE", "/api/users/me/tokens/00000000-0000-4000-8000-000000000000"],
        ["POST", "/api/users/me/legacy-token/disable"],
      ] as const) {
        const res = await call(method, path, { token, body: method === "POST" ? { name: "x" } : undefined });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.code).toBe("SESSION_REQUIRED");
      }
    }
    const anonymous = await call("GET", "/api/users/me/tokens");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBeUndefined();
  });

  it("a read token's write is refused by scope before the session rule", async () => {
    const user = await signedInUser();
    const read = await createTestToken(user.cookie);
    const res = await call("POST", "/api/users/me/tokens", { token: read, body: { name: "x" } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("TOKEN_SCOPE_INSUFFICIENT");
  });
});

describe("POST /api/users/me/tokens", () => {
  it("creates a read token by default and shows the plaintext once, with no-store", async () => {
    const user = await signedInUser();
    const res = await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "laptop" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.plaintext).toMatch(/^svc_user_/);
    expect(res.body.token).toMatchObject({
      name: "laptop",
      scope: "read",
      kind: "token",
      status: "active",
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(res.body.plaintext.startsWith(res.body.token.prefix)).toBe(true);
    expect(res.body.token.prefix.length).toBeLessThan(res.body.plaintext.length - 16);

    const list = await call("GET", "/api/users/me/tokens", { cookie: user.cookie });
    expect(list.status).toBe(200);
    expect(list.body.tokens).toHaveLength(1);
    expect(list.text).not.toContain(res.body.plaintext);
    expect(list.body.tokens[0]).toEqual(res.body.token);

    const row = await env.database.prisma.apiToken.findUniqueOrThrow({ where: { id: res.body.token.id } });
    expect(Object.values(row)).not.toContain(res.body.plaintext);
  });

  it("sets an expiry of 1-365 days and rejects anything else with 400", async () => {
    const user = await signedInUser();
    const created = await call("POST", "/api/users/me/tokens", {
      cookie: user.cookie,
      body: { name: "ci", scope: "read_write", expiresInDays: 30 },
    });
    expect(created.status).toBe(201);
    const days = (Date.parse(created.body.token.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(
      (await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "y", expiresInDays: 365 } }))
        .status,
    ).toBe(201);
    for (const body of [
      { name: "x", expiresInDays: 0 },
      { name: "x", expiresInDays: 366 },
      { name: "x", expiresInDays: 1.5 },
      { name: "x", scope: "admin" },
      { name: "" },
      { name: "a\u0000" },
      {},
    ]) {
      const res = await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBeTruthy();
    }
  });

  it("an expired token is a 401 without code", async () => {
    const user = await signedInUser();
    const token = await createTestToken(user.cookie, { expiresInDays: 1 });
    expect((await call("GET", "/api/users/me", { token })).status).toBe(200);
    const later = Date.now() + 86_400_000 + 1000;
    vi.spyOn(Date, "now").mockReturnValue(later);
    const res = await call("GET", "/api/users/me", { token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it("allows 20 active tokens, answers 409 TOKEN_LIMIT_REACHED beyond, and revoked or expired rows do not count", async () => {
    const user = await signedInUser();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call("POST", "/api/users/me/tokens", {
        cookie: user.cookie,
        body: { name: `t${i}`, expiresInDays: i === 0 ? 1 : undefined },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.token.id);
    }
    const over = await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "one too many" } });
    expect(over.status).toBe(409);
    expect(over.body.code).toBe("TOKEN_LIMIT_REACHED");

    expect((await call("DELETE", `/api/users/me/tokens/${ids[1]}`, { cookie: user.cookie })).status).toBe(200);
    expect(
      (await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "replacement" } })).status,
    ).toBe(201);
    expect(
      (await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "again" } })).body.code,
    ).toBe("TOKEN_LIMIT_REACHED");

    // Once the 1-day token has expired (its day moved into the past here) it no longer counts.
    await env.database.prisma.apiToken.update({
      where: { id: ids[0] },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(
      (await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "after expiry" } })).status,
    ).toBe(201);

    const list = await call("GET", "/api/users/me/tokens", { cookie: user.cookie });
    expect(list.body.tokens).toHaveLength(22);
    expect(list.body.tokens.filter((t: { status: string }) => t.status === "revoked")).toHaveLength(1);
    expect(list.body.tokens.filter((t: { status: string }) => t.status === "expired")).toHaveLength(1);
  });

  it("concurrent creations never exceed the limit", async () => {
    const user = await signedInUser();
    for (let i = 0; i < 18; i++) await createTestToken(user.cookie, { name: `t${i}` });
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: `race${i}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 409)).toHaveLength(2);
  });
});

describe("scopes (rule 1)", () => {
  it("a read token reads but any non-read method is 403 TOKEN_SCOPE_INSUFFICIENT, even on an unknown route", async () => {
    const user = await signedInUser();
    const read = await createTestToken(user.cookie);
    const me = await call("GET", "/api/users/me", { token: read });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: user.id,
      username: user.username,
      credential: { kind: "token", scope: "read" },
    });
    for (const [method, path] of [
      ["POST", "/api/agents"],
      ["POST", "/api/no/such/route"],
      ["PUT", "/api/users/me"],
      ["PATCH", "/api/whatever"],
      ["DELETE", "/api/agents/00000000-0000-4000-8000-000000000000"],
    ] as const) {
      const res = await call(method, path, { token: read, body: method === "DELETE" ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe("TOKEN_SCOPE_INSUFFICIENT");
    }
    const unknownRead = await call("GET", "/api/no/such/route", { token: read });
    expect(unknownRead.status).toBe(404);
  });

  it("a read_write token writes", async () => {
    const user = await signedInUser();
    const token = await createTestToken(user.cookie, { scope: "read_write" });
    expect((await call("POST", "/api/agents", { token, body: { name: "bot" } })).status).toBe(201);
  });
});

describe("DELETE /api/users/me/tokens/{id}", () => {
  it("revokes at once, keeps the row, and is 404 for unknown, malformed or another user's ids", async () => {
    const user = await signedInUser();
    const other = await signedInUser();
    const created = await call("POST", "/api/users/me/tokens", {
      cookie: user.cookie,
      body: { name: "ci", scope: "read_write" },
    });
    const { plaintext, token } = created.body;
    expect((await call("GET", "/api/users/me", { token: plaintext })).status).toBe(200);

    expect((await call("DELETE", `/api/users/me/tokens/${token.id}`, { cookie: other.cookie })).status).toBe(404);
    expect(
      (await call("DELETE", "/api/users/me/tokens/00000000-0000-4000-8000-000000000000", { cookie: user.cookie }))
        .status,
    ).toBe(404);
    expect((await call("DELETE", "/api/users/me/tokens/not-a-uuid", { cookie: user.cookie })).status).toBe(404);

    const revoked = await call("DELETE", `/api/users/me/tokens/${token.id}`, { cookie: user.cookie });
    expect(revoked.status).toBe(200);
    expect(revoked.body.token).toMatchObject({ id: token.id, status: "revoked" });
    const after = await call("GET", "/api/users/me", { token: plaintext });
    expect(after.status).toBe(401);
    expect(after.body.code).toBeUndefined();
    expect((await call("DELETE", `/api/users/me/tokens/${token.id}`, { cookie: user.cookie })).status).toBe(200);
    const list = await call("GET", "/api/users/me/tokens", { cookie: user.cookie });
    expect(list.body.tokens[0]).toMatchObject({ id: token.id, status: "revoked", revokedAt: expect.any(String) });
  });

  it("needs a same-host Origin like every cookie write (rule 3)", async () => {
    const user = await signedInUser();
    const created = await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "ci" } });
    const res = await call("DELETE", `/api/users/me/tokens/${created.body.token.id}`, {
      cookie: user.cookie,
      origin: null,
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("CSRF");
  });
});

describe("lastUsedAt", () => {
  it("is recorded on use and written at most once a minute", async () => {
    const user = await signedInUser();
    const created = await call("POST", "/api/users/me/tokens", { cookie: user.cookie, body: { name: "ci" } });
    await call("GET", "/api/users/me", { token: created.body.plaintext });
    const first = (await env.database.prisma.apiToken.findUniqueOrThrow({ where: { id: created.body.token.id } }))
      .lastUsedAt;
    expect(first).toBeInstanceOf(Date);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await call("GET", "/api/users/me", { token: created.body.plaintext });
    const second = (await env.database.prisma.apiToken.findUniqueOrThrow({ where: { id: created.body.token.id } }))
      .lastUsedAt;
    expect(second).toEqual(first);
    const list = await call("GET", "/api/users/me/tokens", { cookie: user.cookie });
    expect(list.body.tokens[0].lastUsedAt).toBe(first!.toISOString());
  });
});
