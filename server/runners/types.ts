import type { Repo } from "@/server/git";
import type { SandboxPolicy } from "@/server/policy";

export interface RunFinding {
  message: string;
  file?: string;
  line?: number;
  rule?: string;
}

/** One run of a project's sandbox evaluator on one tree. */
export interface RunSpec {
  projectId: string;
  /** The project repository holding the commit's objects. */
  repo: Repo;
  /** The tree to test. */
  commit: string;
  sandbox: SandboxPolicy;
  /**
   * The file the run writes setup and command output to, in order (stdout and stderr interleaved),
   * created or truncated at the start. Past RUNNER_LOG_MB it stops growing (a line says so) and at
   * the end it is rewritten once as a line saying how much was cut, then the output's tail: a
   * reader following byte offsets sees the file shrink then, and starts over.
   */
  logPath: string;
  /** Aborting cancels the run: its whole process tree dies at once. */
  signal?: AbortSignal;
  /** Called as the log grows (its size in bytes), for live streaming. */
  onOutput?: (logBytes: number) => void;
}

export interface RunResult {
  /** error: could not run at all (no checkout, no sandbox); a failed setup is `failed`. */
  status: "passed" | "failed" | "error" | "cancelled";
  /** The last command's (or the failed setup's) exit code; null when killed or never started. */
  exitCode: number | null;
  timedOut: boolean;
  /** Times the command ran (1 + retries used; 0 when setup failed). */
  attempts: number;
  /** Failed, then passed on a retry. */
  flaky: boolean;
  /** With `sandbox.cache`: the entry's key, and whether it was there (then setup did not run). */
  cache: { key: string; hit: boolean } | null;
  findings: RunFinding[];
  logBytes: number;
  durationMs: number;
}
