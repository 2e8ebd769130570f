import { fork, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import path from "node:path";
import { rendezvous } from "./rendezvous";

/**
 * A launcher (launcher-process.mjs) is a small process of the server's own that starts processes
 * for it: a fork copies the page tables of the process that forks, so it costs what that process
 * maps (Node 24, 100 spawns of `true`: 6.1 ms of CPU each from a bare process, 15.1 ms with 256 MB
 * more resident, 30.6 ms with 1 GB, nearly all of it the kernel's), on the forking thread. Fifty
 * runs starting together held the server's requests for half-second stretches; git run from a
 * request paid it per call. Each launcher starts with its first launch and ends after
 * LAUNCHER_IDLE_MS without one; when the server ends, so does it, killing what it started.
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
  /** Written to the first step's stdin, which is then closed (else it reads nothing). */
  input?: string | Uint8Array;
  /** The first step leads a process group of its own, and a kill signals the whole group (git's index-pack with it). */
  group?: boolean;
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

export interface ConnectOptions {
  /** The process reads its stdin from a socket of its own too (else from nothing). */
  writable?: boolean;
  /** The process's fd 3 is a second socket, relayed by the launcher (receive-pack's hooks talk on it). */
  channel?: boolean;
  /** Every chunk of its stderr, in order. */
  onStderr?: (chunk: Buffer) => void;
}

/** A process's stdio as Unix sockets it reads and writes directly, handed over paused; each rejects with the reason it could not start. */
export interface Connected extends Launched {
  /** Its stdout: a reader that stops holds the process in write. */
  stdout: Promise<Socket>;
  /** Its stdin, if writable: write, then end() it. */
  stdin: Promise<Socket> | null;
  /** Its fd 3, if asked for. */
  channel: Promise<Socket> | null;
}

/** What the launcher is told of a connected launch: where to connect, and the tokens naming each socket. */
interface ConnectMessage {
  path: string;
  stdout: string;
  stdin?: string;
  channel?: string;
}

const LAUNCHER_IDLE_MS = 30_000;

const LAUNCHER_LOST = "LAUNCHER_LOST";
/** Whether `error` is the loss of a launcher (it died under its launches), not of what it ran. */
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

  constructor(
    private readonly name: string,
    onStarted: ((pid: number) => void) | undefined,
    private readonly onGone: (launcher: Launcher) => void,
  ) {
    const file = path.join(/*turbopackIgnore: true*/ process.cwd(), "server", "processes", "launcher-process.mjs");
    this.child = fork(file, [name], {
      execArgv: LAUNCHER_NODE_OPTIONS,
      serialization: "advanced",
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    if (this.child.pid !== undefined) onStarted?.(this.child.pid);
    this.child.on("message", (message: FromLauncher) => this.receive(message));
    this.child.on("error", (error) => this.lost(`failed: ${error.message}`));
    this.child.on("exit", (code, signal) => this.lost(`ended (${signal ?? code})`));
  }

  get usable(): boolean {
    return this.child.connected;
  }

  launch(id: number, steps: LaunchStep[], options: LaunchOptions, connect?: ConnectMessage): Launched {
    const exited = new Promise<StepExit[]>((resolve, reject) => {
      this.pending.set(id, { onOutput: options.onOutput, resolve, reject });
    });
    this.settle();
    this.child.send({ type: "start", id, steps, relayStdout: options.relayStdout ?? false, connect });
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
      pending.reject(Object.assign(new Error(`The ${this.name} launcher ${why}`), { code: LAUNCHER_LOST }));
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

export interface LauncherOptions {
  /** Keys it (one per name per process), and says whose it is: in errors (`The runners launcher ended`) and as the process's argument (`ps`). */
  name: string;
  /** Called with each launcher process's pid as it starts (the runners' put it in their cgroup). */
  onStarted?: (pid: number) => void;
}

export interface ProcessLauncher {
  /** Starts `steps` (see LaunchOptions); `exited` rejects only if the launcher itself fails. */
  launch(steps: LaunchStep[], options?: LaunchOptions): Launched;
  /** Starts one process with its stdio on a socket to this process (see Connected), for output read as a stream. */
  connect(step: LaunchStep, options?: ConnectOptions): Connected;
}

type LauncherState = { launcher: Launcher | null; nextId: number };
/** One per name per server process: Next.js may load this module in several chunks, each its own copy. */
const launchers: Map<string, LauncherState> = ((
  globalThis as { __svcLaunchers?: Map<string, LauncherState> }
).__svcLaunchers ??= new Map<string, LauncherState>());

/** The launcher called `name`, started on its first launch (and again after it ended or died). */
export function processLauncher({ name, onStarted }: LauncherOptions): ProcessLauncher {
  const state = launchers.get(name) ?? { launcher: null, nextId: 1 };
  launchers.set(name, state);
  const forget = (launcher: Launcher) => {
    if (state.launcher === launcher) state.launcher = null;
  };
  const launcher = () => {
    if (!state.launcher?.usable) state.launcher = new Launcher(name, onStarted, forget);
    return state.launcher;
  };
  return {
    launch: (steps, options = {}) => launcher().launch(state.nextId++, steps, options),
    connect(step, { writable = false, channel = false, onStderr } = {}) {
      const place = rendezvous();
      const sockets = {
        stdout: place.expect({ read: true }),
        stdin: writable ? place.expect({ read: false }) : null,
        channel: channel ? place.expect({ read: true }) : null,
      };
      const refuseSockets = (error: Error) => Object.values(sockets).forEach((expected) => expected?.forget(error));
      const connect = {
        path: place.path,
        stdout: sockets.stdout.token,
        stdin: sockets.stdin?.token,
        channel: sockets.channel?.token,
      };
      const launched = launcher().launch(state.nextId++, [step], { onOutput: onStderr }, connect);
      // Without an error the launcher connected every socket before starting the process: they are on their way.
      launched.exited.then(
        ([exit]) => {
          if (exit.error) refuseSockets(new Error(exit.error));
        },
        (error: Error) => refuseSockets(error),
      );
      return {
        ...launched,
        stdout: sockets.stdout.socket,
        stdin: sockets.stdin?.socket ?? null,
        channel: sockets.channel?.socket ?? null,
      };
    },
  };
}
