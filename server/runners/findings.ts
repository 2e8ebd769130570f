import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { junitFindings } from "./junit";
import { checkoutLocator, listFiles } from "./locate";
import { tapFindings } from "./tap";
import type { RunFinding } from "./types";

const REPORT_BYTES_MAX = 32 * 1024 * 1024;
const TAIL_LINES = 50;

/** The last 50 lines of `output`, as one finding after the line saying why the step failed. */
export function tailFinding(why: string, output: string): RunFinding {
  const lines = output.replace(/\s+$/, "").split("\n").slice(-TAIL_LINES).join("\n");
  return { message: lines ? `${why}\n${lines}` : why, rule: "output" };
}

/**
 * The failed tests of a failed command: from the JUnit reports its policy names (globs in the
 * checkout), else from TAP in its output (`node --test`); each with its file relative to the
 * repository and its line.
 */
export function testFindings(src: string, reports: string[] | undefined, output: string): RunFinding[] {
  const locator = checkoutLocator(src);
  if (reports?.length) {
    const match = picomatch(reports, { dot: true });
    const findings: RunFinding[] = [];
    for (const relative of listFiles(src).filter((file) => match(file))) {
      const file = path.join(src, relative);
      // listFiles gives regular files only (no symlink to follow out of the checkout).
      if (fs.statSync(file).size > REPORT_BYTES_MAX) continue;
      findings.push(...junitFindings(fs.readFileSync(file, "utf8"), locator));
    }
    if (findings.length > 0) return findings;
  }
  return tapFindings(output, locator);
}
