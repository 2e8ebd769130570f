import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { joinLauncherGroup } from "./cgroups";

/**
 * Every process a run starts is started by the runners' launcher (launcher-process.mjs), a small
 * process of the server's own: a fork costs what the forking process maps, ~14 ms of the server's
 * thread at 300 MB against ~1 ms there, and fifty runs starting together held the server's requests
 * for half-second stretches. The launcher starts with the first launch and ends after LAUNCHER_IDLE_MS
 * without one; when the server ends, so does it, killing what it started.
 */
export interface LaunchStep {
  command: string;
  args: string[];
  cwd?: string;
  /** The whole environment; the server's own when absent. */
  env?: Record<string, string | undefined>;
  uid?: number;
  gid?: number;
  /** Written to the process's fd 3, which is then closed (bwrap's `--args 3`). */
  fd3?: string;
}

export interface StepExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The process could not be started, in Node's words. */
  error?: string;
}

export interface Launched {
  /** Each step's end, in the steps' order, once all have ended. */
  exited: Promise<StepExit[]>;
  kill(signal?: NodeJS.Signals): void;
}

export interface LaunchOptions {
  /** Each step's stdout feeds the next one's stdin; the last one's is relayed when true, else dropped. */
  relayStdout?: boolean;
  /** Every chunk of the last step's stdout (if relayed) and of every step's stderr, in order. */
  onOutput?: (chunk: Buffer, stream: "stdout" | "stderr", step: number) => void;
}

const LAUNCHER_IDLE_MS = 30_000;

const LAUNCHER_LOST = "LAUNCHER_LOST";
/** Whether `error` is the loss of the launcher (it died under its launches), not of what it ran. */
export const launcherLost = (error: unknown): boolean => (error as { code?: string })?.code === LAUNCHER_LOST;
/** A small heap: the launcher holds only what it relays. */
const LAUNCHER_NODE_OPTIONS = ["--max-old-space-size=32", "--max-semi-space-size=1"];

type FromLauncher =
  | { type: "output"; id: number; step: number; stream: "stdout" | "stderr"; data: Uint8Array }
  | { type: "exit"; id: number; exits: StepExit[] };

interface Pending {
  onOutput?: LaunchOptions["onOutput"];
  resolve(exits: StepExit[]): void;
  reject(error: Error): void;
}

/** One launcher process and the launches it has not finished. */
class Launcher {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly onGone: (launcher: Launcher) => void) {
    const file = path.join(/*turbopackIgnore: true*/ process.cwd(), "server", "runners", "launcher-process.mjs");
    this.child = fork(file, [], {
      execArgv: LAUNCHER_NODE_OPTIONS,
      serialization: "advanced",
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    if (this.child.pid !== undefined) joinLauncherGroup(this.child.pid);
    this.child.on("message", (message: FromLauncher) => this.receive(message));
    this.child.on("error", (error) => this.lost(`failed: ${error.message}`));
    this.child.on("exit", (code, signal) => this.lost(`ended (${signal ?? code})`));
  }

  get usable(): boolean {
    return this.child.connected;
  }

  launch(id: number, steps: LaunchStep[], options: LaunchOptions): Launched {
    const exited = new Promise<StepExit[]>((resolve, reject) => {
      this.pending.set(id, { onOutput: options.onOutput, resolve, reject });
    });
    this.settle();
    this.child.send({ type: "start", id, steps, relayStdout: options.relayStdout ?? false });
    return {
      exited,
      kill: (signal = "SIGKILL") => {
        if (this.pending.has(id) && this.child.connected) this.child.send({ type: "kill", id, signal });
      },
    };
  }

  private receive(message: FromLauncher): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === "output") {
      const data = Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength);
      pending.onOutput?.(data, message.stream, message.step);
      return;
    }
    this.pending.delete(message.id);
    pending.resolve(message.exits);
    this.settle();
  }

  private lost(why: string): void {
    this.onGone(this);
    const failed = [...this.pending.values()];
    this.pending.clear();
    this.settle();
    for (const pending of failed)
      pending.reject(Object.assign(new Error(`The runners' launcher ${why}`), { code: LAUNCHER_LOST }));
  }

  /** Holds the server's event loop open only while launches are pending; ends when idle. */
  private settle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (!this.child.connected) return;
    if (this.pending.size > 0) {
      this.child.ref();
      this.child.channel?.ref();
      return;
    }
    this.child.unref();
    this.child.channel?.unref();
    this.idleTimer = setTimeout(() => {
      this.onGone(this);
      this.child.disconnect(); // the launcher exits when its channel closes
    }, LAUNCHER_IDLE_MS).unref();
  }
}

/** One per server process: Next.js may load this module in several chunks, each its own copy. */
const state: { launcher: Launcher | null; nextId: number } = ((
  globalThis as { __svcRunnerLauncher?: { launcher: Launcher | null; nextId: number } }
).__svcRunnerLauncher ??= { launcher: null, nextId: 1 });

const forget = (launcher: Launcher) => {
  if (state.launcher === launcher) state.launcher = null;
};

/** Starts `steps` in the launcher (see LaunchOptions); `exited` rejects only if the launcher itself fails. */
export function launch(steps: LaunchStep[], options: LaunchOptions = {}): Launched {
  if (!state.launcher?.usable) state.launcher = new Launcher(forget);
  return state.launcher.launch(state.nextId++, steps, options);
}

/** Runs one tool (`rm`, `cp -al`, ...) in the launcher; throws with its stderr unless it exits 0. */
export async function runTool(command: string, args: string[]): Promise<void> {
  let stderr = "";
  const [exit] = await launch([{ command, args }], { onOutput: (chunk) => (stderr += chunk.toString("utf8")) }).exited;
  if (exit.code !== 0)
    throw new Error(`${command} failed (${exit.error ?? exit.signal ?? exit.code}): ${stderr.trim().slice(0, 500)}`);
}
