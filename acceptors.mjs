// How the server listens: several sockets on one port, each accepting its own share of new
// connections. libuv accepts one connection per listening socket per turn of the event loop
// (libuv#3696), and a busy server's turn is tens of milliseconds: a fleet whose agents connect
// together (100 at a start) waited up to 7 s to be accepted, while the server answered each of
// their requests within 1.2 s of seeing it (bench/ci/fleet, docs/benchmarks.md). With SO_REUSEPORT
// the kernel spreads new connections over 8 sockets (Linux 3.9+ and Node 22.12+, whose `listen`
// asks for it; elsewhere the server listens on one): a stand-in whose every turn carries 20 ms of
// other work answered 100 connections opened at once in at most 415 ms against 1,584 on one
// socket. Every socket hands its connections to the one HTTP server, so keep-alive and timeouts
// are the server's as before; its `close()` closes them all.
import net from "node:net";

const [major, minor] = process.versions.node.split(".").map(Number);
export const ACCEPTORS = process.platform === "linux" && (major > 22 || (major === 22 && minor >= 12)) ? 8 : 1;

const listening = (server, options) =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options, () => {
      server.off("error", reject);
      resolve();
    });
  });

/**
 * Listens with `server` (a node:http Server) on `port` and `host` through ACCEPTORS sockets; resolves
 * once all listen. The port must be free: SO_REUSEPORT would let the server share it with another
 * of the same user's servers that asked for it too, and split the clients between them, so a plain
 * bind goes first and fails as it always did (EADDRINUSE) when anyone holds the port.
 */
export async function listenWithAcceptors(server, { port, host }) {
  if (ACCEPTORS === 1) return listening(server, { port, host });
  const probe = net.createServer();
  await listening(probe, { port, host });
  const bound = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  await listening(server, { port: bound, host, reusePort: true });
  const extras = [];
  for (let i = 1; i < ACCEPTORS; i++) {
    // noDelay as node:http's own listening socket sets it.
    const extra = net.createServer({ noDelay: true }, (socket) => server.emit("connection", socket));
    extras.push(extra);
    await listening(extra, { port: bound, host, reusePort: true });
  }
  const closeServer = server.close.bind(server);
  server.close = (callback) => {
    for (const extra of extras) extra.close();
    return closeServer(callback);
  };
}
