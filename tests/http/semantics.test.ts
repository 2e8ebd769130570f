import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { createTestUser } from "@/tests/support/users";
import { advanceProject, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

describe("OPTIONS and 405", () => {
  it("OPTIONS lists the methods served at the path; an unknown path is 404", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const res = await call("OPTIONS", `/api/projects/${project.path}/issues`);
    expect(res.status).toBe(204);
    expect(res.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "OPTIONS", "POST"]);
    expect((await call("OPTIONS", "/api/no/such/route")).status).toBe(404);
  });

  it("a 405 names OPTIONS and HEAD among the allowed methods", async () => {
    const alice = await createTestUser();
    const res = await call("PUT", "/api/projects", { token: alice.token, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "OPTIONS", "POST"]);
  });
});

describe("content types", () => {
  it("a JSON route refuses text/plain and a form with 415; a form-friendly route takes the form", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const plain = await call("POST", `/api/projects/${project.path}/branches`, {
      token: alice.token,
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ name: "b1" }),
    });
    expect(plain.status).toBe(415);
    expect(plain.body.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const form = await call("POST", `/api/projects/${project.path}/branches`, {
      token: alice.token,
      form: { name: "b2" },
    });
    expect(form.status).toBe(415);
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      form: { title: "from a form" },
    });
    expect(issue.status).toBe(302);
    // A body with no Content-Type at all is read as JSON.
    const bare = await call("POST", `/api/projects/${project.path}/branches`, {
      token: alice.token,
      headers: { "content-type": "" },
      body: JSON.stringify({ name: "b3" }),
    });
    expect(bare.status).toBe(201);
  });
});

describe("X-Request-Id", () => {
  it("echoes a valid incoming id, replaces an invalid one, and is on errors too", async () => {
    const alice = await createTestUser();
    const echoed = await call("GET", "/api/users/me", {
      token: alice.token,
      headers: { "x-request-id": "client-42.a:b" },
    });
    expect(echoed.headers.get("x-request-id")).toBe("client-42.a:b");
    const replaced = await call("GET", "/api/users/me", {
      token: alice.token,
      headers: { "x-request-id": "bad id\u0001<script>" },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await call("GET", "/api/projects/@nobody/none", { token: alice.token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("ETags", () => {
  it("repository reads answer 304 for the current ETag, and a new commit changes it", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" }, "public");
    for (const read of ["/files", "/content?path=a.txt", "/log", "/branches"]) {
      const first = await call("GET", `/api/projects/${project.path}${read}`, { token: alice.token });
      const etag = first.headers.get("etag");
      expect(etag, read).toMatch(/^"[\w-]+"$/);
      const again = await call("GET", `/api/projects/${project.path}${read}`, { headers: { "if-none-match": etag! } });
      expect(again.status, read).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      const head = await call("HEAD", `/api/projects/${project.path}${read}`, {
        headers: { "if-none-match": `W/${etag}, "other"` },
      });
      expect(head.status, read).toBe(304);
    }
    const before = (await call("GET", `/api/projects/${project.path}/files`)).headers.get("etag")!;
    await advanceProject(project, { "b.txt": "b\n" });
    const after = await call("GET", `/api/projects/${project.path}/files`, { headers: { "if-none-match": before } });
    expect(after.status).toBe(200);
    expect(after.body.files).toContain("b.txt");
    expect(after.headers.get("etag")).not.toBe(before);
  });

  it("single resources carry an ETag that changes with the resource", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "etag me" },
    });
    const url = `/api/projects/${project.path}/issues/${issue.body.issue.number}`;
    const first = await call("GET", url, { token: alice.token });
    const etag = first.headers.get("etag")!;
    expect((await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } })).status).toBe(304);
    await call("PATCH", url, { token: alice.token, body: { title: "renamed" } });
    const changed = await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.body.issue.title).toBe("renamed");
    // A caller who cannot read gets 404, never a 304 that would confirm the resource exists.
    const stranger = await createTestUser();
    expect((await call("GET", url, { token: stranger.token, headers: { "if-none-match": etag } })).status).toBe(404);
  });
});

describe("ETag revalidation before dispatch", () => {
  it("answers only a held current ETag early; other conditional reads get what a plain read gets", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "versioned" },
    });
    for (const url of [
      `/api/projects/${project.path}/log?depth=5`,
      `/api/projects/${project.path}/issues/${issue.body.issue.number}`,
      `/api/projects/${project.path}`,
    ]) {
      const plain = await call("GET", url, { token: alice.token });
      const stale = await call("GET", url, { token: alice.token, headers: { "if-none-match": '"stale"' } });
      expect(stale.status, url).toBe(200);
      expect(stale.headers.get("etag"), url).toBe(plain.headers.get("etag"));
      expect(stale.body, url).toEqual(plain.body);
      // Without a token the private project is not there: 404, not the 304 the header asks for.
      expect((await call("GET", url, { headers: { "if-none-match": plain.headers.get("etag")! } })).status, url).toBe(
        404,
      );
    }
    const refused = await call("GET", `/api/projects/${project.path}/log?depth=0`, {
      token: alice.token,
      headers: { "if-none-match": "*" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("VALIDATION_ERROR");
    const missing = await call("GET", `/api/projects/${project.path}/issues/999`, {
      token: alice.token,
      headers: { "if-none-match": "*" },
    });
    expect(missing.status).toBe(404);
  });

  it("a project's ETag moves with its row: opening an issue bumps its updatedAt", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const url = `/api/projects/${project.path}`;
    const first = await call("GET", url, { token: alice.token });
    const etag = first.headers.get("etag")!;
    expect((await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } })).status).toBe(304);
    await call("POST", `${url}/issues`, { token: alice.token, body: { title: "bump" } });
    const after = await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.body.updatedAt).not.toBe(first.body.updatedAt);
    expect(
      (await call("GET", url, { token: alice.token, headers: { "if-none-match": after.headers.get("etag")! } })).status,
    ).toBe(304);
  });

  it("an issue's ETag moves with its status, and not with a comment", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "assigned" },
    });
    const url = `/api/projects/${project.path}/issues/${issue.body.issue.number}`;
    const etag = (await call("GET", url, { token: alice.token })).headers.get("etag")!;
    await call("POST", `${url}/comments`, { token: alice.token, body: { body: "a comment is not part of the issue" } });
    expect((await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } })).status).toBe(304);
    const closed = await call("POST", `${url}/close`, { token: alice.token, body: {} });
    expect(closed.status).toBe(302);
    const after = await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.body.issue.status).toBe("closed");
  });
});

describe("ETag revalidation and access", () => {
  it("a revalidated read checks the caller's access now: a removed collaborator gets 404, never 304", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const grant = await call("PUT", `/api/projects/${project.path}/collaborators/${bob.username}`, {
      token: alice.token,
      body: { permission: "read" },
    });
    expect(grant.status).toBe(200);
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "seen by bob" },
    });
    const urls = [
      `/api/projects/${project.path}/content?path=a.txt`,
      `/api/projects/${project.path}/log`,
      `/api/projects/${project.path}/issues/${issue.body.issue.number}`,
    ];
    const etags: string[] = [];
    for (const url of urls) {
      const etag = (await call("GET", url, { token: bob.token })).headers.get("etag")!;
      expect((await call("GET", url, { token: bob.token, headers: { "if-none-match": etag } })).status, url).toBe(304);
      etags.push(etag);
    }
    expect(
      (await call("DELETE", `/api/projects/${project.path}/collaborators/${bob.username}`, { token: alice.token }))
        .status,
    ).toBe(200);
    for (const [i, url] of urls.entries()) {
      expect((await call("GET", url, { token: bob.token, headers: { "if-none-match": etags[i] } })).status, url).toBe(
        404,
      );
      expect((await call("GET", url, { token: alice.token, headers: { "if-none-match": etags[i] } })).status, url).toBe(
        304,
      );
    }
  });
});

describe("pagination headers", () => {
  it("lists answer X-Total-Count and Link rel=next/prev", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    for (let i = 0; i < 5; i++)
      await call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: `issue ${i}` } });
    const first = await call("GET", `/api/projects/${project.path}/issues?limit=2`, { token: alice.token });
    expect(first.headers.get("x-total-count")).toBe("5");
    expect(first.body.issues).toHaveLength(2);
    const link = first.headers.get("link")!;
    expect(link).toContain('rel="next"');
    expect(link).not.toContain('rel="prev"');
    const next = /<([^>]+)>; rel="next"/.exec(link)![1];
    expect(new URL(next).searchParams.get("offset")).toBe("2");
    const last = await call("GET", `/api/projects/${project.path}/issues?limit=2&offset=4`, { token: alice.token });
    expect(last.body.issues).toHaveLength(1);
    expect(last.headers.get("link")).toContain('rel="prev"');
    expect(last.headers.get("link")).not.toContain('rel="next"');
    const changes = await call("GET", `/api/projects/${project.path}/changes`, { token: alice.token });
    expect(changes.headers.get("x-total-count")).toBe("0");
    const byId = await call("GET", `/api/projects/${project.id}/changes`, { token: alice.token });
    expect(byId.headers.get("x-total-count")).toBe("0");
    expect(byId.body).toEqual({ project: project.path, changes: [] });
  });
});

describe("CORS", () => {
  it("allows only the named origins, for bearer callers, and answers their preflights", async () => {
    await withEnv({ CORS_ORIGINS: "https://app.example, http://localhost:5173" }, async () => {
      const alice = await createTestUser();
      const allowed = await call("GET", "/api/users/me", { token: alice.token, origin: "https://app.example" });
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();
      expect(allowed.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
      const other = await call("GET", "/api/users/me", { token: alice.token, origin: "https://evil.example" });
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
      const preflight = await call("OPTIONS", "/api/projects", {
        origin: "http://localhost:5173",
        headers: {
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
      expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
      const refused = await call("OPTIONS", "/api/projects", {
        origin: "https://evil.example",
        headers: { "access-control-request-method": "POST" },
      });
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    });
    // Default: no origin is allowed.
    const alice = await createTestUser();
    const res = await call("GET", "/api/users/me", { token: alice.token, origin: "https://app.example" });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("anonymous rate limit", () => {
  it("limits anonymous callers per address with the same headers and 429", async () => {
    await withEnv({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: "3" }, async () => {
      const from = (address: string) => ({ headers: { "x-svc-peer-address": address } });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await call("GET", "/api/projects", from("203.0.113.7"))).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await call("GET", "/api/projects", from("203.0.113.7"));
      expect(refused.body).toEqual({ error: "Too many requests" });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("x-ratelimit-limit")).toBe("3");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
      // Another address has its own budget; an authenticated caller is not counted here.
      expect((await call("GET", "/api/projects", from("203.0.113.8"))).status).toBe(200);
      const alice = await createTestUser();
      expect((await call("GET", "/api/projects", { token: alice.token, ...from("203.0.113.7") })).status).toBe(200);
    });
  });
});
