import { inheritedEnvironment } from "@/server/config";
import { processLauncher } from "@/server/processes";
import { spawn, type ChildProcess } from "node:child_process";

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
 * git collected whole is started by a launcher of the server's own (server/processes/launcher.ts):
 * forked from the server's thread, each call cost it what the server maps (~15 ms of CPU at 256 MB
 * resident, 30 ms at 1 GB): a test's 1,349 requests of the authorization matrix spent 26% of their
 * thread's time forking git for output collected whole. The streams (streamGit, spawnGitWatched, the
 * HTTP transport) still fork here: the launcher's relay does not slow git for a slow reader.
 */
const gitLauncher = processLauncher({ name: "git" });

/**
 * Runs the `git` binary and collects its output whatever the exit code. Aborting kills git's whole
 * process group (a fetch runs index-pack as a child); the call then rejects with the signal's reason.
 */
export function spawnGit(args: string[], options: GitSpawnOptions = {}): Promise<GitOutput> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const launched = gitLauncher.launch(
    [
      {
        command: "git",
        args: withGitdir(args, options),
        cwd: options.cwd,
        env: gitEnv(options),
        input: options.input,
        group: Boolean(signal),
      },
    ],
    { relayStdout: true, onOutput: (chunk, stream) => (stream === "stdout" ? out : err).push(chunk) },
  );
  let killed = false;
  const kill = () => {
    killed = true;
    launched.kill("SIGKILL");
  };
  signal?.addEventListener("abort", kill, { once: true });
  return launched.exited
    .finally(() => signal?.removeEventListener("abort", kill))
    .then(([exit]) => {
      if (killed) throw signal!.reason as Error;
      if (exit.error) throw new Error(`git could not start: ${exit.error}`);
      return { exitCode: exit.code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") };
    });
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

/**
 * Kills the whole process group of a detached `child` when `signal` aborts (now, if it already
 * has). `release()` stops listening once the child is gone and tells whether the abort killed it.
 */
function killGroupOnAbort(child: ChildProcess, signal: AbortSignal | undefined): { release: () => boolean } {
  let aborted = false;
  const kill = () => {
    aborted = true;
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  if (signal?.aborted) kill();
  signal?.addEventListener("abort", kill, { once: true });
  return {
    release: () => {
      signal?.removeEventListener("abort", kill);
      return aborted;
    },
  };
}

/**
 * Runs a long git transfer (fetch, push) in its own process group, reporting stderr as it comes;
 * resolves with the exit code like spawnGit (stderr keeps its last 64 KiB). `aborted` says the
 * signal stopped it.
 */
export function spawnGitWatched(
  args: string[],
  options: WatchedGitOptions = {},
): Promise<GitOutput & { aborted: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", withGitdir(args, options), {
      cwd: options.cwd,
      env: gitEnv(options),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killed = killGroupOnAbort(child, options.signal);
    const out: Buffer[] = [];
    let stderr = "";
    let partial = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      const text = partial + chunk.toString("utf8");
      const lines = text.split(/[\r\n]/);
      partial = lines.pop() ?? "";
      for (const line of lines) if (line) options.onStderrLine?.(line);
      stderr = (stderr + chunk.toString("utf8")).slice(-65_536);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const aborted = killed.release();
      if (partial) options.onStderrLine?.(partial);
      resolve({ exitCode: code ?? -1, stdout: Buffer.concat(out), stderr, aborted });
    });
  });
}

export interface GitStream {
  /** git's stdout, read as it is written (never collected whole). */
  stdout: NodeJS.ReadableStream & AsyncIterable<Buffer>;
  /** Resolves when git exits, with its exit code and the last 64 KiB of stderr. */
  exit: Promise<{ exitCode: number; stderr: string }>;
  /** Ends git's whole process group (a caller that stopped reading, or ran out of time). */
  kill(): void;
}

/** Starts git in its own process group with stdout as a stream: for output too large to hold (archives, diffs, search). */
export function streamGit(args: string[], options: GitSpawnOptions = {}): GitStream {
  const child = spawn("git", withGitdir(args, options), {
    cwd: options.cwd,
    env: gitEnv(options),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-65_536)));
  const exit = new Promise<{ exitCode: number; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ exitCode: code ?? -1, stderr }));
  });
  exit.catch(() => undefined); // a caller that only kills still gets its rejection when it awaits
  const kill = () => {
    try {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  return { stdout: child.stdout, exit, kill };
}
