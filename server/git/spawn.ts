import { spawn } from "node:child_process";

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

/**
 * Runs the `git` binary (~7-10 ms per spawn inside next-server: keep it off hot paths).
 * Resolves with stdout; rejects with GitCommandError on a non-zero exit unless `allowExit` lists it.
 */
export function runGit(
  args: string[],
  options: { gitdir?: string; input?: string | Uint8Array; allowExit?: number[]; env?: Record<string, string> } = {},
): Promise<{ stdout: string; exitCode: number }> {
  const fullArgs = options.gitdir ? ["--git-dir", options.gitdir, ...args] : args;
  return new Promise((resolve, reject) => {
    const child = spawn("git", fullArgs, {
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const exitCode = code ?? -1;
      if (exitCode === 0 || options.allowExit?.includes(exitCode)) {
        resolve({ stdout: Buffer.concat(out).toString("utf8"), exitCode });
      } else {
        reject(new GitCommandError(args, code, Buffer.concat(err).toString("utf8")));
      }
    });
    child.stdin.end(options.input);
  });
}
