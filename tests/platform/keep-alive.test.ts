import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEEP_ALIVE_SECONDS, keepConnectionsAlive } from "../../keep-alive.mjs";

// server.mjs's HTTP server, in front of a stand-in for Next.js: what a client learns about how long
// its idle connection stays open, and that a keep-alive client's next request rides the same one.
let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = keepConnectionsAlive(http.createServer((_req, res) => res.end("ok")));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(agent: http.Agent): Promise<{ keepAlive: string; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ keepAlive: String(res.headers["keep-alive"]), reusedSocket: req.reusedSocket }));
    });
    req.on("error", reject);
  });
}

describe("server.mjs keeps an idle client connection open", () => {
  it("announces the keep-alive time, longer than common proxies' 60 s, and a client reuses its connection", async () => {
    expect(KEEP_ALIVE_SECONDS).toBeGreaterThan(60);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent);
      expect(first.keepAlive).toBe(`timeout=${KEEP_ALIVE_SECONDS}`);
      expect(first.reusedSocket).toBe(false);
      const second = await get(agent);
      expect(second.reusedSocket).toBe(true);
    } finally {
      agent.destroy();
    }
  });
});
