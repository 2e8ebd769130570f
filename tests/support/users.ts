import { expect } from "vitest";
import { TEST_ADMIN_KEY } from "./harness";
import { call } from "./http";

let counter = 0;

/** Creates a user through POST /api/admin/users; returns its id, username and legacy token. */
export async function createTestUser(username = `user${++counter}${Date.now().toString(36)}`) {
  const res = await call("POST", "/api/admin/users", {
    body: { username },
    headers: { "x-admin-api-key": TEST_ADMIN_KEY },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return {
    id: res.body.user.id as string,
    username: res.body.user.username as string,
    token: res.body.token as string,
  };
}
