import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { config } from "@/server/config";

export const BWRAP = "/usr/bin/bwrap";

/** Where the run's checkout and home appear inside the sandbox. */
export const SANDBOX_SRC = "/src";
export const SANDBOX_HOME = "/home/runner";
/** The unprivileged uid and gid the commands run as inside their user namespace. */
export const SANDBOX_UID = 1000;
/** The host uid the availability probe runs as when the server is root (one below the runs' range). */
const PROBE_UID = 1_099_999;

/** What the toolchain needs of the host's /etc, read-only; everything else of /etc stays out. */
const HOST_ETC = [
  "alternatives",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "resolv.conf",
  "hosts",
  "host.conf",
  "gai.conf",
  "nsswitch.conf",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "npmrc",
];

/** The host's top-level entries that point into /usr on a merged-/usr system (a symlink there). */
const USR_LINKS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

function topLevelMounts(): string[] {
  const args: string[] = ["--ro-bind", "/usr", "/usr"];
  for (const name of USR_LINKS) {
    const host = `/${name}`;
    let target: string;
    try {
      target = fs.readlinkSync(host);
    } catch (error) {
      // Not a symlink (a split /usr): bind the directory itself when it exists.
      if ((error as NodeJS.ErrnoException).code === "EINVAL") args.push("--ro-bind", host, host);
      continue;
    }
    args.push("--symlink", target, host);
  }
  return args;
}

export interface SandboxMounts {
  /** Host directory bound writable at SANDBOX_SRC (the checkout). */
  src: string;
  /** Host directory bound writable at SANDBOX_HOME. */
  home: string;
  /** Host files bound read-only at /etc/passwd and /etc/group (naming the runner's uid). */
  passwd: string;
  group: string;
  /** setup only: the host's network; otherwise a private network namespace with its own loopback. */
  network: boolean;
}

/**
 * bwrap's options for one command: new user, PID, mount, IPC, UTS, cgroup and network namespaces;
 * /usr and the toolchain's part of /etc read-only; the checkout and a home writable; private /tmp,
 * /proc and /dev; nothing else of the host. bwrap is PID 1 of the namespace, so when it ends (its
 * command exited, or it was killed, --die-with-parent) the kernel kills every process left in it.
 * They reach bwrap through a pipe (`--args`): its command line, PID 1's inside, names no host path.
 */
export function bwrapOptions(mounts: SandboxMounts): string[] {
  const etc = HOST_ETC.flatMap((name) => ["--ro-bind-try", `/etc/${name}`, `/etc/${name}`]);
  return [
    "--unshare-all",
    ...(mounts.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--hostname",
    "runner",
    ...topLevelMounts(),
    ...etc,
    "--ro-bind",
    mounts.passwd,
    "/etc/passwd",
    "--ro-bind",
    mounts.group,
    "/etc/group",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--bind",
    mounts.src,
    SANDBOX_SRC,
    "--bind",
    mounts.home,
    SANDBOX_HOME,
    "--chdir",
    SANDBOX_SRC,
  ];
}

/** What bwrap runs: the command with both streams on one pipe, so the log keeps their order. */
export const sandboxCommand = (command: string) => ["--", "/bin/sh", "-c", `exec 2>&1\n${command}`];

let available: { ok: true } | { ok: false; reason: string } | undefined;

/** Start-up: SANDBOX_ENABLED=1 on a host without a working bubblewrap is a configuration error. */
export function assertSandboxReady(): void {
  if (!config.sandboxEnabled) return;
  const sandbox = sandboxAvailable();
  if (!sandbox.ok) throw new Error(`SANDBOX_ENABLED=1 needs bubblewrap: ${sandbox.reason}`);
}

/** Whether bubblewrap is installed and can create its namespaces here (asked once per process). */
export function sandboxAvailable(): { ok: true } | { ok: false; reason: string } {
  if (available) return available;
  if (!fs.existsSync(BWRAP))
    return (available = { ok: false, reason: `${BWRAP} is missing (install Debian's bubblewrap)` });
  // As the runs start it: as root, from an unprivileged uid (the kernel may refuse those a user namespace).
  const probe = spawnSync(
    BWRAP,
    ["--unshare-all", "--die-with-parent", ...topLevelMounts(), "--proc", "/proc", "--dev", "/dev", "--", "/bin/true"],
    {
      encoding: "utf8",
      timeout: 10_000,
      cwd: "/",
      ...(process.getuid?.() === 0 ? { uid: PROBE_UID, gid: PROBE_UID } : {}),
    },
  );
  available =
    probe.status === 0
      ? { ok: true }
      : {
          ok: false,
          reason: `bubblewrap cannot create its namespaces here: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`,
        };
  return available;
}
