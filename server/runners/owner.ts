import fs from "node:fs";

/**
 * What a server leaves for its runs on the host (cgroups, checkouts) is named after it: its pid and
 * start time (`<pid>.<start>`, so a reused pid is not mistaken for it). What a crashed server left is
 * known by an owner that is gone. Servers sharing a directory are assumed to share a PID namespace.
 */
export const OWNER_TAG = /(\d+)\.(\d+)/;

/** A process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or null when it is gone. */
function startTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

let owner: string | undefined;
/** This server's tag. */
export const ownerTag = () => (owner ??= `${process.pid}.${startTime(process.pid) ?? 0}`);

/** Whether the server of this pid and start time (an OWNER_TAG's groups) still runs. */
export const ownerAlive = (pid: string, start: string) => startTime(Number(pid)) === start;
