// How long the server keeps an idle client connection open, and says so in `Keep-Alive: timeout=`.
// Node.js's default is 5 s, so an agent that pauses longer between requests (one waiting for its
// change to land, ~20 s under a fleet) opens a new connection for each. Under load that costs
// more than the handshake: libuv accepts one connection per turn of the event loop (libuv#3696),
// and a busy server's turn is tens of milliseconds, so a burst of 100 new connections waited up
// to 7 s to be accepted (bench/ci/fleet, docs/benchmarks.md). Clients that honour the hint (undici,
// so Node's fetch) keep their sockets a second less than it. 65 s outlasts the 60 s idle timeout of
// common proxies and load balancers in front of the server, which should close first.
export const KEEP_ALIVE_SECONDS = 65;

/** Applies the keep-alive time to `server` (a node:http Server). */
export function keepConnectionsAlive(server) {
  server.keepAliveTimeout = KEEP_ALIVE_SECONDS * 1000;
  return server;
}
