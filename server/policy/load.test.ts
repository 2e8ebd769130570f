import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { cacheReports } from "@/server/caches";
import { initProjectRepo } from "@/server/git";
import { commitUnhooked } from "@/server/git/commit";
import { loadPolicy } from "./load";
import { POLICY_PATH } from "./parse";

useTestEnvironment();

const person = { name: "A", email: "a@x", timestamp: 1700000000, timezoneOffset: 0 };
const policyCache = () => cacheReports().find((report) => report.name === "policy.parsed")!;

describe("loadPolicy", () => {
  it("parses a policy file's text once, shares it frozen, and keeps at most its limit", async () => {
    const repo = initProjectRepo(randomUUID(), "main");
    const text = `merge:\n  autoQueue: true\n# ${randomUUID()}\n`;
    const first = await commitUnhooked(repo, "main", {
      files: { [POLICY_PATH]: text },
      message: "policy",
      author: person,
      expectedTip: null,
    });
    // Another commit with the same policy text: the same parse answers it.
    const second = await commitUnhooked(repo, "main", {
      files: { "a.txt": "a\n" },
      message: "a",
      author: person,
      expectedTip: first.oid,
    });
    const a = await loadPolicy(repo, first.oid);
    const b = await loadPolicy(repo, second.oid);
    expect(a).toMatchObject({ ok: true, policy: { merge: { autoQueue: true } } });
    expect(b).toBe(a);
    expect(Object.isFrozen(a.ok && a.policy.merge)).toBe(true);
    expect(() => {
      if (a.ok) (a.policy.merge as { autoQueue: boolean }).autoQueue = false;
    }).toThrow(TypeError);

    let tip = second.oid;
    for (let i = 0; i < policyCache().limit! + 5; i++) {
      tip = (
        await commitUnhooked(repo, "main", {
          files: { [POLICY_PATH]: `merge:\n  autoQueue: ${i % 2 === 0}\n# ${i}\n` },
          message: `policy ${i}`,
          author: person,
          expectedTip: tip,
        })
      ).oid;
      const loaded = await loadPolicy(repo, tip);
      expect(loaded).toMatchObject({ ok: true, policy: { merge: { autoQueue: i % 2 === 0 } } });
    }
    expect(policyCache().entries).toBe(policyCache().limit);
    // The first text was the least recently used: it is parsed again, into a new object.
    expect(await loadPolicy(repo, first.oid)).not.toBe(a);
    expect(await loadPolicy(repo, first.oid)).toEqual(a);
  });
});
