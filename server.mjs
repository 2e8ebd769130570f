// `npm start`: Next.js behind a thin HTTP front, which also stamps the client's address on the
// request. Next.js answers a URL whose dynamic segment does
// not percent-decode (`/api/projects/%ff/x`) with a bare 500 before any handler runs; such a URL
// is the client's error, so it gets the API's 400 here. Everything else goes to Next.js as is.
import http from "node:http";
import v8 from "node:v8";
import next from "next";
import { amendErrorShell } from "./error-shell.mjs";
import { log, logPageRequest } from "./page-log.mjs";

// V8's defaults favour throughput over resident memory, and a request allocates much and keeps
// little. Left alone, the old generation grows to several times the live heap (868 MB resident after
// 20,000 requests against about 120 MB live) and the young generation to 16 MB per semi-space. A
// growth factor of 1.25 and semi-spaces of 2 MB keep the server near its live size at no measurable
// cost in CPU per request (bench/users-me) or changes landed (bench/soak); the heap still grows as
// far as it needs to. Under 3 minutes of 50 agents the heap's committed size ended at 171 MB with
// 1.25 against 197 with 1.5, and RSS at 464 MB with V8's semi-spaces against 416 with 2 MB.
// `node --optimize-for-size server.mjs` trades rate for memory on a small host: 5 minutes of 50
// agents side by side ended at 365 MB resident against 394, with 6% fewer changes landed (docs/soak).
// With the embedded database the young generation is V8's again: setting up its thread's heap puts
// the growth factor back to 2 (process-wide), so under load new space reaches 32 MB. Setting the
// factor again once the thread runs saved 40-50 MB at the end of 2.5 minutes of 50 agents, for 5-11%
// more CPU per landed change in two alternated pairs (docs/soak/README.md), so it is not set again.
v8.setFlagsFromString("--heap-growing-percent=25");
v8.setFlagsFromString("--max-semi-space-size=2");
v8.setFlagsFromString("--semi-space-growth-factor=1");
// A full GC compacts only the pages V8 judges fragmented enough; under a fleet the rest kept the
// old generation's committed size 27-46 MB over what it holds. Compacting at every full GC gives
// them back: 8 minutes of 50 agents beside the build without it, two pairs each, PostgreSQL ended
// the load at 177 / 168 MB against 206 / 198, PGlite at 275 / 295 against 309 / 312, for 2-7% more
// server CPU per landed change (docs/benchmarks.md, memory levers round 6).
v8.setFlagsFromString("--compact-on-every-full-gc");

// PORT and HOST are validated with the rest of the configuration when Next.js starts the runtime.
const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || undefined;

function decodes(url) {
  try {
    decodeURIComponent(new URL(url, "http://x").pathname);
    return true;
  } catch {
    return false;
  }
}

const app = next({ dev: false, hostname: host ?? "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();
http
  .createServer((req, res) => {
    // The peer's address for the audit log and the anonymous rate limit (server/http/client-address.ts); a client's own copy is replaced.
    req.headers["x-svc-peer-address"] = req.socket.remoteAddress ?? "";
    // A page rendered for the framework's own fetch (navigation, prefetch) sends its server HTML in
    // the payload: Next.js hides the RSC header from pages (app/(pages)/_lib/held-html.ts).
    delete req.headers["x-svc-payload-request"];
    if (req.headers.rsc !== undefined) req.headers["x-svc-payload-request"] = "1";
    logPageRequest(req, res);
    amendErrorShell(req, res);
    if (decodes(req.url ?? "/")) return handle(req, res);
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "The URL has malformed percent-encoding", code: "VALIDATION_ERROR" }));
  })
  .listen(port, host, () => log().info({ host: host ?? "every interface", port }, "listening"));
