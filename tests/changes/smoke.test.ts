import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

describe("smoke", () => {
  it("creates, gets, lists and merges", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const created = await changeWith(alice.token, project, { "src/a.ts": "export const a = 1;\n" });
    expect(created.change.status).toBe("accepted");
    const got = await call("GET", `/api/changes/${created.change.id}`, { token: alice.token });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const list = await call("GET", `/api/projects/${project.path}/changes`, { token: alice.token });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const merged = await merge(alice.token, created.change.id, "?strategy=squash");
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    console.log(merged.body);
  });
});
