import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { withEnv } from "@/tests/support/env";
import { call, TEST_ORIGIN } from "@/tests/support/http";
import { authSecret } from "./secret";

const env = useTestEnvironment();

afterEach(() => {
  for (const name of ["DEV_LOGIN", "AUTH_GITHUB_ID", "AUTH_GITHUB_SECRET", "AUTH_SECRET"]) delete process.env[name];
});

const devLogin = (
  body: unknown,
  options: { origin?: string | null; headers?: Record<string, string> } = { origin: TEST_ORIGIN },
) => call("POST", "/api/auth/dev-login", { body, ...options });

const cookieOf = (res: { headers: Headers }) => (res.headers.get("set-cookie") ?? "").split(";")[0];

describe("POST /api/auth/dev-login", () => {
  it("is 404 unless DEV_LOGIN=1", async () => {
    const res = await devLogin({ username: "dora" });
    expect(res.status).toBe(404);
  });

  it("creates the user if needed and sets an HttpOnly svc_session cookie", async () => {
    process.env.DEV_LOGIN = "1";
    const res = await devLogin({ username: "dora" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user: { id: expect.any(String), username: "dora" } });
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^svc_session=[^;]+;/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const me = await call("GET", "/api/users/me", { cookie: cookieOf(res) });
    expect(me.body).toMatchObject({ id: res.body.user.id, username: "dora", credential: { kind: "session" } });

    const again = await devLogin({ username: "dora" });
    expect(again.body.user.id).toBe(res.body.user.id);
    expect(cookieOf(again)).not.toBe(cookieOf(res));
    expect(await env.database.prisma.user.count({ where: { username: "dora" } })).toBe(1);
  });

  it("needs a same-host Origin or Referer (403 CSRF) and a valid username (400)", async () => {
    process.env.DEV_LOGIN = "1";
    for (const options of [
      { origin: null },
      { origin: "http://evil.test" },
      { origin: null, headers: { referer: "http://evil.test/x" } },
    ]) {
      const res = await devLogin({ username: "eve" }, options);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("CSRF");
    }
    expect(
      (await devLogin({ username: "eve" }, { origin: null, headers: { referer: `${TEST_ORIGIN}/login` } })).status,
    ).toBe(200);
    expect((await devLogin({ username: "bad name" })).status).toBe(400);
    expect((await devLogin({})).status).toBe(400);
    expect((await devLogin("{not json")).status).toBe(400);
  });

  it("trusts X-Forwarded-Host only when TRUST_PROXY=1", async () => {
    const forged = { origin: "http://evil.test", headers: { "x-forwarded-host": "evil.test" } };
    await withEnv({ DEV_LOGIN: "1", TRUST_PROXY: undefined }, async () => {
      const res = await devLogin({ username: "mallory" }, forged);
      expect([res.status, res.body.code]).toEqual([403, "CSRF"]);
    });
    await withEnv({ DEV_LOGIN: "1", TRUST_PROXY: "1" }, async () => {
      expect(
        (
          await devLogin(
            { username: "proxied" },
            { origin: "https://forge.example", headers: { "x-forwarded-host": "forge.example" } },
          )
        ).status,
      ).toBe(200);
    });
  });

  it("concurrent first logins of one username create one user", async () => {
    process.env.DEV_LOGIN = "1";
    const results = await Promise.all([1, 2, 3].map(() => devLogin({ username: "race" })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body.user.id)).size).toBe(1);
  });
});

describe("next-auth (Auth.js) routes", () => {
  it("reads the svc_session database session", async () => {
    process.env.DEV_LOGIN = "1";
    const login = await devLogin({ username: "sam" });
    const res = await call("GET", "/api/auth/session", { cookie: cookieOf(login) });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ name: "sam" });
  });

  it("signing out through Auth.js ends the session: the cookie is then SESSION_EXPIRED", async () => {
    process.env.DEV_LOGIN = "1";
    const login = await devLogin({ username: "olga" });
    const csrf = await call("GET", "/api/auth/csrf");
    const csrfCookie = cookieOf(csrf);
    const out = await call("POST", "/api/auth/signout", {
      cookie: `${cookieOf(login)}; ${csrfCookie}`,
      form: { csrfToken: csrf.body.csrfToken },
    });
    expect(out.status).toBe(302);
    const me = await call("GET", "/api/users/me", { cookie: cookieOf(login) });
    expect(me.status).toBe(401);
    expect(me.body.code).toBe("SESSION_EXPIRED");
  });

  it("a sign-in provider that is not configured answers 501; an unknown one 404", async () => {
    for (const method of ["GET", "POST"]) {
      const res = await call(method, "/api/auth/signin/github", method === "POST" ? { form: {} } : {});
      expect(res.status).toBe(501);
      expect(res.body.error).toMatch(/not configured/);
      expect((await call(method, "/api/auth/callback/github", method === "POST" ? { form: {} } : {})).status).toBe(501);
    }
    expect((await call("GET", "/api/auth/signin/nosuch")).status).toBe(404);
  });

  it("a configured GitHub provider sends the browser to GitHub's authorize URL", async () => {
    process.env.AUTH_GITHUB_ID = "client-id";
    process.env.AUTH_GITHUB_SECRET = "client-secret";
    const csrf = await call("GET", "/api/auth/csrf");
    const res = await call("POST", "/api/auth/signin/github", {
      cookie: cookieOf(csrf),
      form: { csrfToken: csrf.body.csrfToken },
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin + location.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(location.searchParams.get("client_id")).toBe("client-id");
  });
});

describe("AUTH_SECRET", () => {
  it("is generated once into DATA_DIR (mode 0600) when unset, and the variable wins when set", () => {
    const file = path.join(env.dataDir, "auth-secret");
    const first = authSecret();
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(authSecret()).toBe(first);
    expect(fs.readFileSync(file, "utf8").trim()).toBe(first);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    process.env.AUTH_SECRET = "from-the-environment";
    expect(authSecret()).toBe("from-the-environment");
  });
});
