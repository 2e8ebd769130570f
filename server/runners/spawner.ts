import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * One process to start off the server's thread (spawn-worker.mjs). In a group, each process's
 * stdout feeds the next one's stdin; only the last one's stdout comes back.
 */
export interface ProcessSpec {
  file: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Runs as this uid and gid (the server must be root). */
  uid?: number;
  gid?: number;
  stdout: "pipe" | "ignore";
  stderr: "pipe" | "ignore";
  /** Written to the process's fd 3, which is then closed (bwrap's `--args 3`). */
  fd3?: Buffer;
}

/** How one process of a group ended: its exit, or why it could not start. */
export type ProcessEnd =
  { code: number | null; signal: NodeJS.Signals | null } | { error: string; code?: string; signal?: undefined };

export interface StartedGroup {
  /** Each process's end, in the group's order, once every one has ended. */
  ended: Promise<ProcessEnd[]>;
  kill(signal: NodeJS.Signals): void;
}

type Output = (index: number, stream: "stdout" | "stderr", chunk: Buffer) => void;
type Reply =
  | { id: number; index: number; stream: "stdout" | "stderr"; chunk: Uint8Array }
  | ({ id: number; index: number; stream?: undefined } & ProcessEnd);

interface Pending {
  ends: ProcessEnd[];
  left: number;
  onOutput: Output;
  resolve: (ends: ProcessEnd[]) => void;
}

const state = globalThis as unknown as { __svcSpawner?: { worker: Worker; pending: Map<number, Pending> } };
let nextId = 0;

/** The thread, started on first use and again after it died (whatever it was running ends with an error). */
function spawner() {
  if (state.__svcSpawner) return state.__svcSpawner;
  const worker = new Worker(
    /*turbopackIgnore: true*/ path.join(process.cwd(), "server", "runners", "spawn-worker.mjs"),
  );
  const pending = new Map<number, Pending>();
  worker.unref();
  worker.on("message", (reply: Reply) => {
    const group = pending.get(reply.id);
    if (!group) return;
    if (reply.stream) return group.onOutput(reply.index, reply.stream, Buffer.from(reply.chunk));
    const { id: _id, index, stream: _stream, ...end } = reply;
    group.ends[index] = end;
    if (--group.left === 0) {
      pending.delete(reply.id);
      if (pending.size === 0) worker.unref();
      group.resolve(group.ends);
    }
  });
  const died = (why: string) => {
    if (state.__svcSpawner?.worker === worker) delete state.__svcSpawner;
    for (const [id, group] of pending) {
      pending.delete(id);
      group.resolve(Array.from(group.ends, (end) => end ?? { error: why }));
    }
  };
  worker.on("error", (error) => died(`the runners' process thread failed: ${error.message}`));
  worker.on("exit", (code) => died(`the runners' process thread exited (${code})`));
  return (state.__svcSpawner = { worker, pending });
}

/**
 * Starts a group of processes on the runners' own thread: the fork of each (a few ms to ~10 ms
 * for a server of a few hundred MB) no longer holds the server's requests. Output comes back in
 * order through `onOutput`.
 */
export function startProcesses(processes: ProcessSpec[], onOutput: Output): StartedGroup {
  const { worker, pending } = spawner();
  const id = ++nextId;
  // Held while it runs something (a script awaiting a checkout must not end first), let go when idle.
  if (pending.size === 0) worker.ref();
  const ended = new Promise<ProcessEnd[]>((resolve) =>
    pending.set(id, { ends: new Array<ProcessEnd>(processes.length), left: processes.length, onOutput, resolve }),
  );
  worker.postMessage({ op: "start", id, processes });
  return { ended, kill: (signal) => worker.postMessage({ op: "kill", id, signal }) };
}
