import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { projectWith } from "@/server/changes/test-fixtures";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { createTestUser } from "@/tests/support/users";
import { assertInstanceKeysAgree } from "./keys";

const key = (fill: number) => Buffer.alloc(32, fill).toString("base64");

useTestEnvironment({
  SECRET_KEY: "first-instance-secret-key-0123456789abcdef",
  AUTH_SECRET: "first-instance-auth-secret-0123456789abcdef",
  DEPLOY_SECRET_KEY: key(1),
});

describe("instances sharing a database agree on their keys at start", () => {
  it("the first start stores check values, never the secrets; a start with the same secrets passes", async () => {
    await assertInstanceKeysAgree();
    const rows = await (await db()).keyCheck.findMany({ orderBy: { name: "asc" } });
    expect(rows.map((row) => row.name)).toEqual(["AUTH_SECRET", "SECRET_KEY"]);
    for (const row of rows) {
      expect(row.check).not.toContain("first-instance");
      expect(row.check).not.toContain(Buffer.from("first-instance").toString("base64url"));
    }
    await assertInstanceKeysAgree();
  });

  it("refuses to start, naming the variable, with another SECRET_KEY or AUTH_SECRET", async () => {
    await withEnv({ SECRET_KEY: "another-secret-key-0123456789abcdef0123456789" }, async () => {
      await expect(assertInstanceKeysAgree()).rejects.toThrow(/^SECRET_KEY of this instance is not the one/);
    });
    await withEnv({ AUTH_SECRET: "another-auth-secret-0123456789abcdef0123456789" }, async () => {
      await expect(assertInstanceKeysAgree()).rejects.toThrow(/^AUTH_SECRET of this instance is not the one/);
    });
  });

  it("refuses to start when stored deploy secrets do not open with DEPLOY_SECRET_KEY, and accepts the old key as DEPLOY_SECRET_KEY_PREVIOUS", async () => {
    await withEnv({ DEPLOY_SECRET_KEY: key(2) }, () => assertInstanceKeysAgree());
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "keys\n" });
    expect(
      (await call("PUT", `/api/projects/${project.path}/secrets/TOKEN`, { token: owner.token, body: { value: "v" } }))
        .status,
    ).toBe(201);
    await withEnv({ DEPLOY_SECRET_KEY: key(2) }, async () => {
      await expect(assertInstanceKeysAgree()).rejects.toThrow(/^DEPLOY_SECRET_KEY of this instance does not open/);
    });
    await withEnv({ DEPLOY_SECRET_KEY: undefined }, async () => {
      await expect(assertInstanceKeysAgree()).rejects.toThrow(/DEPLOY_SECRET_KEY/);
    });
    await withEnv({ DEPLOY_SECRET_KEY: key(2), DEPLOY_SECRET_KEY_PREVIOUS: key(1) }, () => assertInstanceKeysAgree());
  });
});
