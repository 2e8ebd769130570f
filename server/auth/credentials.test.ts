import { afterEach, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestSession, createTestToken } from "@/tests/support/sessions";
import { runSvcCommand } from "@/server/users/cli";

const env = useTestEnvironment();

afterEach(() => {
  delete process.env.RATE_LIMIT_PER_MINUTE;
});

const grantFor = async (username: string, scope: "read" | "read_write") =>
  ((await runSvcCommand(["oauth:grant", username, "--scope", scope])) as { token: string }).token;

describe("401s (rule 2)", () => {
  it("invalid, unknown-prefix, malformed and revoked credentials are 401 with {error} only", async () => {
    const user = await createTestUser();
    const basic = (value: string) => ({ authorization: `Basic ${Buffer.from(value).toString("base64")}` });
    const cases: Array<{ token?: string; headers?: Record<string, string> }> = [
      { token: "svc_user_notatoken" },
      { token: "svc_agent_notatoken" },
      { token: "svc_oauth_notatoken" },
      { token: "ghp_something" },
      { token: user.token + "x" },
      { headers: basic(`git:${user.token}x`) },
    ];
    for (const options of cases) {
      const res = await call("GET", "/api/users/me", options);
      expect(res.status, JSON.stringify(options)).toBe(401);
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    const anonymous = await call("GET", "/api/users/me");
    expect(anonymous.status).toBe(401);
    expect(Object.keys(anonymous.body)).toEqual(["error"]);
  });

  it("HTTP Basic carries a token as the password (git clients)", async () => {
    const user = await createTestUser();
    const res = await call("GET", "/api/users/me", {
      headers: { authorization: `Basic ${Buffer.from(`x:${user.token}`).toString("base64")}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.username).toBe(user.username);
  });

  it("an unknown or expired session cookie is 401 SESSION_EXPIRED", async () => {
    const user = await createTestUser();
    const unknown = await call("GET", "/api/users/me", { cookie: "svc_session=nonsense" });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe("SESSION_EXPIRED");
    const { cookie } = await createTestSession(user.username);
    expect((await call("GET", "/api/users/me", { cookie })).status).toBe(200);
    await env.database.prisma.session.updateMany({
      where: { userId: user.id },
      data: { expires: new Date(Date.now() - 1000) },
    });
    const expired = await call("GET", "/api/users/me", { cookie });
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe("SESSION_EXPIRED");
  });

  it("credentials are stored hashed: no column holds a plaintext", async () => {
    const user = await createTestUser();
    const row = await env.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(Object.values(row)).not.toContain(user.token);
    expect(row.legacyTokenHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("each credential on GET /api/users/me", () => {
  it("session, legacy, named token and OAuth grant resolve to the user; agents do not", async () => {
    const user = await createTestUser();
    const { cookie } = await createTestSession(user.username);
    const named = await createTestToken(cookie, { scope: "read_write" });
    const grant = await grantFor(user.username, "read");
    const expected = [
      [{ cookie }, { kind: "session", scope: "read_write" }],
      [{ token: user.token }, { kind: "legacy", scope: "read_write" }],
      [{ token: named }, { kind: "token", scope: "read_write" }],
      [{ token: grant }, { kind: "oauth", scope: "read" }],
    ] as const;
    for (const [options, credential] of expected) {
      const res = await call("GET", "/api/users/me", options);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: user.id,
        username: user.username,
        displayName: null,
        avatarUrl: null,
        isAdmin: false,
        credential,
      });
      expect(res.headers.get("x-ratelimit-limit")).toBe("1000");
      expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    }
  });
});

describe("OAuth grants", () => {
  it("act like the user's scoped token on user routes", async () => {
    const user = await createTestUser();
    const read = await grantFor(user.username, "read");
    const readWrite = await grantFor(user.username, "read_write");
    expect((await call("GET", "/api/agents", { token: read })).status).toBe(200);
    expect((await call("POST", "/api/agents", { token: read, body: {} })).body.code).toBe("TOKEN_SCOPE_INSUFFICIENT");
    expect((await call("POST", "/api/agents", { token: readWrite, body: {} })).status).toBe(201);
    expect((await call("GET", "/api/users/me/tokens", { token: readWrite })).body.code).toBe("SESSION_REQUIRED");
  });

  it("are refused on /api/admin/* with 403 ADMIN_REQUIRES_DIRECT_CREDENTIAL, even for an administrator", async () => {
    const admin = (await runSvcCommand(["user:create", `root${Date.now().toString(36)}`, "--admin"])) as {
      user: { username: string };
      token: string;
    };
    const direct = await call("POST", "/api/admin/users", {
      token: admin.token,
      body: { username: `made${Date.now().toString(36)}` },
    });
    expect(direct.status).toBe(201);
    const grant = await grantFor(admin.user.username, "read_write");
    const res = await call("POST", "/api/admin/users", {
      token: grant,
      body: { username: `nope${Date.now().toString(36)}` },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("ADMIN_REQUIRES_DIRECT_CREDENTIAL");
    const withKeyToo = await call("POST", "/api/admin/users", {
      token: grant,
      body: { username: "x1" },
      headers: { "x-admin-api-key": "wrong" },
    });
    expect(withKeyToo.status).toBe(401);
  });

  it("are listed with the user's tokens, revocable there, and not counted toward the token limit", async () => {
    const user = await createTestUser();
    const { cookie } = await createTestSession(user.username);
    const grant = await grantFor(user.username, "read");
    const list = await call("GET", "/api/users/me/tokens", { cookie });
    const row = list.body.tokens.find((t: { kind: string }) => t.kind === "oauth");
    expect(row).toMatchObject({ kind: "oauth", scope: "read", prefix: expect.stringMatching(/^svc_oauth_/) });
    for (let i = 0; i < 20; i++) await createTestToken(cookie, { name: `t${i}` });
    expect((await call("DELETE", `/api/users/me/tokens/${row.id}`, { cookie })).status).toBe(200);
    expect((await call("GET", "/api/users/me", { token: grant })).status).toBe(401);
  });
});

describe("CSRF for cookie writes (rule 3)", () => {
  it("needs an Origin or Referer naming this host; bearer callers and reads are unaffected", async () => {
    const user = await createTestUser();
    const { cookie } = await createTestSession(user.username);
    const post = (options: { origin?: string | null; headers?: Record<string, string> }) =>
      call("POST", "/api/agents", { cookie, body: { name: "x" }, ...options });
    for (const options of [
      { origin: null },
      { origin: "http://evil.test" },
      { origin: "http://svc.test.evil.test" },
      { origin: null, headers: { referer: "http://evil.test/page" } },
      { origin: null, headers: { referer: "not a url" } },
    ]) {
      const res = await post(options);
      expect(res.status, JSON.stringify(options)).toBe(403);
      expect(res.body.code).toBe("CSRF");
    }
    expect((await post({})).status).toBe(201);
    expect((await post({ origin: null, headers: { referer: "http://svc.test/agents/new" } })).status).toBe(201);
    expect((await post({ origin: "null", headers: { referer: "http://svc.test/" } })).status).toBe(201);
    expect((await call("GET", "/api/agents", { cookie, origin: null })).status).toBe(200);
    expect(
      (await call("POST", "/api/agents", { token: user.token, body: {}, origin: "http://evil.test" })).status,
    ).toBe(201);
  });
});

describe("rate limits", () => {
  it("answers 429 {error} with Retry-After and X-RateLimit-* past the per-identity limit", async () => {
    process.env.RATE_LIMIT_PER_MINUTE = "3";
    const user = await createTestUser();
    const other = await createTestUser();
    const { cookie } = await createTestSession(user.username);
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const res = await call("GET", "/api/users/me", { token: user.token });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("3");
      remaining.push(res.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    // The session is the same identity: it shares the user's bucket.
    const limited = await call("GET", "/api/users/me", { cookie });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: "Too many requests" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await call("GET", "/api/users/me", { token: other.token })).status).toBe(200);
  });
});
