import fs from "node:fs";

/** Running, not a zombie: an orphan killed in a test is reaped by whatever PID 1 is, which in a container may never reap it. */
export function processAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z"; // the state follows the command's name, which may hold ") "
  } catch {
    return false;
  }
}
