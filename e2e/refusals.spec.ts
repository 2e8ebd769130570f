import http from "node:http";
import { expect, test } from "@playwright/test";
import { baseURL } from "./support";

// Answers that were 500s although the client was at fault (against the production server: Next.js's
// own server-action check and the page render path only exist there).

const port = new URL(baseURL).port;

test("a server action posted with a foreign or null Origin is a 403, not a 500", async () => {
  for (const origin of ["https://evil.example", "null"]) {
    const res = await fetch(`${baseURL}/`, {
      method: "POST",
      headers: { "next-action": "0123456789abcdef", origin, "content-type": "text/plain;charset=UTF-8" },
      body: "[]",
    });
    expect(res.status, origin).toBe(403);
    expect(await res.json()).toMatchObject({ code: "CSRF" });
    expect(res.headers.get("x-request-id")).toBeTruthy();
  }
});

/** A GET from the local address 127.0.0.2 (a budget of its own: the other tests' is untouched). */
function getFromOwnAddress(path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, localAddress: "127.0.0.2", agent: false }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
  });
}

test("a page asked for past the rate limit answers a 429 page with Retry-After", async () => {
  let last = await getFromOwnAddress("/login");
  for (let i = 0; i < 200 && last.status === 200; i++) last = await getFromOwnAddress("/login");
  // The render is sent to the 429 page (a page render cannot answer 429 itself).
  expect(last.status).toBe(307);
  const page = await getFromOwnAddress(String(last.headers.location));
  expect(page.status).toBe(429);
  expect(Number(page.headers["retry-after"])).toBeGreaterThan(0);
  expect(page.text).toContain("Too many requests");
  // Any page, not only /login (the sliding window may free a slot meanwhile: ask until refused).
  let home = await getFromOwnAddress("/");
  for (let i = 0; i < 20 && home.status === 200; i++) home = await getFromOwnAddress("/");
  expect(home.status).toBe(307);
  expect(home.headers.location).toMatch(/^\/too-many-requests\?retry=\d+$/);
});

test("every page answer carries an X-Request-Id, a valid incoming one echoed", async () => {
  const res = await fetch(`${baseURL}/login`, { headers: { "x-request-id": "e2e-page-1" } });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-request-id")).toBe("e2e-page-1");
  expect((await fetch(`${baseURL}/`)).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
});
