// The benchmark's reference: `git http-backend` (CGI) serving the bare repositories under a
// directory, behind the least HTTP glue that can run a CGI program (no auth, no database).
// Usage: node bench/git-clone/cgi-backend.mjs <port> <project-root>
import http from "node:http";
import { serveGitHttpBackend } from "../../tests/support/git-cgi.mjs";

const [port, projectRoot] = process.argv.slice(2);

http.createServer((req, res) => serveGitHttpBackend(req, res, projectRoot)).listen(Number(port), "127.0.0.1");
