import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "./test-fixtures";

useTestEnvironment();

describe("issue numbers under concurrency", () => {
  it("allocates 1..N without duplicates or gaps when N callers open issues at once", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner);
    const other = await createTestProject(owner);
    const N = 40;
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        call("POST", `${(i % 4 === 0 ? other : project).base}/issues`, {
          token: owner.token,
          body: { title: `race ${i}` },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(N).fill(201));
    const numbersOf = (base: string) =>
      results
        .filter((_, i) => (i % 4 === 0 ? other : project).base === base)
        .map((r) => r.body.issue.number as number)
        .sort((a, b) => a - b);
    expect(numbersOf(project.base)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(numbersOf(other.base)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const stored = await (await db()).project.findUniqueOrThrow({ where: { id: project.id } });
    expect(stored.lastIssueNumber).toBe(30);
  });

  it("a refused creation does not consume a number", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner);
    await call("POST", `${project.base}/issues`, { token: owner.token, body: { title: "one" } });
    const refused = await call("POST", `${project.base}/issues`, {
      token: owner.token,
      body: { title: "bad", linkedChangeId: crypto.randomUUID() },
    });
    expect(refused.status).toBe(400);
    const next = await call("POST", `${project.base}/issues`, { token: owner.token, body: { title: "two" } });
    expect(next.body.issue.number).toBe(2);
  });
});
