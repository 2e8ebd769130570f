import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { projectWith } from "@/server/changes/test-fixtures";
import { withEnv } from "@/tests/support/env";
import { cloneOf } from "./worktree";

useTestEnvironment();

const clones: Array<{ remove(): void }> = [];
afterEach(() => clones.splice(0).forEach((clone) => clone.remove()));
const track = <T extends { remove(): void }>(clone: T) => (clones.push(clone), clone);

describe("GET .../search", () => {
  it("answers what git grep finds: fixed string by default, regex and case on request, path globs, binary skipped, long lines cut", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "Hello world\n" }, "public");
    const clone = track(cloneOf(project.id));
    clone.write("src/a.ts", "const hello = 1;\nconst HELLO = 2;\n// a.b(c\n");
    clone.write("src/deep/b.ts", "hello again\n");
    clone.write("docs/b.md", "hello docs\n");
    clone.write("bin.dat", Buffer.from("hello\0binary\n"));
    clone.write("long.txt", `hello ${"x".repeat(2000)}\n`);
    clone.commit("files");
    clone.push();
    const search = (query: string) => call("GET", `/api/projects/${project.path}/search?${query}`);

    const all = await search("q=hello");
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.ref).toBe("main");
    expect(all.body.truncated).toBe(false);
    expect(all.body.matches.map((m: any) => `${m.path}:${m.line}`)).toEqual([
      "README.md:1",
      "docs/b.md:1",
      "long.txt:1",
      "src/a.ts:1",
      "src/a.ts:2",
      "src/deep/b.ts:1",
    ]);
    expect(all.body.matches.find((m: any) => m.path === "long.txt").text).toHaveLength(1000);
    const grep = clone
      .bare("grep", "-I", "-i", "-F", "-n", "-e", "hello", all.body.commit, "--")
      .toString("utf8")
      .trim()
      .split("\n");
    expect(grep).toHaveLength(all.body.matches.length);

    expect((await search("q=hello&case=true")).body.matches.map((m: any) => m.text)).not.toContain("const HELLO = 2;");
    expect((await search("q=a.b(c")).body.matches).toMatchObject([{ path: "src/a.ts", line: 3, text: "// a.b(c" }]);
    expect(
      (await search(`q=${encodeURIComponent("^const [a-z]+ =")}&regex=true&case=true`)).body.matches,
    ).toMatchObject([{ path: "src/a.ts", line: 1 }]);
    expect(
      (await search(`q=hello&path=${encodeURIComponent("src/**/*.ts")}`)).body.matches.map((m: any) => m.path),
    ).toEqual(["src/a.ts", "src/a.ts", "src/deep/b.ts"]);
    const limited = await search("q=hello&limit=2");
    expect(limited.body).toMatchObject({ truncated: true });
    expect(limited.body.matches).toHaveLength(2);
    expect((await search("q=nothing-here")).body).toMatchObject({ matches: [], truncated: false });
  });

  it("refuses a bad regex with 400, a missing or long q with 400; unknown ref 404; private projects 404 to others", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const base = `/api/projects/${project.path}/search`;
    const bad = await call("GET", `${base}?q=${encodeURIComponent("a(")}&regex=true`, { token: alice.token });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    expect((await call("GET", `${base}?q=${encodeURIComponent("a(")}`, { token: alice.token })).status).toBe(200);
    expect((await call("GET", base, { token: alice.token })).status).toBe(400);
    expect((await call("GET", `${base}?q=${"a".repeat(1001)}`, { token: alice.token })).status).toBe(400);
    expect((await call("GET", `${base}?q=a&regex=maybe`, { token: alice.token })).status).toBe(400);
    expect((await call("GET", `${base}?q=a&ref=nope`, { token: alice.token })).status).toBe(404);
    expect((await call("GET", `${base}?q=a`)).status).toBe(404);
  });

  it("stops a search that runs past SEARCH_TIME_LIMIT_MS and answers 422 SEARCH_TIMEOUT", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const res = await withEnv({ SEARCH_TIME_LIMIT_MS: "1" }, () =>
      call("GET", `/api/projects/${project.path}/search?q=a`, { token: alice.token }),
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("SEARCH_TIMEOUT");
  });
});

describe("GET .../blame", () => {
  it("covers every line in order with the commit git blame --porcelain names", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "f.txt": "one\ntwo\nthree\n" });
    const clone = track(cloneOf(project.id));
    clone.write("f.txt", "one\nTWO\nthree\nfour\n");
    const second = clone.commit("second change\n\nbody");
    clone.push();
    const res = await call("GET", `/api/projects/${project.path}/blame?path=f.txt`, { token: alice.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ref: "main", commit: second, path: "f.txt" });
    expect(res.body.ranges.map((r: any) => [r.startLine, r.endLine, r.commit.sha])).toEqual([
      [1, 1, project.commit],
      [2, 2, second],
      [3, 3, project.commit],
      [4, 4, second],
    ]);
    expect(res.body.ranges[1].commit).toMatchObject({
      message: "second change",
      author: { name: "Ann", email: "ann@example.test" },
    });
    const porcelain = clone.bare("blame", "--porcelain", second, "--", "f.txt").toString("utf8");
    expect(
      porcelain
        .split("\n")
        .filter((line) => /^[0-9a-f]{40} /.test(line))
        .map((line) => line.slice(0, 40)),
    ).toEqual(res.body.ranges.map((r: any) => r.commit.sha));
    const old = await call("GET", `/api/projects/${project.path}/blame?path=f.txt&ref=${project.commit}`, {
      token: alice.token,
    });
    expect(old.body.ranges).toMatchObject([{ startLine: 1, endLine: 3, commit: { sha: project.commit } }]);
    expect(
      (await call("GET", `/api/projects/${project.path}/blame?path=missing.txt`, { token: alice.token })).status,
    ).toBe(404);
    expect((await call("GET", `/api/projects/${project.path}/blame`, { token: alice.token })).status).toBe(400);
    expect((await call("GET", `/api/projects/${project.path}/blame?path=f.txt`)).status).toBe(404);
  });
});

describe("GET .../raw", () => {
  it("serves bytes a browser cannot run: text/plain for HTML/SVG/JS, CSP sandbox, nosniff, ETag from the blob id", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" }, "public");
    const clone = track(cloneOf(project.id));
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x01]);
    clone.write("img/logo.png", png);
    clone.write("evil.html", "<script>alert(1)</script>\n");
    clone.write("evil.svg", "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>\n");
    clone.write("app.js", "alert(1)\n");
    clone.write("doc.pdf", "%PDF-1.4\n");
    clone.commit("assets");
    clone.push();
    const raw = (query: string, headers?: Record<string, string>) =>
      call("GET", `/api/projects/${project.path}/raw?${query}`, { headers });
    const image = await raw("path=img/logo.png");
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    const blobId = clone.bare("rev-parse", "HEAD:img/logo.png").toString("utf8").trim();
    expect(image.headers.get("etag")).toBe(`"${blobId}"`);
    for (const file of ["evil.html", "evil.svg", "app.js", "README.md"]) {
      const res = await raw(`path=${file}`);
      expect(res.headers.get("content-type"), file).toBe("text/plain; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toBe("sandbox");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect((await raw("path=evil.html")).text).toBe("<script>alert(1)</script>\n");
    expect((await raw("path=doc.pdf")).headers.get("content-type")).toBe("application/pdf");
    const cached = await raw("path=img/logo.png", { "if-none-match": `"${blobId}"` });
    expect(cached.status).toBe(304);
    expect((await raw(`path=README.md&ref=${project.commit}`)).text).toBe("hi\n");
    expect((await raw("path=missing")).status).toBe(404);
    expect((await raw("path=img")).status).toBe(404);
    expect((await raw("")).status).toBe(400);
    expect((await raw("path=README.md&ref=nope")).status).toBe(404);
  });

  it("streams a file of several MiB byte for byte as git cat-file writes it; binary without a known extension is octet-stream", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" }, "public");
    const clone = track(cloneOf(project.id));
    const big = Buffer.from(Array.from({ length: 60_000 }, (_, i) => `line ${i} ${"z".repeat(i % 90)}`).join("\n"));
    clone.write("data/big.txt", big);
    clone.write("blob.dat", Buffer.concat([Buffer.from("header"), Buffer.from([0]), Buffer.alloc(20_000, 7)]));
    clone.commit("big files");
    clone.push();
    const { routeModuleFor, TEST_ORIGIN } = await import("@/tests/support/http");
    const fetchRaw = async (file: string) => {
      const url = new URL(`/api/projects/${project.path}/raw?path=${file}`, TEST_ORIGIN);
      return (routeModuleFor(url.pathname).GET as (req: Request) => Promise<Response>)(
        new Request(url, { headers: { host: url.host } }),
      );
    };
    const res = await fetchRaw("data/big.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("etag")).toBe(`"${clone.bare("rev-parse", "HEAD:data/big.txt").toString("utf8").trim()}"`);
    const chunks: Uint8Array[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(big)).toBe(true);
    const binary = await fetchRaw("blob.dat");
    expect(binary.headers.get("content-type")).toBe("application/octet-stream");
    expect(Buffer.from(await binary.arrayBuffer()).equals(clone.bare("cat-file", "blob", "HEAD:blob.dat"))).toBe(true);
  });

  it("is 404 on a private project for anyone who cannot read it", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    expect((await call("GET", `/api/projects/${project.path}/raw?path=a.txt`)).status).toBe(404);
    expect((await call("GET", `/api/projects/${project.path}/raw?path=a.txt`, { token: mallory.token })).status).toBe(
      404,
    );
    expect((await call("GET", `/api/projects/${project.path}/raw?path=a.txt`, { token: alice.token })).text).toBe(
      "a\n",
    );
  });
});

describe("GET .../contents and .../archive-link (the JSON forms of raw and archive)", () => {
  it("answers a file as GitHub's contents API does: UTF-8 or base64 up to 1 MiB, encoding none and a download URL above; on REST and /api/trpc", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const clone = track(cloneOf(project.id));
    const big = Buffer.alloc(1024 * 1024 + 1, "a");
    const bin = Buffer.from([0x89, 0x50, 0x00, 0xff, 0x10]);
    clone.write("big.txt", big);
    clone.write("img/bin.png", bin);
    clone.write("héllo.txt", "grüße\n");
    const sha = clone.commit("files");
    clone.push();
    const base = `/api/projects/${project.path}/contents`;
    const contents = (query: string, token = alice.token) => call("GET", `${base}?${query}`, { token });
    const text = await contents(`path=${encodeURIComponent("héllo.txt")}`);
    expect(text.status, JSON.stringify(text.body)).toBe(200);
    expect(text.body).toEqual({
      path: "héllo.txt",
      ref: "main",
      commit: sha,
      sha: clone.bare("rev-parse", "HEAD:héllo.txt").toString("utf8").trim(),
      size: Buffer.byteLength("grüße\n"),
      encoding: "utf-8",
      content: "grüße\n",
      downloadUrl: expect.stringContaining(`/api/projects/${project.path}/raw?ref=${sha}&path=h%C3%A9llo.txt`),
    });
    expect((await contents("path=img/bin.png")).body).toMatchObject({
      encoding: "base64",
      content: bin.toString("base64"),
      size: 5,
    });
    const large = await contents("path=big.txt");
    expect(large.body).toMatchObject({ encoding: "none", content: "", size: big.length });
    const download = new URL(large.body.downloadUrl);
    const raw = await call("GET", `${download.pathname}${download.search}`, { token: alice.token });
    expect(raw.status).toBe(200);
    expect(raw.text.length).toBe(big.length);
    expect((await contents(`path=README.md&ref=${project.commit}`)).body).toMatchObject({
      commit: project.commit,
      content: "hi\n",
    });
    expect((await contents("path=img")).status).toBe(404);
    expect((await contents("path=nope")).status).toBe(404);
    expect((await contents("")).status).toBe(400);
    expect((await contents("path=README.md", mallory.token)).status).toBe(404);
    const trpc = await call(
      "GET",
      `/api/trpc/code.contents?input=${encodeURIComponent(JSON.stringify({ namespace: `@${project.namespace}`, slug: project.slug, path: "README.md" }))}`,
      { token: alice.token },
    );
    expect(trpc.status).toBe(200);
    expect(JSON.stringify(trpc.body)).toContain('"content":"hi\\n"');
  });

  it("answers the archive's download URL (naming the commit) and its ETag, which the archive route answers with", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" }, "public");
    const link = await call("GET", `/api/projects/${project.path}/archive-link?format=zip`);
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect(link.body).toMatchObject({
      ref: "main",
      commit: project.commit,
      format: "zip",
      fileName: `${project.slug}-${project.commit.slice(0, 12)}.zip`,
      etag: `"${project.commit}.zip"`,
    });
    const url = new URL(link.body.url);
    expect(url.pathname).toBe(`/api/projects/${project.path}/archive`);
    expect(url.searchParams.get("ref")).toBe(project.commit);
    const archive = await call("GET", `${url.pathname}${url.search}`, { headers: { "if-none-match": link.body.etag } });
    expect(archive.status).toBe(304);
    expect((await call("GET", `/api/projects/${project.path}/archive-link?ref=nope`)).status).toBe(404);
    expect((await call("GET", `/api/projects/${project.path}/archive-link?format=rar`)).status).toBe(400);
  });
});

describe("GET .../archive", () => {
  it("streams what git archive writes, with the <slug>-<12 hex>/ prefix, a file name and an ETag", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n", "src/a.ts": "a\n" }, "public");
    const clone = track(cloneOf(project.id));
    const stem = `${project.slug}-${project.commit.slice(0, 12)}`;
    for (const format of ["tar.gz", "zip"] as const) {
      const res = await call("GET", `/api/projects/${project.path}/archive${format === "zip" ? "?format=zip" : ""}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${stem}.${format}"`);
      expect(res.headers.get("etag")).toBe(`"${project.commit}.${format}"`);
      const body = Buffer.from(await (await fetchBytes(project.path, format)).arrayBuffer());
      const expected = clone.bare("archive", `--format=${format}`, `--prefix=${stem}/`, project.commit);
      expect(body.equals(expected), format).toBe(true);
    }
    const listing = execFileSync("tar", ["-tz"], {
      input: clone.bare("archive", "--format=tar.gz", `--prefix=${stem}/`, project.commit),
    }).toString();
    expect(listing).toContain(`${stem}/src/a.ts`);
    const cached = await call("GET", `/api/projects/${project.path}/archive`, {
      headers: { "if-none-match": `"${project.commit}.tar.gz"` },
    });
    expect(cached.status).toBe(304);
    expect((await call("GET", `/api/projects/${project.path}/archive?ref=nope`)).status).toBe(404);
    expect((await call("GET", `/api/projects/${project.path}/archive?format=rar`)).status).toBe(400);
  }, 60_000); // a clone and six git archives: 33 s on a loaded CI machine
});

/** The archive's bytes through the route handler (call() decodes bodies as text). */
async function fetchBytes(projectPath: string, format: string): Promise<Response> {
  const { routeModuleFor, TEST_ORIGIN } = await import("@/tests/support/http");
  const url = `${TEST_ORIGIN}/api/projects/${projectPath}/archive?format=${format}`;
  const handler = routeModuleFor(new URL(url).pathname).GET as (req: Request) => Promise<Response>;
  return handler(new Request(url, { headers: { host: new URL(url).host } }));
}
