import fs from "node:fs";

/** Written once when the log passes its cap while the run goes; the file stops growing there. */
const CUTTING = Buffer.from(
  "\n[runner] the log passed its limit (RUNNER_LOG_MB); its tail is kept when the run ends\n",
  "utf8",
);
/** The first line of a log whose head was cut when the run ended. */
const CUT_HEAD = /^\[runner\] (\d+) bytes of output were cut; the last \d+ follow\n/;
const cutHead = (cutBytes: number, kept: number) =>
  `[runner] ${cutBytes} bytes of output were cut; the last ${kept} follow\n`;

/**
 * A run's log file: output appended as it comes, up to `capBytes`. Beyond that the file stops
 * growing (a line says so) while the newest `capBytes` are kept in memory; `close()` then rewrites
 * the file once as a line saying how much was cut, followed by that tail.
 */
export class RunLog {
  private fd: number;
  private written = 0;
  private total = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private cut = false;
  /** Output bytes in the file before the cut. */
  private beforeCut = 0;

  constructor(
    private readonly path: string,
    private readonly capBytes: number,
    private readonly onOutput?: (logBytes: number) => void,
  ) {
    this.fd = fs.openSync(path, "w+", 0o600);
  }

  /** A line of the runner's own (what runs, cache hits, why a run ended). */
  note(line: string): void {
    this.write(Buffer.from(`[runner] ${line}\n`, "utf8"));
  }

  write(chunk: Buffer): void {
    this.total += chunk.length;
    if (!this.cut && this.written + chunk.length <= this.capBytes) {
      fs.writeSync(this.fd, chunk);
      this.written += chunk.length;
      this.onOutput?.(this.written);
      return;
    }
    if (!this.cut) {
      this.cut = true;
      this.beforeCut = this.written;
      fs.writeSync(this.fd, CUTTING);
      this.written += CUTTING.length;
      this.onOutput?.(this.written);
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= this.capBytes) this.tailBytes -= this.tail.shift()!.length;
  }

  /** Ends the log; returns its size in bytes. */
  close(): number {
    if (!this.cut) {
      fs.closeSync(this.fd);
      return this.written;
    }
    let kept = Buffer.concat(this.tail).subarray(-this.capBytes);
    const fromFile = Math.min(this.capBytes - kept.length, this.beforeCut);
    if (fromFile > 0) {
      const older = Buffer.alloc(fromFile);
      fs.readSync(this.fd, older, 0, fromFile, this.beforeCut - fromFile);
      kept = Buffer.concat([older, kept]);
    }
    fs.closeSync(this.fd);
    const head = Buffer.from(cutHead(this.total - kept.length, kept.length), "utf8");
    const tmp = `${this.path}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([head, kept]), { mode: 0o600 });
    fs.renameSync(tmp, this.path);
    this.written = head.length + kept.length;
    this.onOutput?.(this.written);
    return this.written;
  }
}

/** Output of a log from an offset: `notice` says the log was or is being cut. */
export interface LogRead {
  /** The runner's line saying the log passed its cap (while the run goes) or how much of its head was cut. */
  notice: string | null;
  /** The output offset of `bytes[0]`: past the cut part when the offset asked for pointed into it. */
  from: number;
  bytes: Buffer;
}

function readRange(fd: number, start: number, end: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  if (buffer.length) fs.readSync(fd, buffer, 0, buffer.length, start);
  return buffer;
}

/**
 * A run's log from `offset`, counted in bytes of the run's output (what `RunLog` was given), so an
 * offset a follower holds stays valid when `close()` rewrites a cut log as its head line and its
 * tail: an offset inside the cut part answers the cut notice and continues from what was kept.
 * While the run goes, a log past its cap ends with the CUTTING line, answered as the notice. A
 * command that prints that very line as its last output only confuses its own followers.
 */
export function readLogFrom(file: string, offset: number): LogRead {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { notice: null, from: offset, bytes: Buffer.alloc(0) };
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const head = CUT_HEAD.exec(readRange(fd, 0, Math.min(size, 120)).toString("latin1"));
    if (head) {
      const headBytes = head[0].length;
      const cutBytes = Number(head[1]);
      const from = Math.max(offset, cutBytes);
      const bytes = readRange(fd, Math.min(size, headBytes + from - cutBytes), size);
      return { notice: offset < cutBytes ? head[0] : null, from, bytes };
    }
    const at = size - CUTTING.length;
    const cutting = at >= 0 && readRange(fd, at, size).equals(CUTTING);
    const end = cutting ? at : size;
    const bytes = readRange(fd, Math.min(offset, end), end);
    return { notice: cutting ? CUTTING.toString("utf8") : null, from: offset, bytes };
  } finally {
    fs.closeSync(fd);
  }
}

/** The cut line a whole log's text starts with, or null. */
export const cutLine = (text: string): string | null => CUT_HEAD.exec(text)?.[0] ?? null;
