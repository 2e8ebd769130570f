import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";

const POOL_SIZE = 2;
useTestEnvironment({ DATABASE_POOL_SIZE: String(POOL_SIZE), RATE_LIMIT_PER_MINUTE: "100000" });

describe("one database connection per landing", () => {
  it(`twice the pool size (${2 * POOL_SIZE}) of concurrent merges on different projects all land`, async () => {
    const alice = await createTestUser();
    const changes = [];
    for (let i = 0; i < 2 * POOL_SIZE; i++) {
      const project = await projectWith(alice.token, { "README.md": `project ${i}\n` });
      changes.push((await changeWith(alice.token, project, { [`f${i}.txt`]: `${i}\n` })).change);
    }
    const results = await Promise.all(changes.map((change) => merge(alice.token, change.id)));
    expect(results.map((res) => [res.status, res.body.code])).toEqual(changes.map(() => [200, undefined]));
  });
});
