import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { RUNNER_NICENESS, RUNNER_PROCESSES_MAX } from "@/server/limits";
import { cgroupParents, cgroupsHere } from "./cgroups";
import { runsAsRoot } from "./layout";
import { OWNER_TAG, ownerAlive, ownerTag } from "./owner";

/**
 * Memory and process limits of one command, and its CPU group. Cgroups where the host lets us create them (v1
 * `memory` and `pids` hierarchies, or v2 with both controllers delegated): they count the whole
 * tree and the kernel's OOM killer acts inside them. And rlimits: the data segment of each
 * process (not the address space, which V8 reserves by gigabytes), and without cgroups the run
 * uid's process count. Where the `cpu` controller is ours, the run's cgroup is its CPU group
 * too (cgroups.ts says how runs are weighed).
 */
export interface Limits {
  /** The command line that places itself under the limits, then execs the rest. */
  prefix: string[];
  release(): Promise<void>;
}

/** A run's cgroup: `svc-runner-<owner>-<random>` (see owner.ts). */
const CGROUP_NAME = new RegExp(`^svc-runner-${OWNER_TAG.source}-[0-9a-f]+$`);

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
