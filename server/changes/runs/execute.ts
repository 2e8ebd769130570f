import fs from "node:fs";
import path from "node:path";
import type { EvalRun } from "@/server/generated/prisma/client";
import { openProjectRepo } from "@/server/git";
import { loadPolicy, type SandboxPolicy } from "@/server/policy";
import { runBackgroundEvaluator, type BackgroundRunSpec } from "@/server/evaluators";
import { executeRun } from "@/server/runners";
import { buildChangeDiff } from "../diff/change-diff";
import { appendRunLog } from "./log";
import type { RunEnd } from "./store";

export interface RunContext {
  logPath: string;
  signal: AbortSignal;
  /** The log's size so far, for the lease renewals. */
  onOutput: (logBytes: number) => void;
}

/** Runs one taken run to its end (a verdict, or `error` when it could not run). */
export async function executeEvalRun(run: EvalRun, projectPath: string, context: RunContext): Promise<RunEnd> {
  const repo = openProjectRepo(run.projectId!);
  if (run.evaluator === "sandbox") {
    fs.mkdirSync(path.dirname(context.logPath), { recursive: true });
    const result = await executeRun({
      projectId: run.projectId!,
      repo,
      commit: run.tipSha,
      sandbox: run.settings as unknown as SandboxPolicy,
      logPath: context.logPath,
      signal: context.signal,
      onOutput: context.onOutput,
    });
    const { status, attempts, cache, ...rest } = result;
    return { ...rest, status: status === "cancelled" ? "error" : status, commandAttempts: attempts, cache };
  }
  // Webhook and llm judge the diff against the evaluated base, under the policy in force there.
  const spec = { evaluator: run.evaluator, settings: run.settings } as BackgroundRunSpec;
  const diff = await buildChangeDiff(repo, run.baseSha, run.tipSha);
  const policy = await loadPolicy(repo, run.baseSha);
  const subject = { project: { id: run.projectId!, path: projectPath }, changeId: run.changeId, repo, diff, policy };
  const result = await runBackgroundEvaluator(subject, spec, context.signal);
  const logBytes = appendRunLog(
    context.logPath,
    `${run.evaluator}: ${result.status}\n${result.findings.map((f) => `${f.message}\n`).join("")}`,
  );
  context.onOutput(logBytes);
  return { ...result, logBytes };
}
