import { pipeline, Readable, Transform, type Duplex } from "node:stream";
import zlib from "node:zlib";
import { runGit, streamGit, type GitStream } from "@/server/git";
import { GitHttpError } from "./errors";
import { FLUSH_PKT, pktLine } from "./pkt-line";
import type { GitService } from "./target";
import { log } from "@/server/log";

/**
 * The git side of smart HTTP: `git upload-pack` / `git receive-pack` in stateless-rpc mode, with
 * request and response bodies streamed through (never a whole pack in memory).
 */

const NO_CACHE = {
  "Cache-Control": "no-cache, max-age=0, must-revalidate",
  Pragma: "no-cache",
  Expires: "Fri, 01 Jan 1980 00:00:00 GMT",
};

const configArgs = (config: Record<string, string>) =>
  Object.entries(config).flatMap(([key, value]) => ["-c", `${key}=${value}`]);

export interface ServiceOptions {
  /** `-c key=value` settings for this run. */
  config: Record<string, string>;
  /** The client's Git-Protocol header, already checked (upload-pack only). */
  gitProtocol?: string;
  /** Extra response headers (rate limit). */
  headers: Record<string, string>;
}

/** `Git-Protocol: version=2` (colon-separated key=value pairs); anything else is ignored. */
export function acceptedGitProtocol(header: string | null): string | undefined {
  if (!header || header.length > 256 || !/^[A-Za-z0-9=:._-]+$/.test(header)) return undefined;
  return header;
}

const wantsV2 = (gitProtocol: string | undefined) => gitProtocol?.split(":").includes("version=2") ?? false;

/** Starts `git <service> --stateless-rpc`; its failures are logged (not one we stopped with SIGTERM: a client gone). */
async function startService(
  service: GitService,
  gitdir: string,
  args: string[],
  options: ServiceOptions,
  stdio: { writable?: boolean; channel?: boolean } = {},
): Promise<GitStream> {
  const git = await streamGit(
    [...configArgs(options.config), service.slice("git-".length), "--stateless-rpc", ...args, gitdir],
    { env: options.gitProtocol ? { GIT_PROTOCOL: options.gitProtocol } : {}, ...stdio },
  );
  git.exit.then(
    ({ exitCode, signal, stderr }) => {
      if (exitCode !== 0 && signal !== "SIGTERM")
        log().error(
          { service, exit: signal ?? exitCode, stderr: stderr.trim().slice(0, 2000) },
          "git-http: git exited with a failure",
        );
    },
    (error: Error) => log().error({ service, err: error }, "git-http: git could not start"),
  );
  return git;
}

/** git's stdout as a response body (after `preamble`); a client that goes away stops git. */
function responseBody(git: GitStream, preamble?: Buffer): ReadableStream<Uint8Array> {
  const { stdout } = git;
  // Once closed, errored or cancelled, the controller must not be touched again (it would throw).
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (preamble) controller.enqueue(preamble);
        stdout.on("data", (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) stdout.pause();
        });
        stdout.once("end", () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        stdout.once("error", (error) => {
          if (settled) return;
          settled = true;
          controller.error(error);
        });
      },
      pull() {
        stdout.resume();
      },
      cancel() {
        settled = true;
        git.kill("SIGTERM");
      },
    },
    { highWaterMark: 16 },
  );
}

// A protocol v2 advertisement lists capabilities, no refs: the same for every repository here (all
// SHA-1, none with upload-pack settings of its own), so it is asked of git once per process.
const v2Advertisements = new Map<string, Promise<string>>();

function v2Advertisement(gitdir: string, options: ServiceOptions): Promise<string> {
  const key = JSON.stringify([options.config, options.gitProtocol]);
  let advertisement = v2Advertisements.get(key);
  if (!advertisement) {
    const args = [...configArgs(options.config), "upload-pack", "--stateless-rpc", "--advertise-refs", gitdir];
    advertisement = runGit(args, { env: { GIT_PROTOCOL: options.gitProtocol! } }).then(({ stdout }) => stdout);
    advertisement.catch(() => v2Advertisements.delete(key));
    v2Advertisements.set(key, advertisement);
  }
  return advertisement;
}

/** GET info/refs?service=...: the ref advertisement (v0 with its `# service=` line, or v2 capabilities). */
export async function advertise(service: GitService, gitdir: string, options: ServiceOptions): Promise<Response> {
  const headers = { ...NO_CACHE, ...options.headers, "Content-Type": `application/x-${service}-advertisement` };
  // A v2 response starts with "version 2"; git http-backend leaves the service line out then too.
  if (service === "git-upload-pack" && wantsV2(options.gitProtocol)) {
    return new Response(await v2Advertisement(gitdir, options), { status: 200, headers });
  }
  const git = await startService(service, gitdir, ["--advertise-refs"], options);
  const preamble = Buffer.concat([pktLine(`# service=${service}\n`), FLUSH_PKT]);
  return new Response(responseBody(git, preamble), { status: 200, headers });
}

/** Fails the stream once more than `max` bytes went through (a cap on decompressed request bodies). */
function byteLimit(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) done(new Error(`request body over ${max} bytes`));
      else done(null, chunk);
    },
  });
}

const contentEncoding = (req: Request) => (req.headers.get("content-encoding") ?? "").trim().toLowerCase();
const isGzip = (encoding: string) => encoding === "gzip" || encoding === "x-gzip";

/** The request body, gunzipped when the client compressed it (git gzips large negotiations) and capped at `maxBytes`. */
function requestBody(req: Request, maxBytes: number, onError: (error: Error) => void): Readable {
  const raw = req.body ? Readable.fromWeb(req.body as never) : Readable.from([]);
  const limit = byteLimit(maxBytes);
  const stages = isGzip(contentEncoding(req)) ? [raw, zlib.createGunzip(), limit] : [raw, limit];
  pipeline(stages, (error) => error && onError(error));
  return limit;
}

export function assertSupportedEncoding(req: Request): void {
  const encoding = contentEncoding(req);
  if (encoding && !isGzip(encoding) && encoding !== "identity")
    throw new GitHttpError(415, `Content-Encoding ${encoding} is not supported`);
}

export interface RpcOptions extends ServiceOptions {
  maxRequestBytes: number;
  /** Receive-pack: serves the proc-receive hook channel (fd 3 of the child, inherited by its hooks). */
  onHookChannel?: (channel: Duplex) => Promise<void>;
}

/** POST git-upload-pack / git-receive-pack: request body in, result out, both streamed. */
export async function rpc(service: GitService, gitdir: string, req: Request, options: RpcOptions): Promise<Response> {
  const git = await startService(service, gitdir, [], options, {
    writable: true,
    channel: Boolean(options.onHookChannel),
  });
  const stdin = git.stdin!;
  // Not a pipeline into git's stdin: a failure of ours ends git's stdin (git reports it to the
  // client), and git gone early (EPIPE) stops the body but leaves git's answer to be read.
  let gitStopped = false;
  const body = requestBody(req, options.maxRequestBytes, (error) => {
    if (!gitStopped) log().error({ service, err: error }, "git-http: passing the request body to git failed");
    stdin.end();
  });
  stdin.on("error", () => {
    gitStopped = true;
    body.destroy();
  });
  body.pipe(stdin);
  if (options.onHookChannel) {
    const channel = git.channel!;
    // EPIPE/ECONNRESET when receive-pack went away: the conversation below sees the stream end.
    channel.on("error", () => {});
    options.onHookChannel(channel).catch((error) => {
      log().error({ err: error }, "git-http: the proc-receive channel failed");
      channel.destroy();
    });
  }
  return new Response(responseBody(git), {
    status: 200,
    headers: { ...NO_CACHE, ...options.headers, "Content-Type": `application/x-${service}-result` },
  });
}
