import { afterAll, beforeAll } from "vitest";
import { spawnGit } from "@/server/git";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { routeModuleFor } from "@/tests/support/http";

type Handler = (req: Request) => Response | Promise<Response>;

export interface TestServer {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 in front of the app's route handlers (the same dispatch as
 * `call()`), with request and response bodies streamed, so the real git client can talk to it.
 * Sets BASE_URL to its address so `remote` fields point at it.
 */
export async function startTestServer(): Promise<TestServer> {
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const method = req.method ?? "GET";
      const hasBody = method !== "GET" && method !== "HEAD";
      const request = new Request(url, {
        method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
        duplex: "half",
      } as RequestInit);
      const handler = routeModuleFor(url.pathname)[method] as Handler | undefined;
      const response = handler ? await handler(request) : new Response(null, { status: 405 });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body && method !== "HEAD") await pipeline(Readable.fromWeb(response.body as never), res);
      else res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.BASE_URL = baseUrl;
  return {
    baseUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A test server and an isolated git client for the enclosing file or describe block (beforeAll/afterAll). */
export function useGitServer(): { readonly server: TestServer; readonly git: GitClient } {
  const state = {} as { server: TestServer; git: GitClient };
  beforeAll(async () => {
    state.server = await startTestServer();
    state.git = new GitClient();
  });
  afterAll(async () => {
    await state.server?.close();
    state.git?.cleanup();
  });
  return state;
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The real git client, isolated: its own HOME (no user config, no credential helper), no
 * terminal prompts, a fixed identity. Asynchronous, so the in-process server keeps serving.
 */
export class GitClient {
  readonly home: string;

  constructor() {
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-git-home-"));
  }

  async run(
    args: string[],
    options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
  ): Promise<GitResult> {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: this.home,
      GIT_AUTHOR_NAME: "Test Pusher",
      GIT_AUTHOR_EMAIL: "pusher@example.test",
      GIT_COMMITTER_NAME: "Test Pusher",
      GIT_COMMITTER_EMAIL: "pusher@example.test",
      ...options.env,
    };
    const result = await spawnGit(args, {
      cwd: options.cwd ?? this.home,
      env,
      isolatedEnv: true,
      input: options.input,
    });
    return { code: result.exitCode, stdout: result.stdout.toString("utf8"), stderr: result.stderr };
  }

  /** Runs git and fails with its output unless it exits 0. */
  async ok(
    args: string[],
    options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
  ): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0)
      throw new Error(`git ${args.join(" ")} exited ${result.code}\n${result.stderr}${result.stdout}`);
    return result.stdout.trim();
  }

  /** A fresh directory under this client's HOME. */
  dir(name: string): string {
    return path.join(this.home, name);
  }

  /** Writes files into a work tree and commits them; returns the new commit id. */
  async commit(cwd: string, files: Record<string, string>, message: string): Promise<string> {
    for (const [file, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
      fs.writeFileSync(path.join(cwd, file), content);
    }
    await this.ok(["add", "-A"], { cwd });
    await this.ok(["commit", "-q", "-m", message], { cwd });
    return this.ok(["rev-parse", "HEAD"], { cwd });
  }

  cleanup(): void {
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

/** A remote URL carrying credentials the way git users write them (HTTP Basic, token as password). */
export function withToken(remote: string, token: string): string {
  const url = new URL(remote);
  url.username = "git";
  url.password = token;
  return url.toString();
}
