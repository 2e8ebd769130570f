// `git http-backend` (CGI) for one HTTP request: the least glue that runs the CGI program, shared
// by the stub provider (tests/support/provider-stub.ts) and bench/git-clone's reference server.
import { spawn } from "node:child_process";

const HEADER_END = Buffer.from("\r\n\r\n");

/** Serves `req` from the bare repositories under `projectRoot`; `env` adds CGI variables (e.g. REMOTE_USER to allow pushes). */
export function serveGitHttpBackend(req, res, projectRoot, env = {}) {
  const url = new URL(req.url ?? "/", "http://localhost");
  const child = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      GIT_PROTOCOL: req.headers["git-protocol"] ?? "",
      REQUEST_METHOD: req.method,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      ...(req.headers["content-length"] ? { CONTENT_LENGTH: req.headers["content-length"] } : {}),
      HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
      REMOTE_ADDR: "127.0.0.1",
      ...env,
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf(HEADER_END);
    if (end < 0) return;
    child.stdout.off("data", onData);
    let status = 200;
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + HEADER_END.length));
    child.stdout.pipe(res);
  };
  child.stdout.on("data", onData);
  child.stdout.on("end", () => {
    if (!res.headersSent) res.writeHead(502).end();
  });
}
