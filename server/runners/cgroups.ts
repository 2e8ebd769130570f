import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The cgroups runs are limited by, where the host lets us create them: v1 `memory` and `pids`
 * hierarchies (and `cpu`), or v2 with both controllers delegated (and `cpu`).
 *
 * CPU: the kernel's autogroups (on by default) weigh each session as one group, and bwrap starts
 * the command in a session of its own: a run that made more sessions weighed more, as many groups.
 * Where the `cpu` controller is ours too, a run's cgroup is its one group, whatever sessions it
 * makes (autogroups apply only to tasks of the root cgroup), and every run's group sits in one
 * group of all runs, `svc-runs`, of the default weight: the runs together weigh as much as one busy
 * process, so fifty suites starting together cannot take the server's core. When they were
 * siblings of the server, each of the default weight, a fleet's burst of 100 runs left its thread
 * about 1/100 of a core: requests answered in 3-5 s that took tens of ms alone (docs/benchmarks.md).
 * An idle core is still the runs' whole. The launcher works in the group too (joinLauncherGroup),
 * so a run's checkout and removal weigh with the runs. The group outlives the server (its weight is
 * the operator's to change); a run cannot leave it (moving a process needs the host's cgroup files).
 * Not the weight of RUNNER_NICENESS: a run's niceness orders only its own group's processes, and
 * runs at a tenth of the default each took 3x as long beside a loaded host's other work (a
 * CPU-bound test in CI: 11 -> 30 s).
 */

type Cgroups =
  { kind: "v1"; memory: string; pids: string; cpu: string | null } | { kind: "v2"; base: string; cpu: boolean } | null;
let cgroups: Cgroups | undefined;
export const cgroupsHere = (): Cgroups => (cgroups === undefined ? (cgroups = detectCgroups()) : cgroups);

/** The group of every run's group, in the cgroup we were started in: the runs' CPU weighs as one process. */
export const RUNS_GROUP = "svc-runs";
/** The runs group's leaf the launcher works in: a run's checkout and removal weigh with the runs. */
export const LAUNCHER_GROUP = "launcher";

/** Our own cgroup in a hierarchy, from /proc/self/cgroup (`3:memory:/a/b` or `0::/a/b`). */
function ownCgroup(controller: string | null): string | null {
  const lines = fs.readFileSync("/proc/self/cgroup", "utf8").split("\n");
  for (const line of lines) {
    const [, controllers, where] = line.split(":");
    if (where === undefined) continue;
    if (controller === null ? controllers === "" && line.startsWith("0:") : controllers.split(",").includes(controller))
      return where;
  }
  return null;
}

function writable(dir: string): boolean {
  const probe = path.join(dir, `svc-runner-probe-${randomBytes(4).toString("hex")}`);
  try {
    fs.mkdirSync(probe);
    fs.rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function detectCgroups(): Cgroups {
  try {
    const memory = ownCgroup("memory");
    const pids = ownCgroup("pids");
    if (memory !== null && pids !== null) {
      const memoryDir = path.join("/sys/fs/cgroup/memory", memory);
      const pidsDir = path.join("/sys/fs/cgroup/pids", pids);
      if (writable(memoryDir) && writable(pidsDir)) {
        const cpu = ownCgroup("cpu");
        const runsCpu = cpu === null ? null : runsGroup(path.join("/sys/fs/cgroup/cpu", cpu), []);
        return { kind: "v1", memory: memoryDir, pids: pidsDir, cpu: runsCpu };
      }
    }
    const unified = ownCgroup(null);
    if (unified !== null && fs.existsSync("/sys/fs/cgroup/cgroup.controllers")) {
      const base = path.join("/sys/fs/cgroup", unified);
      const subtree = fs.readFileSync(path.join(base, "cgroup.subtree_control"), "utf8").split(/\s+/);
      const cpu = subtree.includes("cpu");
      const runs =
        subtree.includes("memory") && subtree.includes("pids")
          ? runsGroup(base, ["memory", "pids", ...(cpu ? ["cpu"] : [])])
          : null;
      if (runs !== null) return { kind: "v2", base: runs, cpu };
    }
  } catch {
    // No cgroup file system we can use.
  }
  return null;
}

/**
 * RUNS_GROUP under `parent` (made when missing; v2: with `controllers` handed on to the runs in
 * it), or null when we cannot make groups there.
 */
function runsGroup(parent: string, controllers: string[]): string | null {
  const dir = path.join(parent, RUNS_GROUP);
  try {
    fs.mkdirSync(dir, { recursive: true });
    if (controllers.length > 0)
      fs.writeFileSync(path.join(dir, "cgroup.subtree_control"), controllers.map((name) => `+${name}`).join(" "));
    fs.mkdirSync(path.join(dir, LAUNCHER_GROUP), { recursive: true });
  } catch {
    return null;
  }
  return writable(dir) ? dir : null;
}

/** Whether runs are limited by cgroups here (v1 or v2), else by rlimits alone. */
export const cgroupsKind = (): "v1" | "v2" | null => cgroupsHere()?.kind ?? null;

/** Whether a run's cgroup is its group for the CPU too (the `cpu` controller is ours, v1 or v2). */
export const runsCpuGrouped = (): boolean => {
  const found = cgroupsHere();
  return found?.kind === "v1" ? found.cpu !== null : found?.cpu === true;
};

/**
 * Moves the launcher process `pid` into the runs group's LAUNCHER_GROUP, where the CPU controller is
 * ours: what it starts outside a run's own cgroup (checkouts, removals, the few ms before a step
 * enters its run's group) weighs with the runs too. A fleet's hundred runs starting together made
 * two hundred `git archive | tar -x` at niceness 10 beside the server, together twenty times its
 * weight. Answers whether it moved.
 */
export function joinLauncherGroup(pid: number): boolean {
  const found = cgroupsHere();
  const runs = found?.kind === "v1" ? found.cpu : found?.cpu ? found.base : null;
  if (!runs) return false;
  try {
    fs.writeFileSync(path.join(runs, LAUNCHER_GROUP, "cgroup.procs"), String(pid));
    return true;
  } catch {
    return false;
  }
}

/** The directories run cgroups are made in. */
export function cgroupParents(): string[] {
  const found = cgroupsHere();
  if (found === null) return [];
  return found.kind === "v1" ? [found.memory, found.pids, ...(found.cpu ? [found.cpu] : [])] : [found.base];
}
