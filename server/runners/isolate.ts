import { BWRAP, bwrapOptions, SANDBOX_HOME, sandboxCommand } from "./bwrap";
import type { RunLayout } from "./layout";
import { launch, type Launched } from "./launcher";
import { runsAsRoot } from "./layout";
import { createLimits } from "./limits";

export interface IsolatedCommand {
  layout: RunLayout;
  command: string;
  /** Only setup gets the host's network. */
  network: boolean;
  memoryMb: number;
  timeoutMs: number;
  /** Added to the command's otherwise bare environment (a deployment's secrets). */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Each chunk of output (stdout and stderr of the sandbox, in order), and bwrap's own complaints. */
  onData: (chunk: Buffer) => void;
}

export interface IsolatedOutcome {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The sandbox itself failed to start (bwrap, the limits, the uid change), in its words. */
  sandboxError?: string;
}

/** The sandbox's whole environment: nothing of the server's (credentials, keys) reaches it. */
function sandboxEnv(extra: Record<string, string> | undefined): Record<string, string> {
  return {
    ...extra,
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: SANDBOX_HOME,
    USER: "runner",
    LANG: "C.UTF-8",
    TMPDIR: "/tmp",
    CI: "1",
  };
}

/**
 * Runs one command in the run's sandbox (bwrap, see bwrapOptions) under its memory and process limits,
 * as the run's own host uid. A timeout or an abort kills bwrap, and with it (the namespace's
 * PID 1 gone) every process the command started, whatever session or process group they moved to.
 */
export async function runIsolated(run: IsolatedCommand): Promise<IsolatedOutcome> {
  if (run.signal?.aborted) return { code: null, signal: null, timedOut: false, cancelled: true };
  const limits = await createLimits(run.memoryMb);
  // Aborted while its cgroups were made: the listener below would never hear it.
  if (run.signal?.aborted) {
    limits.release().catch(() => undefined);
    return { code: null, signal: null, timedOut: false, cancelled: true };
  }
  const { layout } = run;
  const drop = runsAsRoot()
    ? ["setpriv", `--reuid=${layout.uid}`, `--regid=${layout.gid}`, "--clear-groups", "--"]
    : [];
  const mounts = {
    src: layout.src,
    home: layout.home,
    passwd: layout.passwd,
    group: layout.group,
    network: run.network,
  };
  const [bin, ...args] = [...limits.prefix, ...drop, BWRAP, "--args", "3", ...sandboxCommand(run.command)];
  let timedOut = false;
  let cancelled = false;
  // The command's stderr is its stdout (sandboxCommand); what comes on this stderr is the sandbox's own.
  let stderr = "";
  const onAbort = () => {
    cancelled = true;
    sandbox?.kill();
  };
  let sandbox: Launched | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    sandbox = launch(
      [
        {
          command: bin,
          args,
          cwd: "/",
          env: sandboxEnv(run.env),
          fd3: bwrapOptions(mounts)
            .map((o) => `${o}\0`)
            .join(""),
        },
      ],
      {
        relayStdout: true,
        onOutput: (chunk, stream) => {
          if (stream === "stderr") stderr += chunk.toString("utf8");
          run.onData(chunk);
        },
      },
    );
    timer = setTimeout(() => {
      timedOut = true;
      sandbox?.kill();
    }, run.timeoutMs);
    run.signal?.addEventListener("abort", onAbort, { once: true });
    const [exit] = await sandbox.exited;
    if (exit.error) throw new Error(`The sandbox could not start: ${exit.error}`);
    const { code, signal } = exit;
    const sandboxError =
      code !== 0 && !timedOut && !cancelled && stderr.trim() ? stderr.trim().slice(0, 2000) : undefined;
    return { code, signal, timedOut, cancelled, ...(sandboxError ? { sandboxError } : {}) };
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener("abort", onAbort);
    // The cgroups empty as the kernel reaps the namespace, just after bwrap ends: their removal
    // need not hold the result.
    limits.release().catch(() => undefined);
  }
}
