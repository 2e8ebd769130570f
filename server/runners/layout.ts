import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { config } from "@/server/config";
import { SANDBOX_HOME, SANDBOX_UID } from "./bwrap";
import { runTool } from "./launcher";
import { OWNER_TAG, ownerAlive, ownerTag } from "./owner";

/**
 * Each run executes as a host uid of its own, from a range no account uses: nothing it leaves owns
 * anything another run can reach, its process count is its own (RLIMIT_NPROC is per uid), and the
 * cache's files (owned by the server) are readable but not writable through their hard links.
 */
const HOST_UID_BASE = 1_100_000;
const HOST_UID_SLOTS = 50_000;
const usedSlots = new Set<number>();

export const runsAsRoot = () => process.getuid?.() === 0;

/** The directory runner work and cache live in; every directory down to it is searchable by others so bwrap, as the run's uid, can reach the checkout. */
export function runnerRoot(): string {
  const root = path.join(config.dataDir, "runner");
  if (!fs.existsSync(root)) fs.mkdirSync(root, { recursive: true });
  if (runsAsRoot()) {
    for (let dir = root; dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const mode = fs.statSync(/*turbopackIgnore: true*/ dir).mode;
      if ((mode & 0o001) === 0) fs.chmodSync(/*turbopackIgnore: true*/ dir, (mode & 0o7777) | 0o001);
      if (dir === config.dataDir) break;
    }
  }
  return root;
}

export interface RunLayout {
  /** DATA_DIR/runner/work/<owner>-<random> (see owner.ts): holds the rest, removed at the end. */
  dir: string;
  src: string;
  home: string;
  passwd: string;
  group: string;
  /** The host uid and gid the run's processes have (the server's own when it is not root). */
  uid: number;
  gid: number;
}

function allocateUid(): number {
  let slot = randomBytes(4).readUInt32BE() % HOST_UID_SLOTS;
  while (usedSlots.has(slot)) slot = (slot + 1) % HOST_UID_SLOTS;
  usedSlots.add(slot);
  return HOST_UID_BASE + slot;
}

/**
 * Creates a run's directories: an empty checkout and home owned by the run's uid. Through the
 * thread pool: fifty runs starting together blocked the server's thread ~7 ms each with these calls
 * done synchronously (`bench/ci/run.ts --only starts` under `--cpu-prof`).
 */
export async function createLayout(): Promise<RunLayout> {
  const work = path.join(runnerRoot(), "work");
  // Modes set after creation: the server's umask (077, server/runtime/data-dir.ts) would mask them.
  await fsp.mkdir(work, { recursive: true });
  await fsp.chmod(work, 0o711);
  const dir = path.join(work, `${ownerTag()}-${randomBytes(12).toString("hex")}`);
  await fsp.mkdir(dir);
  await fsp.chmod(dir, 0o755);
  const root = runsAsRoot();
  const uid = root ? allocateUid() : process.getuid!();
  const gid = root ? uid : process.getgid!();
  const layout: RunLayout = {
    dir,
    src: path.join(dir, "src"),
    home: path.join(dir, "home"),
    passwd: path.join(dir, "passwd"),
    group: path.join(dir, "group"),
    uid,
    gid,
  };
  const ownDirectory = async (own: string) => {
    await fsp.mkdir(own, { mode: 0o700 });
    if (root) await fsp.chown(own, uid, gid);
  };
  const readableFile = async (file: string, text: string) => {
    await fsp.writeFile(file, text);
    await fsp.chmod(file, 0o644);
  };
  // Settled, all of them, before a failure removes the directory: a write still going would outlive the removal.
  const made = await Promise.allSettled([
    ownDirectory(layout.src),
    ownDirectory(layout.home),
    readableFile(
      layout.passwd,
      `root:x:0:0::/root:/bin/sh\nrunner:x:${SANDBOX_UID}:${SANDBOX_UID}::${SANDBOX_HOME}:/bin/sh\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n`,
    ),
    readableFile(layout.group, `root:x:0:\nrunner:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`),
  ]);
  const failed = made.find((result) => result.status === "rejected");
  if (failed) {
    await removeLayout(layout).catch(() => undefined);
    throw failed.reason;
  }
  return layout;
}

/** Removals under way: a run's is off its verdict's path (execute.ts), and nobody else waits for it. */
const removing = new Set<Promise<void>>();

/** Removes a run's directories (nothing of the run is alive by then) and frees its uid. */
export function removeLayout(layout: RunLayout): Promise<void> {
  const removal: Promise<void> = removeRunDir(layout.dir).finally(() => {
    if (runsAsRoot()) usedSlots.delete(layout.uid - HOST_UID_BASE);
    removing.delete(removal);
  });
  removing.add(removal);
  return removal;
}

/** Resolves once no run's directory is being removed (shutdown, tests: their data directory goes next). */
export async function layoutsRemoved(): Promise<void> {
  while (removing.size > 0) await Promise.allSettled([...removing]);
}

const RUN_DIR_NAME = new RegExp(`^${OWNER_TAG.source}-[0-9a-f]+$`);

/**
 * Removes the run directories a crashed server left (its checkouts, a suite's files: a server's
 * start-up, after its cgroups' processes were killed). Answers the directories removed.
 */
export async function sweepOrphanCheckouts(): Promise<string[]> {
  const work = path.join(config.dataDir, "runner", "work");
  const removed: string[] = [];
  for (const name of fs.existsSync(work) ? fs.readdirSync(work) : []) {
    const match = RUN_DIR_NAME.exec(name);
    if (!match || ownerAlive(match[1], match[2])) continue;
    const dir = path.join(work, name);
    await removeRunDir(dir);
    removed.push(dir);
  }
  return removed;
}

/**
 * `rm -rf` in the runners' launcher: a checkout of thousands of files removed in the server took its
 * thread pool (every file a queued lstat, unlink and callback), and a ref move's file read, inside
 * the database's one transaction, waited behind them.
 */
async function removeRunDir(dir: string): Promise<void> {
  // A run may have left directories without write permission for their owner.
  // chmod's failures (an entry already gone) must not keep rm from removing the rest.
  if (!runsAsRoot()) await runTool("chmod", ["-R", "u+rwx", "--", dir]).catch(() => undefined);
  await runTool("rm", ["-rf", "--", dir]);
}
