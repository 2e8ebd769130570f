import { inheritedEnvironment } from "@/server/config";
import { processLauncher } from "@/server/processes";
import type { Socket } from "node:net";
import type { Duplex, Writable } from "node:stream";

export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0]} failed (${exitCode}): ${stderr.trim()}`);
    this.name = "GitCommandError";
  }
}

export interface GitSpawnOptions {
  gitdir?: string;
  cwd?: string;
  input?: string | Uint8Array;
  env?: Record<string, string | undefined>;
  /** Start from `env` alone instead of this process's environment (isolated clients in tests). */
  isolatedEnv?: boolean;
  /** Aborting kills git's whole process group (a fetch runs index-pack as a child); the call rejects. */
  signal?: AbortSignal;
}

export interface GitOutput {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

function gitEnv(options: GitSpawnOptions): NodeJS.ProcessEnv {
  return {
    ...(options.isolatedEnv ? {} : inheritedEnvironment()),
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    ...options.env,
  } as NodeJS.ProcessEnv;
}

const withGitdir = (args: string[], options: GitSpawnOptions) =>
  options.gitdir ? ["--git-dir", options.gitdir, ...args] : args;

/**
 * git is started by a launcher of the server's own (server/processes/launcher.ts): forked from the
 * server's thread, each call cost it what the server maps (~15 ms of CPU at 256 MB resident, 30 ms
 * at 1 GB): a test's 1,349 requests of the authorization matrix spent 26% of their thread's time
 * forking git for output collected whole, and 19% more for streams. Output collected whole comes
 * back over the launcher's channel; a stream's stdout is a socket git writes to directly.
 */
const gitLauncher = processLauncher({ name: "git" });

const gitStep = (args: string[], options: GitSpawnOptions, group: boolean) => ({
  command: "git",
  args: withGitdir(args, options),
  cwd: options.cwd,
  env: gitEnv(options),
  input: options.input,
  group,
});

/** git collected whole: its stdout and exit code, and whether `signal` killed it (its whole process group: a fetch runs index-pack as a child). */
async function collectGit(
  args: string[],
  options: GitSpawnOptions,
  onStderr: (chunk: Buffer) => void,
): Promise<{ exitCode: number; stdout: Buffer; aborted: boolean }> {
  const { signal } = options;
  const out: Buffer[] = [];
  const launched = gitLauncher.launch([gitStep(args, options, Boolean(signal))], {
    relayStdout: true,
    onOutput: (chunk, stream) => (stream === "stdout" ? out.push(chunk) : onStderr(chunk)),
  });
  let aborted = false;
  const kill = () => {
    aborted = true;
    launched.kill("SIGKILL");
  };
  if (signal?.aborted) kill();
  signal?.addEventListener("abort", kill, { once: true });
  try {
    const [exit] = await launched.exited;
    if (exit.error) throw new Error(`git could not start: ${exit.error}`);
    return { exitCode: exit.code ?? -1, stdout: Buffer.concat(out), aborted };
  } finally {
    signal?.removeEventListener("abort", kill);
  }
}

/**
 * Runs the `git` binary and collects its output whatever the exit code. Aborting kills git's whole
 * process group (a fetch runs index-pack as a child); the call then rejects with the signal's reason.
 */
export async function spawnGit(args: string[], options: GitSpawnOptions = {}): Promise<GitOutput> {
  if (options.signal?.aborted) throw options.signal.reason as Error;
  const err: Buffer[] = [];
  const { exitCode, stdout, aborted } = await collectGit(args, options, (chunk) => err.push(chunk));
  if (aborted) throw options.signal!.reason as Error;
  return { exitCode, stdout, stderr: Buffer.concat(err).toString("utf8") };
}

/** Runs git; rejects with GitCommandError on a non-zero exit unless `allowExit` lists it. */
export async function runGitBytes(
  args: string[],
  options: GitSpawnOptions & { allowExit?: number[] } = {},
): Promise<{ stdout: Buffer; exitCode: number }> {
  const result = await spawnGit(args, options);
  if (result.exitCode !== 0 && !options.allowExit?.includes(result.exitCode))
    throw new GitCommandError(args, result.exitCode, result.stderr);
  return { stdout: result.stdout, exitCode: result.exitCode };
}

/** `runGitBytes` with stdout as UTF-8 text. */
export async function runGit(
  args: string[],
  options: GitSpawnOptions & { allowExit?: number[] } = {},
): Promise<{ stdout: string; exitCode: number }> {
  const { stdout, exitCode } = await runGitBytes(args, options);
  return { stdout: stdout.toString("utf8"), exitCode };
}

export interface WatchedGitOptions extends GitSpawnOptions {
  /** Each line git writes to stderr (progress lines end in \r; both count as line ends). */
  onStderrLine?: (line: string) => void;
}

/** Keeps the last 64 KiB of a process's stderr. */
const STDERR_KEPT = 65_536;
const keepTail = (kept: string, chunk: Buffer) => (kept + chunk.toString("utf8")).slice(-STDERR_KEPT);

/**
 * Runs a long git transfer (fetch, push), reporting stderr as it comes; resolves with the exit code
 * like spawnGit (stderr keeps its last 64 KiB). `aborted` says the signal stopped it.
 */
export async function spawnGitWatched(
  args: string[],
  options: WatchedGitOptions = {},
): Promise<GitOutput & { aborted: boolean }> {
  let stderr = "";
  let partial = "";
  const result = await collectGit(args, options, (chunk) => {
    const lines = (partial + chunk.toString("utf8")).split(/[\r\n]/);
    partial = lines.pop() ?? "";
    for (const line of lines) if (line) options.onStderrLine?.(line);
    stderr = keepTail(stderr, chunk);
  });
  if (partial) options.onStderrLine?.(partial);
  return { ...result, stderr };
}

export interface GitStreamOptions extends Omit<GitSpawnOptions, "input" | "signal"> {
  /** git reads its stdin from `stdin` (else from nothing). */
  writable?: boolean;
  /** git's fd 3 is `channel` (receive-pack's hooks inherit it). */
  channel?: boolean;
}

export interface GitStream {
  /** git's stdout, read as git writes it (never collected whole): a reader that stops holds git in write. Handed over paused: iterate it, or resume() it after a 'data' listener. */
  stdout: Socket & AsyncIterable<Buffer>;
  /** git's stdin when `writable`: write, then end() it. */
  stdin: Writable | null;
  channel: Duplex | null;
  /** Resolves when git exits, with its exit code (-1 when a signal ended it) and the last 64 KiB of stderr. */
  exit: Promise<{ exitCode: number; signal: NodeJS.Signals | null; stderr: string }>;
  /** Ends git's whole process group, unless its output was read to the end (a caller that stopped reading, or ran out of time). */
  kill(signal?: NodeJS.Signals): void;
}

/** Starts git in its own process group with its stdout as a stream: for output too large to hold (archives, diffs, search, the HTTP transport). */
export async function streamGit(args: string[], options: GitStreamOptions = {}): Promise<GitStream> {
  let stderr = "";
  const launched = gitLauncher.connect(gitStep(args, options, true), {
    writable: options.writable,
    channel: options.channel,
    onStderr: (chunk) => (stderr = keepTail(stderr, chunk)),
  });
  const exit = launched.exited.then(([end]) => {
    if (end.error) throw new Error(`git could not start: ${end.error}`);
    return { exitCode: end.code ?? -1, signal: end.signal, stderr };
  });
  exit.catch(() => undefined); // a caller that only kills still gets its rejection when it awaits
  let sockets: [Socket, Socket | null, Socket | null];
  try {
    sockets = await Promise.all([launched.stdout, launched.stdin, launched.channel]);
  } catch (error) {
    launched.kill("SIGKILL");
    for (const socket of [launched.stdout, launched.stdin, launched.channel])
      void socket?.then(
        (connected) => connected.destroy(),
        () => undefined,
      );
    throw error;
  }
  const [stdout, stdin, channel] = sockets;
  stdout.end(); // only read: its other half closes once git's output ends
  stdin?.resume(); // only written: read to see git's end of it close
  const kill = (signal: NodeJS.Signals = "SIGKILL") => {
    if (stdout.readableEnded) return;
    launched.kill(signal);
    stdout.resume(); // a reader still iterating sees the end; without one, what is left is dropped and the socket closes
    stdin?.destroy();
    channel?.destroy();
  };
  return { stdout, stdin, channel, exit, kill };
}
