// The rate-limit fields on every API answer (GitHub's X-RateLimit-* and the IETF's RateLimit-Policy
// and RateLimit), and conditional reads answered 304 that leave the budget as it was.
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { createTestUser } from "@/tests/support/users";
import { projectWith } from "@/server/changes/test-fixtures";
import { PEER_ADDRESS_HEADER } from "@/server/http";

useTestEnvironment();

describe("rate-limit fields", () => {
  it("name the limit, what is used and left, the reset, and the IETF policy and state", async () => {
    const alice = await createTestUser();
    await withEnv({ RATE_LIMIT_PER_MINUTE: "50", RATE_LIMIT_ANONYMOUS_PER_MINUTE: "40" }, async () => {
      await call("GET", "/api/users/me", { token: alice.token });
      const res = await call("GET", "/api/users/me", { token: alice.token });
      const field = (name: string) => res.headers.get(name);
      expect([field("x-ratelimit-limit"), field("x-ratelimit-remaining"), field("x-ratelimit-used")]).toEqual([
        "50",
        "48",
        "2",
      ]);
      const resetIn = Number(field("x-ratelimit-reset")) - Date.now() / 1000;
      expect(resetIn).toBeGreaterThan(0);
      expect(field("ratelimit-policy")).toBe(`"default";q=50;w=86400`);
      const state = /^"default";r=48;t=(\d+)$/.exec(field("ratelimit") ?? "");
      expect(state).not.toBeNull();
      expect(Math.abs(Number(state![1]) - resetIn)).toBeLessThanOrEqual(1);
      const anonymous = await call("GET", "/api/health/simple", { headers: { [PEER_ADDRESS_HEADER]: "203.0.113.90" } });
      expect(anonymous.headers.get("ratelimit-policy")).toBe(`"anonymous";q=40;w=86400`);
      expect(anonymous.headers.get("ratelimit")).toMatch(/^"anonymous";r=\d+;t=\d+$/);
    });
  });

  it("are exposed to allowed browser origins", async () => {
    const alice = await createTestUser();
    await withEnv({ CORS_ORIGINS: "https://app.example" }, async () => {
      const res = await call("GET", "/api/users/me", {
        token: alice.token,
        headers: { origin: "https://app.example" },
      });
      const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(["X-RateLimit-Used", "RateLimit-Policy", "RateLimit"]));
    });
  });
});

describe("conditional reads answered 304", () => {
  it("do not spend the rate budget, whether answered before dispatch (versioned) or after (digest)", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "watched" },
    });
    await withEnv({ RATE_LIMIT_PER_MINUTE: "1000" }, async () => {
      for (const url of [
        `/api/projects/${project.path}/issues/${issue.body.issue.number}`,
        `/api/projects/${project.path}/branches`,
      ]) {
        const first = await call("GET", url, { token: alice.token });
        const etag = first.headers.get("etag")!;
        const remaining = Number(first.headers.get("x-ratelimit-remaining"));
        for (let i = 0; i < 3; i++) {
          const again = await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } });
          expect(again.status, url).toBe(304);
          expect(Number(again.headers.get("x-ratelimit-remaining")), url).toBe(remaining);
        }
        // The next full read is the first to cost a request since.
        const full = await call("GET", url, { token: alice.token });
        expect(Number(full.headers.get("x-ratelimit-remaining")), url).toBe(remaining - 1);
      }
    });
  });
});
