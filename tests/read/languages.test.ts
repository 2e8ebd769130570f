import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { projectWith } from "@/server/changes/test-fixtures";
import { cacheReports } from "@/server/caches";
import { languageOf } from "@/server/projects/languages";

useTestEnvironment();

describe("GET /api/projects/{namespace}/{slug}/languages", () => {
  it("shares bytes per language by extension, leaving out vendored, generated, data, prose and binary files", async () => {
    const alice = await createTestUser();
    const project = await projectWith(
      alice.token,
      {
        "README.md": "# readme\n".repeat(100),
        "src/app.ts": "x".repeat(600),
        "src/view.tsx": "y".repeat(150),
        "scripts/run.sh": "z".repeat(250),
        Dockerfile: "FROM x\n",
        "node_modules/dep/index.js": "v".repeat(10_000),
        "vendor/lib.go": "v".repeat(10_000),
        "public/app.min.js": "v".repeat(10_000),
        "package-lock.json": "{}".repeat(5_000),
        "data.json": "{}".repeat(5_000),
        "logo.png": "\u0089PNG".repeat(1000),
      },
      "public",
    );
    const res = await call("GET", `/api/projects/${project.path}/languages`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      path: project.path,
      ref: "main",
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(res.body.languages).toEqual([
      { name: "TypeScript", color: "#3178c6", bytes: 750, percent: 74.5 },
      { name: "Shell", color: "#89e051", bytes: 250, percent: 24.8 },
      { name: "Dockerfile", color: "#384d54", bytes: 7, percent: 0.7 },
    ]);

    // The same tree is answered from the cache, registered with its bound; an ETag revalidates.
    const again = await call("GET", `/api/projects/${project.path}/languages`, {
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    const cache = cacheReports().find((report) => report.name === "projects.languages");
    expect(cache).toMatchObject({ limit: 500 });
    expect(cache!.entries).toBeGreaterThanOrEqual(1);
  });

  it("an empty answer for a tree with no code; 404 for an unknown branch or a private project of another", async () => {
    const bob = await createTestUser();
    const docs = await projectWith(bob.token, { "README.md": "hi\n" }, "public");
    const res = await call("GET", `/api/projects/${docs.path}/languages`);
    expect([res.status, res.body.languages]).toEqual([200, []]);
    expect((await call("GET", `/api/projects/${docs.path}/languages?ref=nope`)).status).toBe(404);
    const secret = await projectWith(bob.token, { "a.ts": "x" }, "private");
    const eve = await createTestUser();
    expect((await call("GET", `/api/projects/${secret.path}/languages`, { token: eve.token })).status).toBe(404);
    expect((await call("GET", `/api/projects/${secret.path}/languages`, { token: bob.token })).status).toBe(200);
  });
});

describe("languageOf", () => {
  it.each([
    ["src/a.ts", "TypeScript"],
    ["lib/A.PY", "Python"],
    ["build/Makefile", "Makefile"],
    ["x/third_party/y.c", null],
    ["a.min.css", null],
    ["api.pb.go", null],
    [".bashrc", null],
    ["notes.txt", null],
  ])("%s is %s", (path, name) => {
    expect(languageOf(path)?.name ?? null).toBe(name);
  });
});
