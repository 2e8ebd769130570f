import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET } from "@/app/avatars/[name]/route";
import { useTestEnvironment } from "@/tests/support/harness";
import { withEnv } from "@/tests/support/env";
import { call } from "@/tests/support/http";
import { startStubProvider, type StubProvider } from "@/tests/support/provider-stub";
import { createTestUser } from "@/tests/support/users";

const env = useTestEnvironment();

const get = (name: string) => GET(new Request(`http://127.0.0.1/avatars/${name}`));

let stub: StubProvider;
beforeAll(async () => {
  stub = await startStubProvider();
});
afterAll(() => stub.close());

const cookiesOf = (res: { headers: Headers }) => res.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);

/**
 * Signs in through Auth.js's GitHub provider pointed at the stub (as GitHub Enterprise): the sign-in
 * POST sends the browser to the provider, which comes back to the callback with a code; Auth.js
 * trades it at the stub for a token and reads the stub's profile. Returns the session cookie.
 */
async function signInThroughProvider(profile: Record<string, unknown>): Promise<string> {
  stub.oauthProfile = profile;
  return withEnv(
    { AUTH_GITHUB_ID: "client-id", AUTH_GITHUB_SECRET: "client-secret", AUTH_GITHUB_ENTERPRISE_URL: stub.url },
    async () => {
      const csrf = await call("GET", "/api/auth/csrf");
      const start = await call("POST", "/api/auth/signin/github", {
        cookie: cookiesOf(csrf).join("; "),
        form: { csrfToken: csrf.body.csrfToken },
      });
      expect(start.status).toBe(302);
      const authorize = new URL(start.headers.get("location")!);
      expect(authorize.origin + authorize.pathname).toBe(`${stub.url}/login/oauth/authorize`);
      const back = new URLSearchParams({ code: "stub-code" });
      const state = authorize.searchParams.get("state");
      if (state) back.set("state", state);
      const callback = await call("GET", `/api/auth/callback/github?${back}`, {
        cookie: [...cookiesOf(csrf), ...cookiesOf(start)].join("; "),
      });
      expect(callback.status, callback.text).toBe(302);
      const session = cookiesOf(callback).find((cookie) => cookie.startsWith("svc_session="));
      expect(session, callback.headers.get("location") ?? "").toBeDefined();
      return session!;
    },
  );
}

describe("GET /avatars/{name}", () => {
  it("answers a person's identicon, the same for the same name and another for another", async () => {
    const alice = await get("alice");
    expect(alice.status).toBe(200);
    expect(alice.headers.get("content-type")).toBe("image/svg+xml");
    expect(alice.headers.get("cache-control")).toContain("max-age");
    const svg = await alice.text();
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(await (await get("alice")).text()).toBe(svg);
    expect(await (await get("bob")).text()).not.toBe(svg);
  });

  it("refuses what is no username with a 400 envelope", async () => {
    for (const bad of ["%3Cscript%3E", "-x", "a%20b", "%E0%A4%A"]) {
      const res = await get(bad);
      expect(res.status, bad).toBe(400);
      expect((await res.json()).error).toEqual(expect.any(String));
    }
  });
});

describe("the sign-in provider's picture", () => {
  it("is kept at sign-in and the avatar route sends the browser to it; without one the identicon stays", async () => {
    const picture = `${stub.url}/avatars/u/4242?v=4`;
    const cookie = await signInThroughProvider({
      id: 4242,
      login: "octavia",
      email: "o@example.test",
      avatar_url: picture,
    });
    const me = await call("GET", "/api/users/me", { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: "octavia", avatarUrl: picture, displayName: null });
    expect(stub.requests.map((request) => request.path)).toEqual(
      expect.arrayContaining(["/login/oauth/access_token", "/api/v3/user"]),
    );
    const avatar = await get("octavia");
    expect(avatar.status).toBe(302);
    expect(avatar.headers.get("location")).toBe(picture);
    const requestsBefore = stub.requests.length;
    await get("octavia");
    expect(stub.requests.length).toBe(requestsBefore); // never fetched by the server

    // Signing in again without a picture forgets it: the identicon is back.
    await signInThroughProvider({ id: 4242, login: "octavia", email: "o@example.test", avatar_url: null });
    expect((await get("octavia")).status).toBe(200);
    expect((await env.database.prisma.user.findUniqueOrThrow({ where: { username: "octavia" } })).avatarUrl).toBeNull();
  });

  it("keeps only an http(s) URL of bounded length", async () => {
    for (const bad of ["javascript:alert(1)", "data:image/svg+xml,<svg/>", `https://x.test/${"a".repeat(3000)}`, 42]) {
      await signInThroughProvider({ id: 77, login: "vera", email: "v@example.test", avatar_url: bad });
      expect((await get("vera")).status, String(bad).slice(0, 40)).toBe(200);
    }
  });

  it("a user who never signed in through the provider keeps the identicon", async () => {
    const user = await createTestUser();
    const res = await get(user.username);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
  });
});
