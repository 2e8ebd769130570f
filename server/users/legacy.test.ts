import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createSignedInTestUser, createTestToken } from "@/tests/support/sessions";
import { runSvcCommand } from "./cli";

useTestEnvironment();

const signedInUser = createSignedInTestUser;

const status = async (token: string) => (await call("GET", "/api/users/me", { token })).status;

describe("POST /api/users/me/rotate-token", () => {
  it("with a session: mints a new legacy credential, the old one is 401 at once, named tokens unaffected", async () => {
    const user = await signedInUser();
    const named = await createTestToken(user.cookie);
    expect(await status(user.token)).toBe(200);
    const res = await call("POST", "/api/users/me/rotate-token", { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.token).toMatch(/^svc_user_/);
    expect(res.body.token.startsWith(res.body.prefix)).toBe(true);
    expect(await status(user.token)).toBe(401);
    expect(await status(res.body.token)).toBe(200);
    expect(await status(named)).toBe(200);
    const me = await call("GET", "/api/users/me", { token: res.body.token });
    expect(me.body.credential).toEqual({ kind: "legacy", scope: "read_write" });
  });

  it("with the legacy credential itself", async () => {
    const user = await createTestUser();
    const res = await call("POST", "/api/users/me/rotate-token", { token: user.token });
    expect(res.status).toBe(200);
    expect(await status(user.token)).toBe(401);
    expect(await status(res.body.token)).toBe(200);
  });

  it("refuses named tokens, OAuth grants and agents with 403 SESSION_REQUIRED; read tokens by scope; anonymous 401", async () => {
    const user = await signedInUser();
    const readWrite = await createTestToken(user.cookie, { scope: "read_write" });
    const grant = ((await runSvcCommand(["oauth:grant", user.username, "--scope", "read_write"])) as { token: string })
      .token;
    const agent = (await call("POST", "/api/agents", { token: user.token, body: {} })).body.token;
    for (const token of [readWrite, grant, agent]) {
      const res = await call("POST", "/api/users/me/rotate-token", { token });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("SESSION_REQUIRED");
    }
    const read = await createTestToken(user.cookie);
    expect((await call("POST", "/api/users/me/rotate-token", { token: read })).body.code).toBe(
      "TOKEN_SCOPE_INSUFFICIENT",
    );
    const anonymous = await call("POST", "/api/users/me/rotate-token");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBeUndefined();
    expect(await status(user.token)).toBe(200);
  });

  it("of two concurrent rotations exactly one resulting credential works", async () => {
    const user = await signedInUser();
    const results = await Promise.all(
      [1, 2].map(() => call("POST", "/api/users/me/rotate-token", { cookie: user.cookie })),
    );
    const minted = results.filter((r) => r.status === 200).map((r) => r.body.token as string);
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const working = [];
    for (const token of minted) if ((await status(token)) === 200) working.push(token);
    expect(working).toHaveLength(1);
  });
});

describe("POST /api/users/me/legacy-token/disable", () => {
  it("disables the legacy credential for good; named tokens keep working; rotation is then refused", async () => {
    const user = await signedInUser();
    const named = await createTestToken(user.cookie, { scope: "read_write" });
    const res = await call("POST", "/api/users/me/legacy-token/disable", { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.body.legacyToken).toMatchObject({ disabled: true, disabledAt: expect.any(String) });
    const old = await call("GET", "/api/users/me", { token: user.token });
    expect(old.status).toBe(401);
    expect(old.body.code).toBeUndefined();
    expect(await status(named)).toBe(200);

    const again = await call("POST", "/api/users/me/legacy-token/disable", { cookie: user.cookie });
    expect(again.status).toBe(200);
    expect(again.body.legacyToken.disabledAt).toBe(res.body.legacyToken.disabledAt);
    const rotate = await call("POST", "/api/users/me/rotate-token", { cookie: user.cookie });
    expect(rotate.status).toBe(409);
    expect(await status(user.token)).toBe(401);
  });

  it("refuses the legacy credential itself with SESSION_REQUIRED", async () => {
    const user = await createTestUser();
    const res = await call("POST", "/api/users/me/legacy-token/disable", { token: user.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("SESSION_REQUIRED");
    expect(await status(user.token)).toBe(200);
  });
});
