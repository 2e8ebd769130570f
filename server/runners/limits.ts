import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { RUNNER_NICENESS, RUNNER_PROCESSES_MAX } from "@/server/limits";
import { runsAsRoot } from "./layout";
import { OWNER_TAG, ownerAlive, ownerTag } from "./owner";

/**
 * Memory and process limits of one command, and its CPU group. Cgroups where the host lets us create them (v1
 * `memory` and `pids` hierarchies, or v2 with both controllers delegated): they count the whole
 * tree and the kernel's OOM killer acts inside them. And rlimits: the data segment of each
 * process (not the address space, which V8 reserves by gigabytes), and without cgroups the run
 * uid's process count.
 *
 * CPU: the kernel's autogroups (on by default) weigh each session as one group, and bwrap starts
 * the command in a session of its own: a run that made more sessions weighed more, as many groups.
 * Where the `cpu` controller is ours too, a run's cgroup is its one group, whatever sessions it
 * makes (autogroups apply only to tasks of the root cgroup), and every run's group sits in one
 * group of all runs, `svc-runs`, of the default weight: the runs together weigh as much as one busy
 * process, so fifty suites starting together cannot take the server's core. When they were
 * siblings of the server, each of the default weight, a fleet's burst of 100 runs left its thread
 * about 1/100 of a core: requests answered in 3-5 s that took tens of ms alone (docs/benchmarks.md).
 * An idle core is still the runs' whole. The group outlives the server (its weight is the
 * operator's to change); a run cannot leave it (moving a process needs the host's cgroup files).
 * Not the weight of RUNNER_NICENESS: a run's niceness orders only its own group's processes, and
 * runs at a tenth of the default each took 3x as long beside a loaded host's other work (a
 * CPU-bound test in CI: 11 -> 30 s).
 */
export interface Limits {
  /** The command line that places itself under the limits, then execs the rest. */
  prefix: string[];
  release(): Promise<void>;
}

type Cgroups =
  { kind: "v1"; memory: string; pids: string; cpu: string | null } | { kind: "v2"; base: string; cpu: boolean } | null;
let cgroups: Cgroups | undefined;
const cgroupsHere = (): Cgroups => (cgroups === undefined ? (cgroups = detectCgroups()) : cgroups);

/** The group of every run's group, in the cgroup we were started in: the runs' CPU weighs as one process. */
export const RUNS_GROUP = "svc-runs";

/** A run's cgroup: `svc-runner-<owner>-<random>` (see owner.ts). */
const CGROUP_NAME = new RegExp(`^svc-runner-${OWNER_TAG.source}-[0-9a-f]+$`);

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
  } catch {
    return null;
  }
  return writable(dir) ? dir : null;
}

const write = (file: string, value: string) => fsp.writeFile(file, value);

async function removeCgroup(dir: string): Promise<void> {
  // The namespace's processes are reaped just after bwrap ends; rmdir fails (EBUSY) until then.
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await fsp.rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Creates the limits for one command of `memoryMb` MiB and at most RUNNER_PROCESSES_MAX processes.
 * A cgroup's creation and removal can take the kernel milliseconds: they go through the thread pool.
 */
export async function createLimits(memoryMb: number): Promise<Limits> {
  const found = cgroupsHere();
  const bytes = String(memoryMb * 1024 * 1024);
  const name = `svc-runner-${ownerTag()}-${randomBytes(8).toString("hex")}`;
  // Moves the shell into each cgroup named before "--", then execs what follows.
  const enter = (procs: string[]) => [
    "/bin/sh",
    "-c",
    'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"',
    "sh",
    ...procs,
    "--",
  ];
  if (found === null) return { prefix: rlimits(memoryMb, true), release: async () => undefined };
  const v1Cpu = found.kind === "v1" && found.cpu !== null ? path.join(found.cpu, name) : null;
  const dirs =
    found.kind === "v1"
      ? [path.join(found.memory, name), path.join(found.pids, name), ...(v1Cpu ? [v1Cpu] : [])]
      : [path.join(found.base, name)];
  const [memory, pids] = found.kind === "v1" ? [dirs[0], dirs[1]] : [dirs[0], dirs[0]];
  const release = async () => {
    for (const dir of dirs) await removeCgroup(dir);
  };
  try {
    for (const dir of dirs) await fsp.mkdir(dir);
    if (found.kind === "v1") {
      await write(path.join(memory, "memory.limit_in_bytes"), bytes);
      // Without swap accounting the file is absent; with it, swap may not extend the limit.
      await write(path.join(memory, "memory.memsw.limit_in_bytes"), bytes).catch(() => undefined);
    } else {
      await write(path.join(memory, "memory.max"), bytes);
      // Without a swap controller the file is absent.
      await write(path.join(memory, "memory.swap.max"), "0").catch(() => undefined);
    }
    await write(path.join(pids, "pids.max"), String(RUNNER_PROCESSES_MAX));
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  return {
    prefix: [...enter(dirs.map((dir) => path.join(dir, "cgroup.procs"))), ...rlimits(memoryMb, false)],
    release,
  };
}

/**
 * prlimit: no core files; each process's data segment (a program's own allocation fails, with
 * its message, before the cgroup's OOM killer has to act); without cgroups, the process count
 * (per uid: only as root, where each run has a uid of its own). Then `nice`: RUNNER_NICENESS.
 */
function rlimits(memoryMb: number, countProcesses: boolean): string[] {
  const args = ["prlimit", "--core=0", `--data=${memoryMb * 1024 * 1024}`];
  if (countProcesses && runsAsRoot()) args.push(`--nproc=${RUNNER_PROCESSES_MAX}`);
  return [...args, "--", ...NICE];
}

/** A command line's prefix that runs the rest at RUNNER_NICENESS. */
export const NICE = ["nice", "-n", String(RUNNER_NICENESS)];

/** Whether runs are limited by cgroups here (v1 or v2), else by rlimits alone. */
export const cgroupsKind = (): "v1" | "v2" | null => cgroupsHere()?.kind ?? null;

/** Whether a run's cgroup is its group for the CPU too (the `cpu` controller is ours, v1 or v2). */
export const runsCpuGrouped = (): boolean => {
  const found = cgroupsHere();
  return found?.kind === "v1" ? found.cpu !== null : found?.cpu === true;
};

/** The directories run cgroups are made in. */
export function cgroupParents(): string[] {
  const found = cgroupsHere();
  if (found === null) return [];
  return found.kind === "v1" ? [found.memory, found.pids, ...(found.cpu ? [found.cpu] : [])] : [found.base];
}

/**
 * Kills the processes of the run cgroups a crashed server left under ours, and removes those
 * cgroups (a server's start-up). Answers the cgroups removed.
 */
export async function sweepOrphanCgroups(): Promise<string[]> {
  const removed: string[] = [];
  for (const parent of cgroupParents()) {
    for (const name of fs.readdirSync(parent)) {
      const match = CGROUP_NAME.exec(name);
      if (!match || ownerAlive(match[1], match[2])) continue;
      const dir = path.join(parent, name);
      await killCgroup(dir);
      await removeCgroup(dir);
      if (!fs.existsSync(dir)) removed.push(dir);
    }
  }
  return removed;
}

async function killCgroup(dir: string): Promise<void> {
  try {
    await write(path.join(dir, "cgroup.kill"), "1");
    return;
  } catch {
    // v1, or a kernel before 5.14: one process at a time.
  }
  const procs = (await fsp.readFile(path.join(dir, "cgroup.procs"), "utf8")).split("\n").filter(Boolean);
  for (const pid of procs) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // ended meanwhile
    }
  }
}
