// One pagination convention on every list (docs/api.md, "Lists"): Link first/prev/next/last and
// X-Total-Count on limit/offset lists, Link first/next on `before` cursor lists.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";
import { cursorHeaders, paginationHeaders } from "@/server/http";

useTestEnvironment();

/** rel -> URL of a Link header. */
function links(header: string | null): Record<string, string> {
  return Object.fromEntries([...(header ?? "").matchAll(/<([^>]+)>; rel="(\w+)"/g)].map(([, url, rel]) => [rel, url]));
}
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};
const offsetOf = (url: string | undefined) => (url === undefined ? undefined : new URL(url).searchParams.get("offset"));

describe("limit/offset lists", () => {
  it("link the first, previous, next and last pages and count the whole list; following the links reads every item once", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    for (let i = 1; i <= 5; i++)
      await call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: `issue ${i}` } });
    const first = await call("GET", `/api/projects/${project.path}/issues?status=open&limit=2`, { token: alice.token });
    expect(first.headers.get("x-total-count")).toBe("5");
    const firstLinks = links(first.headers.get("link"));
    expect(Object.keys(firstLinks).sort()).toEqual(["first", "last", "next"]);
    expect([offsetOf(firstLinks.first), offsetOf(firstLinks.next), offsetOf(firstLinks.last)]).toEqual(["0", "2", "4"]);
    // The links keep the request's filters.
    expect(new URL(firstLinks.next).searchParams.get("status")).toBe("open");

    const middle = await call("GET", pathOf(firstLinks.next), { token: alice.token });
    const middleLinks = links(middle.headers.get("link"));
    expect([offsetOf(middleLinks.prev), offsetOf(middleLinks.next), offsetOf(middleLinks.last)]).toEqual([
      "0",
      "4",
      "4",
    ]);
    const last = await call("GET", pathOf(middleLinks.last), { token: alice.token });
    const lastLinks = links(last.headers.get("link"));
    expect(Object.keys(lastLinks).sort()).toEqual(["first", "last", "prev"]);
    const titles = [first, middle, last].flatMap((page) =>
      page.body.issues.map((issue: { title: string }) => issue.title),
    );
    expect(titles.sort()).toEqual(["issue 1", "issue 2", "issue 3", "issue 4", "issue 5"]);
  });

  it("answer an empty list with a count of 0 and first = last", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    for (const path of ["deployments", "sync/history"]) {
      const res = await call("GET", `/api/projects/${project.path}/${path}?limit=10`, { token: alice.token });
      if (res.status !== 200) {
        // Sync history is only for a connected project; its refusal is not a list.
        expect(path).toBe("sync/history");
        continue;
      }
      expect(res.headers.get("x-total-count"), path).toBe("0");
      const pageLinks = links(res.headers.get("link"));
      expect(Object.keys(pageLinks).sort(), path).toEqual(["first", "last"]);
      expect(pageLinks.first).toBe(pageLinks.last);
    }
  });

  it("past the end: prev leads back to the last page", () => {
    const headers = paginationHeaders("http://svc.test/api/x?limit=10&offset=50", "http://svc.test", {
      total: 25,
      limit: 10,
      offset: 50,
    });
    expect(offsetOf(links(headers.Link).prev)).toBe("20");
    expect(links(headers.Link).next).toBeUndefined();
  });
});

describe("cursor lists", () => {
  it("link the first page and, while pages are full, the next one before the last item; following them reads every entry once", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    for (let i = 0; i < 5; i++) {
      const added = await call(
        "PUT",
        `/api/projects/${project.path}/collaborators/${(await createTestUser()).username}`,
        { token: alice.token, body: { permission: "read" } },
      );
      expect(added.status).toBe(200);
    }
    const headers = { "x-admin-api-key": TEST_ADMIN_KEY };
    const seen: string[] = [];
    let url: string | undefined = `/api/admin/audit?project=${project.path}&limit=2`;
    let pages = 0;
    while (url) {
      const res = await call("GET", url, { headers });
      expect(res.status).toBe(200);
      const pageLinks = links(res.headers.get("link"));
      expect(new URL(pageLinks.first).searchParams.get("before")).toBeNull();
      expect(res.headers.get("x-total-count")).toBeNull();
      seen.push(...res.body.entries.map((entry: { id: string }) => entry.id));
      url = pageLinks.next ? pathOf(pageLinks.next) : undefined;
      if (url) expect(new URL(pageLinks.next).searchParams.get("project")).toBe(project.path);
      pages++;
    }
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.floor(seen.length / 2) + 1);
  });

  it("page a project's activity by event id, every event once, and refuse another project's event as a cursor", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const other = await projectWith(alice.token, { "b.txt": "b\n" });
    for (let i = 0; i < 4; i++) {
      const issue = await call("POST", `/api/projects/${project.path}/issues`, {
        token: alice.token,
        body: { title: `issue ${i}` },
      });
      expect(issue.status).toBe(201);
    }
    const all = await call("GET", `/api/projects/${project.path}/activity?limit=100`, { token: alice.token });
    const ids = all.body.events.map((event: { id: string }) => event.id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    const seen: string[] = [];
    let url: string | undefined = `/api/projects/${project.path}/activity?limit=2`;
    while (url) {
      const res = await call("GET", url, { token: alice.token });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-total-count")).toBeNull();
      seen.push(...res.body.events.map((event: { id: string }) => event.id));
      const pageLinks = links(res.headers.get("link"));
      url = pageLinks.next ? pathOf(pageLinks.next) : undefined;
    }
    expect(seen).toEqual(ids);
    const foreign = await call("GET", `/api/projects/${other.path}/activity?limit=1`, { token: alice.token });
    const refused = await call("GET", `/api/projects/${project.path}/activity?before=${foreign.body.events[0].id}`, {
      token: alice.token,
    });
    expect(refused.status).toBe(404);
  });

  it("page a project's provenance by record id, each merged commit once", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    for (let i = 0; i < 3; i++) {
      const { change } = await changeWith(alice.token, project, { [`f${i}.txt`]: `${i}\n` });
      expect((await merge(alice.token, change.id)).status).toBe(200);
    }
    const all = await call("GET", `/api/projects/${project.path}/provenance?limit=100`, { token: alice.token });
    const ids = all.body.records.map((record: { id: string }) => record.id);
    expect(ids.length).toBe(3);
    const seen: string[] = [];
    let url: string | undefined = `/api/projects/${project.path}/provenance?limit=2`;
    while (url) {
      const res = await call("GET", url, { token: alice.token });
      expect(res.status).toBe(200);
      seen.push(...res.body.records.map((record: { id: string }) => record.id));
      const pageLinks = links(res.headers.get("link"));
      url = pageLinks.next ? pathOf(pageLinks.next) : undefined;
    }
    expect(seen).toEqual(ids);
    const unknown = await call(
      "GET",
      `/api/projects/${project.path}/provenance?before=00000000-0000-4000-8000-000000000000`,
      {
        token: alice.token,
      },
    );
    expect(unknown.status).toBe(404);
  });

  it("a page shorter than the limit has no next", () => {
    expect(
      links(
        cursorHeaders("http://svc.test/api/x?before=b&limit=5", "http://svc.test", {
          limit: 5,
          count: 4,
          nextBefore: "a",
        }).Link,
      ),
    ).toEqual({ first: "http://svc.test/api/x?limit=5" });
  });
});

describe("the convention in the OpenAPI document", () => {
  const document = JSON.parse(fs.readFileSync("client/openapi.json", "utf8")) as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: Array<{ in: string; name: string }>;
          responses: Record<string, { headers?: Record<string, unknown> }>;
        }
      >
    >;
  };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
  const takes = (operation: (typeof operations)[number]["operation"], name: string) =>
    operation.parameters?.some((p) => p.in === "query" && p.name === name) ?? false;
  const success = (operation: (typeof operations)[number]["operation"]) =>
    Object.entries(operation.responses).find(([status]) => status.startsWith("2"))?.[1];

  it("declares Link and X-Total-Count on every limit/offset list, and Link on every cursor list", () => {
    const offsetLists = operations.filter(({ method, operation }) => method === "get" && takes(operation, "offset"));
    const cursorLists = operations.filter(({ method, operation }) => method === "get" && takes(operation, "before"));
    expect(offsetLists.length).toBeGreaterThanOrEqual(10);
    expect(cursorLists.map(({ path }) => path).sort()).toEqual([
      "/api/admin/audit",
      "/api/admin/backups",
      "/api/admin/deletion-jobs",
      "/api/admin/jobs",
      "/api/projects/{namespace}/{slug}/activity",
      "/api/projects/{namespace}/{slug}/provenance",
    ]);
    for (const { path, operation } of offsetLists)
      expect(Object.keys(success(operation)?.headers ?? {}), path).toEqual(
        expect.arrayContaining(["Link", "X-Total-Count"]),
      );
    for (const { path, operation } of cursorLists)
      expect(Object.keys(success(operation)?.headers ?? {}), path).toContain("Link");
  });

  it("docs/api.md names every list operation that takes a limit", () => {
    const docs = fs.readFileSync("docs/api.md", "utf8");
    const lists = operations.filter(({ method, operation }) => method === "get" && takes(operation, "limit"));
    expect(
      lists.filter(({ path }) => !docs.includes(`\`GET ${path.replace(/^\/api/, "")}\``)).map(({ path }) => path),
    ).toEqual([]);
  });
});
