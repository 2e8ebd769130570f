import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ACCEPTORS, listenWithAcceptors } from "../../acceptors.mjs";

// server.mjs's listening sockets, in front of a stand-in for Next.js on a busy event loop: how many
// turns of the loop a burst of new connections takes to be accepted (libuv accepts one per
// listening socket per turn), counted rather than timed.
const servers: Array<{ close(callback?: () => void): unknown }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function serverOnBusyLoop() {
  let turn = 0;
  const acceptedAt: number[] = [];
  const server = http.createServer((_req, res) => res.end("ok"));
  server.on("connection", () => acceptedAt.push(turn));
  let busy = true;
  // Every turn carries 2 ms of other work, as a server answering other requests does (setImmediate:
  // once per turn, after the turn's accepts).
  const work = () => {
    turn++;
    const end = Date.now() + 2;
    while (Date.now() < end);
    if (busy) setImmediate(work);
  };
  work();
  await listenWithAcceptors(server, { port: 0, host: "127.0.0.1" });
  servers.push({ close: (callback) => ((busy = false), server.close(callback)) });
  return { server, port: (server.address() as AddressInfo).port, acceptedAt };
}

function burst(port: number, count: number): Promise<string[]> {
  const agent = new http.Agent({ maxSockets: count });
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve, reject) => {
          http
            .get({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
              let body = "";
              res.on("data", (chunk) => (body += chunk));
              res.on("end", () => resolve(body));
            })
            .on("error", reject);
        }),
    ),
  ).finally(() => agent.destroy());
}

describe.runIf(ACCEPTORS > 1)("server.mjs listens on several sockets of one port", () => {
  it("accepts a burst of 60 connections in far fewer turns of a busy loop than one socket's 60, all answered by the one server", async () => {
    const { port, acceptedAt } = await serverOnBusyLoop();
    expect(await burst(port, 60)).toEqual(Array(60).fill("ok"));
    expect(acceptedAt).toHaveLength(60);
    // 8 sockets share 60 connections as the kernel hashes them: the busiest takes ~15 of them.
    expect(acceptedAt.at(-1)! - acceptedAt[0]).toBeLessThan(35);
  });

  it("refuses a port another server holds, as a single socket does, and close() frees it", async () => {
    const { server, port } = await serverOnBusyLoop();
    const second = http.createServer();
    await expect(listenWithAcceptors(second, { port, host: "127.0.0.1" })).rejects.toMatchObject({
      code: "EADDRINUSE",
    });
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    expect(server.listening).toBe(false);
    // Every socket let go of the port: a plain bind takes it.
    const plain = net.createServer();
    await new Promise<void>((resolve, reject) => plain.once("error", reject).listen(port, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => plain.close(() => resolve()));
  });
});
