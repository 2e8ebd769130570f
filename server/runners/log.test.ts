import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cutLine, readLogFrom, RunLog } from "./log";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-runlog-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let logs = 0;

/** A log of cap 100 bytes given `lines` lines of 10 bytes ("line 0001\n"...). */
function logOf(lines: number) {
  const file = path.join(dir, `${++logs}.log`);
  const log = new RunLog(file, 100);
  const output = Array.from({ length: lines }, (_, i) => `line ${String(i).padStart(4, "0")}\n`).join("");
  for (let i = 0; i < lines; i++) log.write(Buffer.from(output.slice(i * 10, i * 10 + 10)));
  return { file, log, output };
}

describe("readLogFrom: offsets count the run's output, across a cut", () => {
  it("a log within its cap reads as it is, from any offset", () => {
    const { file, log, output } = logOf(5);
    log.close();
    expect(readLogFrom(file, 0)).toEqual({ notice: null, from: 0, bytes: Buffer.from(output) });
    expect(readLogFrom(file, 30).bytes.toString()).toBe(output.slice(30));
    expect(readLogFrom(file, 999)).toMatchObject({ notice: null, from: 999, bytes: Buffer.alloc(0) });
    expect(cutLine(fs.readFileSync(file, "utf8"))).toBeNull();
  });

  it("while the run goes past its cap: what was written, then the notice, never the notice as output", () => {
    const { file, log, output } = logOf(25);
    const read = readLogFrom(file, 40);
    expect(read.notice).toMatch(/passed its limit/);
    expect(read).toMatchObject({ from: 40 });
    expect(read.bytes.toString()).toBe(output.slice(40, 100));
    expect(readLogFrom(file, 100).bytes.length).toBe(0);
    log.close();
  });

  it("after the run: an offset in the cut part gets the cut line and the kept tail; one past it, the rest", () => {
    const { file, log, output } = logOf(25);
    log.close();
    const whole = fs.readFileSync(file, "utf8");
    expect(cutLine(whole)).toBe("[runner] 150 bytes of output were cut; the last 100 follow\n");
    expect(readLogFrom(file, 100)).toEqual({
      notice: cutLine(whole),
      from: 150,
      bytes: Buffer.from(output.slice(150)),
    });
    expect(readLogFrom(file, 170)).toEqual({ notice: null, from: 170, bytes: Buffer.from(output.slice(170)) });
    expect(readLogFrom(file, 250).bytes.length).toBe(0);
  });
});
