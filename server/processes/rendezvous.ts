import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net, { type Socket } from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * Where a launcher hands the server the other end of a process's output (and input): a Unix socket
 * in a directory only the server's user can enter, one per server process. The launcher connects and
 * writes the 16 random bytes it was given for that stream; the server reads them and, for a socket
 * it will read, answers one byte (READY) once it holds it: only then does the launcher start the
 * process, so no output, and no end of it, comes before the socket has a reader. Then the server
 * reads the process's output straight from the kernel. Backpressure is the socket's own: a reader
 * that stops leaves the process blocked in write, nothing held in memory.
 */
export const TOKEN_BYTES = 16;
export const READY = Buffer.from([1]);
/** A connection that has not named its stream by then is dropped. */
const NAMING_TIMEOUT_MS = 10_000;

const DIR_PREFIX = "svc-launch-";

const PID_OF_DIR = new RegExp(`^${DIR_PREFIX}(\\d+)-`);

/** A server killed (not ended) leaves its directory behind: removed by the next one, once its process is gone. */
export function removeLeftBehind(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const pid = Number(PID_OF_DIR.exec(name)?.[1]);
    if (!pid || processExists(pid)) continue;
    try {
      fs.rmSync(path.join(/*turbopackIgnore: true*/ os.tmpdir(), name), { recursive: true, force: true });
    } catch {
      // another user's: theirs to remove
    }
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH"; // EPERM: another user's, alive
  }
}

interface Expected {
  /** Answer READY: the server reads this socket (a process's stdin is only written: its first byte would be READY). */
  read: boolean;
  resolve(socket: Socket): void;
  reject(error: Error): void;
}

class Rendezvous {
  readonly path: string;
  private readonly expected = new Map<string, Expected>();

  constructor() {
    removeLeftBehind();
    const dir = fs.mkdtempSync(path.join(/*turbopackIgnore: true*/ os.tmpdir(), `${DIR_PREFIX}${process.pid}-`)); // mode 0700
    this.path = path.join(/*turbopackIgnore: true*/ dir, "s");
    const server = net.createServer((socket) => this.named(socket)); // not half-open: a socket whose process ended ends
    server.listen(this.path); // bound before listen returns: a launcher may connect at once
    server.unref();
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  }

  /** A token for the launcher to name its connection with, and that connection once it comes. */
  expect({ read }: { read: boolean }): { token: string; socket: Promise<Socket>; forget(error: Error): void } {
    const token = randomBytes(TOKEN_BYTES).toString("hex");
    const socket = new Promise<Socket>((resolve, reject) => this.expected.set(token, { read, resolve, reject }));
    socket.catch(() => undefined); // a caller that never awaits it (the launch failed first)
    return {
      token,
      socket,
      forget: (error) => {
        this.expected.get(token)?.reject(error);
        this.expected.delete(token);
      },
    };
  }

  private named(socket: Socket): void {
    socket.on("error", () => socket.destroy()); // kept: a reader may listen only for its end
    const timer = setTimeout(() => socket.destroy(), NAMING_TIMEOUT_MS).unref();
    let received = Buffer.alloc(0);
    const readToken = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < TOKEN_BYTES) return;
      // Paused by hand, not by a 'readable' listener: removing one lets the stream flow (and end) unread.
      socket.pause();
      socket.off("data", readToken);
      clearTimeout(timer);
      if (received.length > TOKEN_BYTES) socket.unshift(received.subarray(TOKEN_BYTES));
      const token = received.subarray(0, TOKEN_BYTES).toString("hex");
      const expected = this.expected.get(token);
      if (!expected) return socket.destroy();
      this.expected.delete(token);
      if (expected.read) socket.write(READY);
      expected.resolve(socket); // paused: even an end already received waits for its reader
    };
    socket.on("data", readToken);
  }
}

const shared = globalThis as { __svcRendezvous?: Rendezvous };

/** The server process's rendezvous, opened on first use (Next.js may load this module more than once). */
export const rendezvous = (): Rendezvous => (shared.__svcRendezvous ??= new Rendezvous());
