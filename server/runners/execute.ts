import type { RunResult, RunSpec } from "./types";

/** Runs setup (with network, cached) then the command (without network, retried) in a sandbox. */
export async function executeRun(spec: RunSpec): Promise<RunResult> {
  void spec;
  throw new Error("not implemented");
}
