import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { withEnv } from "@/tests/support/env";
import { call, TEST_ORIGIN } from "@/tests/support/http";

useTestEnvironment();

const cookieOf = (res: { headers: Headers }) => (res.headers.get("set-cookie") ?? "").split(";")[0];

describe("the sign-in form and POST /logout", () => {
  it("a dev-login form lands on the home page signed in; logout ends that session and clears the cookie", async () => {
    await withEnv({ DEV_LOGIN: "1" }, async () => {
      const login = await call("POST", "/api/auth/dev-login", { form: { username: "webby" }, origin: TEST_ORIGIN });
      expect(login.status).toBe(303);
      expect(login.headers.get("location")).toBe("/");
      const cookie = cookieOf(login);
      expect(cookie).toMatch(/^svc_session=.+/);
      expect((await call("GET", "/api/users/me", { cookie })).body).toMatchObject({ username: "webby" });

      expect((await call("POST", "/logout", { cookie, origin: "https://evil.example" })).status).toBe(403);
      expect((await call("GET", "/api/users/me", { cookie })).status).toBe(200);

      const logout = await call("POST", "/logout", { cookie });
      expect(logout.status).toBe(303);
      expect(logout.headers.get("location")).toBe("/");
      expect(logout.headers.get("set-cookie")).toMatch(/^svc_session=; .*Expires=Thu, 01 Jan 1970/);
      expect((await call("GET", "/api/users/me", { cookie })).status).toBe(401);
    });
  });

  it("a JSON dev login still answers 200 with the user", async () => {
    await withEnv({ DEV_LOGIN: "1" }, async () => {
      const res = await call("POST", "/api/auth/dev-login", { body: { username: "jsonny" }, origin: TEST_ORIGIN });
      expect(res.status).toBe(200);
      expect(res.body.user.username).toBe("jsonny");
    });
  });
});
