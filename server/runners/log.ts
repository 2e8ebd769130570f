import fs from "node:fs";

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
      const line = Buffer.from(
        `\n[runner] the log passed its limit (RUNNER_LOG_MB); its tail is kept when the run ends\n`,
        "utf8",
      );
      fs.writeSync(this.fd, line);
      this.written += line.length;
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
    const head = Buffer.from(
      `[runner] ${this.total - kept.length} bytes of output were cut; the last ${kept.length} follow\n`,
      "utf8",
    );
    const tmp = `${this.path}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([head, kept]), { mode: 0o600 });
    fs.renameSync(tmp, this.path);
    this.written = head.length + kept.length;
    this.onOutput?.(this.written);
    return this.written;
  }
}
