import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serveGitHttpBackend } from "./git-cgi.mjs";

/**
 * A stand-in for GitHub in tests and benchmarks: a real HTTP server on 127.0.0.1 serving git's
 * smart HTTP through `git http-backend` over bare repositories under its own directory, and the
 * REST subset the service uses (repository, compare, pull requests, commit statuses, issue comments,
 * the OAuth sign-in's token exchange and user profile). It
 * checks the token like GitHub (git: Basic `x-access-token:<token>`, REST: Bearer), and `fault`
 * switches every answer to a 401, 404 or 429 (with an exhausted rate limit), or to never answering.
 */

export type StubFault = null | 401 | 404 | 429 | "hang";

export interface StubRecord {
  method: string;
  path: string;
  body: any;
  authorization: string | undefined;
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Upstream",
  GIT_AUTHOR_EMAIL: "upstream@example.test",
  GIT_COMMITTER_NAME: "Upstream",
  GIT_COMMITTER_EMAIL: "upstream@example.test",
};

export interface StubProvider {
  url: string;
  apiUrl: string;
  root: string;
  /** Requests to the REST subset, in order. */
  requests: StubRecord[];
  /** Git requests served (`METHOD path`), in order: each git command starts with one `GET .../info/refs`. */
  gitRequests: string[];
  fault: StubFault;
  /** Where faults apply: every request, only git's (REST answers normally) or only REST's (git serves normally). */
  faultScope: "all" | "git" | "rest";
  /** The token the stub accepts (null: anonymous access is allowed too). */
  token: string | null;
  /** Milliseconds to hold each git response (a slow server), 0 by default. */
  gitDelayMs: number;
  /**
   * The profile GET /api/v3/user answers to the access token that POST /login/oauth/access_token
   * gives for any code (OAuth sign-in, as Auth.js's GitHub provider with `enterprise.baseUrl` asks).
   */
  oauthProfile: Record<string, unknown>;
  repoPath(owner: string, repo: string): string;
  /** Creates a bare repository with one commit per file map (in order) on `branch`; returns the commit ids. */
  seed(owner: string, repo: string, commits: Array<Record<string, string>>, branch?: string): string[];
  /** Adds commits on top of `branch`; returns their ids. */
  addCommits(owner: string, repo: string, commits: Array<Record<string, string>>, branch?: string): string[];
  tip(owner: string, repo: string, branch?: string): string | null;
  close(): Promise<void>;
}

function git(args: string[], cwd?: string): string {
  return execFileSync("git", args, {
    cwd,
    env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }).trim();
}

function commitFiles(bare: string, branch: string, commits: Array<Record<string, string>>): string[] {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "stub-work-"));
  try {
    git(["clone", "-q", bare, work]);
    const existing = git(["ls-remote", bare, `refs/heads/${branch}`]);
    if (existing) git(["checkout", "-q", branch], work);
    else git(["checkout", "-q", "--orphan", branch], work);
    const ids: string[] = [];
    commits.forEach((files, index) => {
      for (const [file, content] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
        fs.writeFileSync(path.join(work, file), content);
      }
      git(["add", "-A"], work);
      git(["commit", "-q", "--allow-empty", "-m", `upstream commit ${index + 1}`], work);
      ids.push(git(["rev-parse", "HEAD"], work));
    });
    git(["push", "-q", "origin", `HEAD:refs/heads/${branch}`], work);
    return ids;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
  });
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export async function startStubProvider(options: { token?: string | null } = {}): Promise<StubProvider> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "stub-provider-"));
  const hung = new Set<http.ServerResponse>();
  let pullNumber = 0;
  const stub: StubProvider = {
    url: "",
    apiUrl: "",
    root,
    requests: [],
    gitRequests: [],
    fault: null,
    faultScope: "all",
    token: options.token === undefined ? "ghp_stubtoken" : options.token,
    gitDelayMs: 0,
    oauthProfile: { id: 1, login: "octocat", name: null, email: "octocat@example.test", avatar_url: null },
    repoPath: (owner, repo) => path.join(root, owner, `${repo}.git`),
    seed(owner, repo, commits, branch = "main") {
      const bare = stub.repoPath(owner, repo);
      fs.mkdirSync(path.dirname(bare), { recursive: true });
      git(["init", "-q", "--bare", "-b", branch, bare]);
      git(["config", "http.receivepack", "true"], bare);
      return commitFiles(bare, branch, commits);
    },
    addCommits: (owner, repo, commits, branch = "main") => commitFiles(stub.repoPath(owner, repo), branch, commits),
    tip(owner, repo, branch = "main") {
      try {
        return git(["rev-parse", "--verify", "-q", `refs/heads/${branch}`], stub.repoPath(owner, repo)) || null;
      } catch {
        return null;
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy();
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(root, { recursive: true, force: true });
          resolve();
        });
      }),
  };

  const faultFor = (isGit: boolean): StubFault =>
    stub.faultScope === "all" || stub.faultScope === (isGit ? "git" : "rest") ? stub.fault : null;

  function refuse(res: http.ServerResponse, fault: Exclude<StubFault, null>, isGit: boolean): void {
    if (fault === "hang") {
      hung.add(res);
      return;
    }
    if (fault === 401) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="GitHub"', "content-type": "application/json" });
      res.end(JSON.stringify({ message: "Bad credentials" }));
      return;
    }
    if (fault === 404) return json(res, 404, { message: "Not Found" });
    const reset = String(Math.ceil(Date.now() / 1000) + 3600);
    const headers: Record<string, string> = isGit
      ? { "retry-after": "60" }
      : { "retry-after": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset };
    return json(res, 429, { message: "API rate limit exceeded" }, headers);
  }

  function gitAuthorized(req: http.IncomingMessage): boolean {
    if (!stub.token) return true;
    const expected = `Basic ${Buffer.from(`x-access-token:${stub.token}`).toString("base64")}`;
    return req.headers.authorization === expected;
  }

  async function serveGit(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const [, owner, repoWithSuffix] = url.pathname.split("/");
    const bare = stub.repoPath(owner, repoWithSuffix.replace(/\.git$/, ""));
    if (!gitAuthorized(req)) return refuse(res, 401, true);
    if (!fs.existsSync(bare)) return refuse(res, 404, true);
    stub.gitRequests.push(`${req.method} ${url.pathname}`);
    if (stub.gitDelayMs) await new Promise((resolve) => setTimeout(resolve, stub.gitDelayMs));
    serveGitHttpBackend(req, res, root, { REMOTE_USER: "x-access-token" });
  }

  const OAUTH_ACCESS_TOKEN = "gho_stubsignin";

  async function serveOAuth(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const raw = (await readBody(req)).toString("utf8");
    stub.requests.push({
      method: req.method ?? "",
      path: url.pathname,
      body: raw,
      authorization: req.headers.authorization,
    });
    if (req.method !== "POST" || !new URLSearchParams(raw).get("code")) return json(res, 400, { error: "bad_request" });
    return json(res, 200, { access_token: OAUTH_ACCESS_TOKEN, token_type: "bearer", scope: "read:user,user:email" });
  }

  async function serveRest(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    if (url.pathname === "/api/v3/user") {
      stub.requests.push({
        method: req.method ?? "",
        path: url.pathname,
        body: null,
        authorization: req.headers.authorization,
      });
      return req.headers.authorization === `Bearer ${OAUTH_ACCESS_TOKEN}`
        ? json(res, 200, stub.oauthProfile)
        : refuse(res, 401, false);
    }
    const raw = await readBody(req);
    const body = raw.length ? JSON.parse(raw.toString("utf8")) : null;
    stub.requests.push({
      method: req.method ?? "",
      path: url.pathname,
      body,
      authorization: req.headers.authorization,
    });
    if (
      stub.token &&
      req.headers.authorization !== `bearer ${stub.token}` &&
      req.headers.authorization !== `token ${stub.token}` &&
      req.headers.authorization !== `Bearer ${stub.token}`
    ) {
      return refuse(res, 401, false);
    }
    const match = url.pathname.match(/^\/api\/v3\/repos\/([^/]+)\/([^/]+)(\/.*)?$/);
    if (!match) return json(res, 404, { message: "Not Found" });
    const [, owner, repo, rest = ""] = match;
    const bare = stub.repoPath(owner, repo);
    if (!fs.existsSync(bare)) return json(res, 404, { message: "Not Found" });
    if (req.method === "GET" && rest === "") {
      return json(res, 200, {
        name: repo,
        full_name: `${owner}/${repo}`,
        private: true,
        default_branch: git(["symbolic-ref", "--short", "HEAD"], bare),
      });
    }
    if (req.method === "POST" && rest === "/pulls") {
      if (!stub.tip(owner, repo, body.head))
        return json(res, 422, { message: "Validation Failed", errors: [{ field: "head", code: "invalid" }] });
      pullNumber += 1;
      return json(res, 201, {
        number: pullNumber,
        html_url: `${stub.url}/${owner}/${repo}/pull/${pullNumber}`,
        head: { ref: body.head },
        base: { ref: body.base },
        draft: body.draft,
      });
    }
    const compare = req.method === "GET" ? rest.match(/^\/compare\/([^/.]+)\.\.\.([^/.]+)$/) : null;
    if (compare) {
      const [, base, head] = compare;
      const count = (range: string) => {
        try {
          return Number(git(["rev-list", "--count", range], bare));
        } catch {
          return null;
        }
      };
      const [aheadBy, behindBy] = [count(`${base}..${head}`), count(`${head}..${base}`)];
      if (aheadBy === null || behindBy === null) return json(res, 404, { message: "Not Found" });
      const status = aheadBy && behindBy ? "diverged" : aheadBy ? "ahead" : behindBy ? "behind" : "identical";
      return json(res, 200, { status, ahead_by: aheadBy, behind_by: behindBy, total_commits: aheadBy });
    }
    if (req.method === "POST" && /^\/statuses\/[0-9a-f]{40}$/.test(rest))
      return json(res, 201, { state: body.state, context: body.context });
    if (req.method === "POST" && /^\/issues\/\d+\/comments$/.test(rest))
      return json(res, 201, { id: stub.requests.length, body: body.body });
    return json(res, 404, { message: "Not Found" });
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const isGit = !url.pathname.startsWith("/api/v3/") && url.pathname !== "/login/oauth/access_token";
    const fault = faultFor(isGit);
    const done = fault
      ? Promise.resolve(refuse(res, fault, isGit))
      : url.pathname === "/login/oauth/access_token"
        ? serveOAuth(req, res, url)
        : isGit
          ? serveGit(req, res, url)
          : serveRest(req, res, url);
    done.catch((error) => {
      if (!res.headersSent) json(res, 500, { message: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  stub.url = `http://127.0.0.1:${port}`;
  stub.apiUrl = `${stub.url}/api/v3`;
  return stub;
}
