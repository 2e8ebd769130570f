import { config } from "@/server/config";
import type { Repo } from "@/server/git";
import type { SandboxPolicy } from "@/server/policy";
import { runInCheckout, stepFailure, type IsolatedOutcome } from "@/server/runners";
import type { EvalRunResult } from "./types";

export const sandboxConfigured = () => config.sandboxEnabled;

const OUTPUT_TAIL_CHARS = 4000;

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
 * Runs `run.command` with `sh -c` in a throwaway checkout of `commit`, in the runners' sandbox
 * (bubblewrap, no network) and killed with its whole process tree after `run.timeoutMs`. The
 * sandbox binding of command deployments and of the evaluator below; callers check
 * `sandboxConfigured()` first.
 */
export async function runInSandbox(repo: Repo, commit: string, run: SandboxRun): Promise<SandboxOutcome> {
  let output = "";
  const outcome = await runInCheckout(repo, commit, {
    command: run.command,
    timeoutMs: run.timeoutMs,
    memoryMb: run.memoryMb,
    env: run.env,
    onData: (chunk) => (output = (output + chunk.toString("utf8")).slice(-run.tailChars)),
  });
  return { code: outcome.code, signal: outcome.signal, output, timedOut: outcome.timedOut };
}

/** Why a sandbox run did not succeed, in words; null when it exited 0 in time. */
export const sandboxFailure = (result: SandboxOutcome, timeoutMs: number): string | null =>
  stepFailure({ ...result, cancelled: false } satisfies IsolatedOutcome, timeoutMs);

/**
 * Runs the policy command in a throwaway checkout of the tip, isolated and bounded in time and
 * memory. Exit 0 passes; another exit, a timeout or a kill fails, with the output's tail as finding.
 */
export async function runSandboxEvaluator(
  repo: Repo,
  tip: string,
  policy: SandboxPolicy,
): Promise<Omit<EvalRunResult, "evaluator" | "durationMs">> {
  const result = await runInSandbox(repo, tip, {
    command: policy.command,
    timeoutMs: policy.timeoutMs,
    memoryMb: policy.memoryMb,
    tailChars: OUTPUT_TAIL_CHARS,
  });
  const why = sandboxFailure(result, policy.timeoutMs);
  if (why === null) return { status: "passed", findings: [] };
  const tail = result.output.trim();
  return {
    status: "failed",
    findings: [{ message: `Sandbox command ${why}` }, ...(tail ? [{ rule: "output", message: tail }] : [])],
  };
}
