// The production server, loaded by server.mjs once the heap's flags are set: Next.js behind a thin
// HTTP front, which also stamps the client's address on the request. Next.js answers a URL whose
// dynamic segment does not percent-decode (`/api/projects/%ff/x`) with a bare 500 before any
// handler runs; such a URL is the client's error, so it gets the API's 400 here. Everything else
// goes to Next.js as is.
import http from "node:http";
import next from "next";
import { ACCEPTORS, listenWithAcceptors } from "./acceptors.mjs";
import { releaseLoadedChunks } from "./chunk-release.mjs";
import { amendErrorShell } from "./error-shell.mjs";
import { keepConnectionsAlive } from "./keep-alive.mjs";
import { log, logPageRequest } from "./page-log.mjs";

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

releaseLoadedChunks();
const app = next({ dev: false, hostname: host ?? "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();
const server = keepConnectionsAlive(
  http.createServer((req, res) => {
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
  }),
);
await listenWithAcceptors(server, { port, host });
log().info({ host: host ?? "every interface", port, acceptors: ACCEPTORS }, "listening");
