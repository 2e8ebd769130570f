import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { RUNNER_PROCESSES_MAX } from "@/server/limits";
import { runsAsRoot } from "./layout";

/**
 * Memory and process limits of one command. Cgroups where the host lets us create them (v1
 * `memory` and `pids` hierarchies, or v2 with both controllers delegated): they count the whole
 * tree and the kernel's OOM killer acts inside them. And rlimits: the data segment of each
 * process (not the address space, which V8 reserves by gigabytes), and without cgroups the run
 * uid's process count.
 */
export interface Limits {
  /** The command line that places itself under the limits, then execs the rest. */
  prefix: string[];
  release(): Promise<void>;
}

type Cgroups = { kind: "v1"; memory: string; pids: string } | { kind: "v2"; base: string } | null;
let cgroups: Cgroups | undefined;

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
      if (writable(memoryDir) && writable(pidsDir)) return { kind: "v1", memory: memoryDir, pids: pidsDir };
    }
    const unified = ownCgroup(null);
    if (unified !== null && fs.existsSync("/sys/fs/cgroup/cgroup.controllers")) {
      const base = path.join("/sys/fs/cgroup", unified);
      const subtree = fs.readFileSync(path.join(base, "cgroup.subtree_control"), "utf8");
      if (subtree.includes("memory") && subtree.includes("pids") && writable(base)) return { kind: "v2", base };
    }
  } catch {
    // No cgroup file system we can use.
  }
  return null;
}

const write = (file: string, value: string) => fs.writeFileSync(file, value);

async function removeCgroup(dir: string): Promise<void> {
  // The namespace's processes are reaped just after bwrap ends; rmdir fails (EBUSY) until then.
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      fs.rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Creates the limits for one command of `memoryMb` MiB and at most RUNNER_PROCESSES_MAX processes. */
export function createLimits(memoryMb: number): Limits {
  if (cgroups === undefined) cgroups = detectCgroups();
  const bytes = String(memoryMb * 1024 * 1024);
  const name = `svc-runner-${randomBytes(8).toString("hex")}`;
  // Moves the shell into each cgroup named before "--", then execs what follows.
  const enter = (procs: string[]) => [
    "/bin/sh",
    "-c",
    'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"',
    "sh",
    ...procs,
    "--",
  ];
  if (cgroups?.kind === "v1") {
    const memory = path.join(cgroups.memory, name);
    const pids = path.join(cgroups.pids, name);
    fs.mkdirSync(memory);
    fs.mkdirSync(pids);
    write(path.join(memory, "memory.limit_in_bytes"), bytes);
    // Without swap accounting the file is absent; with it, swap may not extend the limit.
    try {
      write(path.join(memory, "memory.memsw.limit_in_bytes"), bytes);
    } catch {
      // no swap accounting
    }
    write(path.join(pids, "pids.max"), String(RUNNER_PROCESSES_MAX));
    return {
      prefix: [
        ...enter([path.join(memory, "cgroup.procs"), path.join(pids, "cgroup.procs")]),
        ...rlimits(memoryMb, false),
      ],
      release: async () => {
        await removeCgroup(memory);
        await removeCgroup(pids);
      },
    };
  }
  if (cgroups?.kind === "v2") {
    const dir = path.join(cgroups.base, name);
    fs.mkdirSync(dir);
    write(path.join(dir, "memory.max"), bytes);
    try {
      write(path.join(dir, "memory.swap.max"), "0");
    } catch {
      // no swap controller
    }
    write(path.join(dir, "pids.max"), String(RUNNER_PROCESSES_MAX));
    return {
      prefix: [...enter([path.join(dir, "cgroup.procs")]), ...rlimits(memoryMb, false)],
      release: () => removeCgroup(dir),
    };
  }
  return { prefix: rlimits(memoryMb, true), release: async () => undefined };
}

/**
 * prlimit: no core files; each process's data segment (a program's own allocation fails, with
 * its message, before the cgroup's OOM killer has to act); without cgroups, the process count
 * (per uid: only as root, where each run has a uid of its own).
 */
function rlimits(memoryMb: number, countProcesses: boolean): string[] {
  const args = ["prlimit", "--core=0", `--data=${memoryMb * 1024 * 1024}`];
  if (countProcesses && runsAsRoot()) args.push(`--nproc=${RUNNER_PROCESSES_MAX}`);
  return [...args, "--"];
}
