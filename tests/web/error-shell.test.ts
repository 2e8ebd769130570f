import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { amendErrorShell } from "../../error-shell.mjs";

// server.mjs's hook, in front of a stand-in for Next.js that answers as it does: headers set, then
// the body in chunks through res.write, compressed below the hook when the client accepts gzip.
const SHELL =
  '<!DOCTYPE html><html id="__next_error__"><head><title>x · svc-forge</title></head><body><div hidden=""></div>' +
  '<script>self.__next_f.push([1,"9:[\\"$\\",\\"title\\",\\"0\\",{\\"children\\":\\"x · svc-forge\\"}]\\n"])</script>' +
  '<script>self.__next_f.push([1,"12:E{\\"digest\\":\\"3677510603\\"}\\n"])</script></body></html>';

let server: http.Server;
let base = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    amendErrorShell(req, res);
    const url = new URL(req.url ?? "/", "http://x");
    const status = Number(url.searchParams.get("status") ?? 200);
    const type = url.searchParams.get("type") ?? "text/html; charset=utf-8";
    const body =
      url.searchParams.get("body") === "page" ? "<!DOCTYPE html><html><body><main>fine</main></body></html>" : SHELL;
    res.statusCode = status;
    res.setHeader("content-type", type);
    const gzip = /gzip/.test(req.headers["accept-encoding"] ?? "");
    const bytes = gzip ? zlib.gzipSync(body) : Buffer.from(body);
    if (gzip) res.setHeader("content-encoding", "gzip");
    res.write(bytes.subarray(0, 10));
    res.write(bytes.subarray(10));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(query: string, init: { method?: string; gzip?: boolean } = {}) {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http
      .request(
        `${base}/?${query}`,
        { method: init.method ?? "GET", headers: init.gzip ? { "accept-encoding": "gzip" } : {} },
        resolve,
      )
      .on("error", reject)
      .end(),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return {
    status: res.statusCode,
    encoding: res.headers["content-encoding"],
    text: (res.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(raw) : raw).toString(),
  };
}

describe("Next.js's error shell amended by server.mjs: lang and the no-JavaScript 500 and 404 pages, a 404's title", () => {
  it("adds the page with the error id before </body>, compressed or not", async () => {
    for (const gzip of [false, true]) {
      const res = await get("status=500", { gzip });
      expect(res.status).toBe(500);
      expect(res.encoding).toBe(gzip ? "gzip" : undefined);
      expect(
        res.text.startsWith(
          SHELL.slice(0, SHELL.indexOf("</body>")).replace(
            '<html id="__next_error__">',
            '<html id="__next_error__" lang="en">',
          ),
        ),
      ).toBe(true);
      expect(res.text).toMatch(
        /<noscript>.*<h1>Something went wrong<\/h1>.*Error id <code>3677510603<\/code>.*<\/noscript><\/body><\/html>$/,
      );
    }
  });

  it("gives a 404 shell lang, the not-found page in a <noscript>, and titles that say so (the shell's and its payload's)", async () => {
    for (const gzip of [false, true]) {
      const res = await get("status=404", { gzip });
      expect(res.status).toBe(404);
      expect(res.encoding).toBe(gzip ? "gzip" : undefined);
      expect(res.text).toMatch(/^<!DOCTYPE html><html id="__next_error__" lang="en">/);
      expect(res.text).toContain("<title>Not found · svc-forge</title>");
      expect(res.text).toContain('\\"title\\",\\"0\\",{\\"children\\":\\"Not found · svc-forge\\"}');
      expect(res.text).not.toContain("x · svc-forge");
      expect(res.text.match(/<main[ >]/g)).toHaveLength(1);
      expect(res.text).toMatch(/<noscript>.*<h1>Not found<\/h1>.*<\/noscript><\/body><\/html>$/);
    }
    expect((await get("status=404&body=page")).text).toBe("<!DOCTYPE html><html><body><main>fine</main></body></html>");
  });

  it("leaves every other answer as it was written: a 200, a 500 that is not HTML or not the shell, a HEAD", async () => {
    expect((await get("status=200", { gzip: true })).text).toBe(SHELL);
    expect((await get("status=500&type=application/json")).text).toBe(SHELL);
    expect((await get("status=500&body=page")).text).not.toContain("noscript");
    expect((await get("status=500", { method: "HEAD" })).text).toBe("");
  });
});
