import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { config, inheritedEnvironment } from "@/server/config";
import type { Repo } from "@/server/git";
import type { SandboxPolicy } from "@/server/policy";
import type { EvalRunResult } from "./types";

export const sandboxConfigured = () => config.sandboxEnabled;

const OUTPUT_TAIL_CHARS = 4000;
const NOBODY = 65534;

/** Writes the files of `commit` into `dir` (git archive piped into tar). */
function checkout(repo: Repo, commit: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn("git", ["--git-dir", repo.gitdir, "archive", "--format=tar", commit], { stdio: ["ignore", "pipe", "pipe"] });
    const tar = spawn("tar", ["-x", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
    archive.stdout.pipe(tar.stdin);
    let failed = false;
    const fail = (error: Error) => {
      if (!failed) reject(error);
      failed = true;
    };
    archive.on("error", fail);
    tar.on("error", fail);
    archive.on("close", (code) => code !== 0 && fail(new Error(`git archive failed (${code})`)));
    tar.on("close", (code) => (code === 0 ? !failed && resolve() : fail(new Error(`tar failed (${code})`))));
  });
}

/**
 * The isolation wrapper: a private network namespace (no network), a data-segment limit (heap
 * memory; V8's address-space reservations are not counted, so Node tools run) and, as root, an
 * unprivileged uid. A non-root server maps itself to root inside a user namespace instead.
 */
function isolatedCommand(command: string, memoryMb: number): string[] {
  const limit = ["prlimit", `--data=${memoryMb * 1024 * 1024}`, "--core=0", "--"];
  if (process.getuid?.() === 0) {
    return ["unshare", "--net", "--", ...limit, "setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", "sh", "-c", command];
  }
  return ["unshare", "--user", "--map-root-user", "--net", "--", ...limit, "sh", "-c", command];
}

function chownTree(dir: string, uid: number): void {
  fs.chownSync(dir, uid, uid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(full, uid);
    else fs.lchownSync(full, uid, uid);
  }
}

export interface SandboxRun {
  command: string;
  timeoutMs: number;
  memoryMb: number;
  /** Added to the command's bare environment (a deployment's secrets). */
  env?: Record<string, string>;
  /** How much of the end of the combined output is kept. */
  tailChars: number;
}

export interface SandboxOutcome {
  code: number | null;
  signal: string | null;
  output: string;
  timedOut: boolean;
}

/**
 * Runs `run.command` with `sh -c` in a throwaway checkout of `commit`, isolated (see
 * isolatedCommand) and killed after `run.timeoutMs`. The sandbox binding of evaluators and of
 * command deployments; callers check `sandboxConfigured()` first.
 */
export async function runInSandbox(repo: Repo, commit: string, run: SandboxRun): Promise<SandboxOutcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-sandbox-"));
  try {
    const work = path.join(dir, "src");
    fs.mkdirSync(work);
    await checkout(repo, commit, work);
    if (process.getuid?.() === 0) chownTree(dir, NOBODY);
    const [bin, ...args] = isolatedCommand(run.command, run.memoryMb);
    return await new Promise<SandboxOutcome>((resolve, reject) => {
      const child = spawn(bin, args, {
        cwd: work,
        detached: true,
        // Nothing of the server's environment (credentials, keys) reaches the command.
        env: { ...run.env, PATH: inheritedEnvironment().PATH ?? "/usr/bin:/bin", HOME: dir, LANG: "C.UTF-8", CI: "1" } as unknown as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-run.tailChars));
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, run.timeoutMs);
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, output, timedOut });
      });
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Why a sandbox run did not succeed, in words; null when it exited 0 in time. */
export function sandboxFailure(result: SandboxOutcome, timeoutMs: number): string | null {
  if (result.code === 0 && !result.timedOut) return null;
  return result.timedOut ? `timed out after ${timeoutMs} ms` : result.signal ? `was killed (${result.signal})` : `exited with ${result.code}`;
}

/**
 * Runs the policy command in a throwaway checkout of the tip, isolated and bounded in time and
 * memory. Exit 0 passes; another exit, a timeout or a kill fails, with the output's tail as finding.
 */
export async function runSandboxEvaluator(repo: Repo, tip: string, policy: SandboxPolicy): Promise<Omit<EvalRunResult, "evaluator" | "durationMs">> {
  const result = await runInSandbox(repo, tip, { command: policy.command, timeoutMs: policy.timeoutMs, memoryMb: policy.memoryMb, tailChars: OUTPUT_TAIL_CHARS });
  const why = sandboxFailure(result, policy.timeoutMs);
  if (why === null) return { status: "passed", findings: [] };
  const tail = result.output.trim();
  return { status: "failed", findings: [{ message: `Sandbox command ${why}` }, ...(tail ? [{ rule: "output", message: tail }] : [])] };
}
