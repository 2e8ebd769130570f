import { expect } from "vitest";
import { call, TEST_ORIGIN } from "./http";
import { createTestUser } from "./users";

/**
 * Signs a user in through POST /api/auth/dev-login (creating the user if needed) and returns the
 * `svc_session=...` cookie for `call(..., { cookie })`. Turns DEV_LOGIN on for the call only.
 */
export async function createTestSession(
  username: string,
): Promise<{ cookie: string; user: { id: string; username: string } }> {
  const previous = process.env.DEV_LOGIN;
  process.env.DEV_LOGIN = "1";
  try {
    const res = await call("POST", "/api/auth/dev-login", { body: { username }, origin: TEST_ORIGIN });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
    return { cookie, user: res.body.user };
  } finally {
    if (previous === undefined) delete process.env.DEV_LOGIN;
    else process.env.DEV_LOGIN = previous;
  }
}

/** Creates a named API token through POST /api/users/me/tokens with a session cookie; returns the plaintext. */
export async function createTestToken(
  cookie: string,
  body: { name?: string; scope?: "read" | "read_write"; expiresInDays?: number } = {},
): Promise<string> {
  const res = await call("POST", "/api/users/me/tokens", { cookie, body: { name: "test", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.plaintext as string;
}

/** A new user (legacy token from the admin route) signed in with a session cookie too. */
export async function createSignedInTestUser() {
  const user = await createTestUser();
  const { cookie } = await createTestSession(user.username);
  return { ...user, cookie };
}
