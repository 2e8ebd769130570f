import { runInSandbox, sandboxConfigured, sandboxFailure } from "@/server/evaluators";
import { openProjectRepo } from "@/server/git";
import { DEPLOY_COMMAND_MEMORY_MB, DEPLOY_LOG_TAIL_BYTES } from "@/server/limits";
import type { ProviderCall, ProviderResult } from "./types";

/**
 * Runs the entry's command in the evaluators' sandbox, in a checkout of the commit, with the named
 * secrets as environment variables; exit 0 within timeoutMs succeeds, the output's end is the log.
 * A command cannot be made idempotent from outside, so a call repeated after an interruption
 * fails instead of running it a second time.
 */
export async function runCommand(call: ProviderCall & { entry: { provider: "command" } }): Promise<ProviderResult> {
  const { entry } = call;
  if (!sandboxConfigured())
    return {
      ok: false,
      log: "",
      error: "The command provider needs the sandbox binding (SANDBOX_ENABLED=1), which this instance does not have",
    };
  if (call.call > 1)
    return {
      ok: false,
      log: "",
      error: "The deployment was interrupted while its command ran; it was not run again (retry to run it)",
    };
  const result = await runInSandbox(openProjectRepo(call.project.id), call.deployment.commit, {
    command: entry.command,
    timeoutMs: entry.timeoutMs,
    memoryMb: DEPLOY_COMMAND_MEMORY_MB,
    env: call.secrets,
    tailChars: DEPLOY_LOG_TAIL_BYTES,
  });
  const why = sandboxFailure(result, entry.timeoutMs);
  return why === null
    ? { ok: true, log: result.output }
    : { ok: false, log: result.output, error: `The deploy command ${why}` };
}
