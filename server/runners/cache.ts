import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { config } from "@/server/config";
import type { SandboxPolicy } from "@/server/policy";
import { runTool } from "./launcher";
import { runnerRoot, runsAsRoot, type RunLayout } from "./layout";

/**
 * The runner cache: per project, what a successful setup left at `cache.paths`, under
 * DATA_DIR/runner/cache/<projectId>/<key>/data. Entries are shared into a checkout by hard links
 * (`cp -al`), never copied; their files belong to the server and lose write permission for
 * others, so a run can replace them in its checkout but never change the entry. The whole cache
 * is bounded by RUNNER_CACHE_MB, least recently used entries out first.
 */
type CachePolicy = NonNullable<SandboxPolicy["cache"]>;

const KEY_FILE_BYTES_MAX = 64 * 1024 * 1024;

const cacheRoot = () => {
  const dir = path.join(/*turbopackIgnore: true*/ runnerRoot(), "cache");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
};

function projectDir(projectId: string): string {
  if (!/^[\w-]+$/.test(projectId)) throw new Error(`Not a project id: ${projectId}`);
  return path.join(cacheRoot(), projectId);
}

/**
 * Whether `relative` can be used inside `src` without leaving it: no component up to it is a
 * symlink (the checkout is the run's; a symlinked directory could point the host anywhere).
 */
function insideCheckout(src: string, relative: string): boolean {
  let dir = src;
  for (const part of relative.split("/").filter(Boolean)) {
    dir = path.join(dir, part);
    try {
      if (fs.lstatSync(dir).isSymbolicLink()) return false;
    } catch {
      return true; // absent from here on
    }
  }
  return true;
}

/** What names an entry: the key files' contents, the setup, the paths and the platform. */
export function cacheKey(src: string, cache: CachePolicy, setup: string): string {
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify({
      v: 1,
      platform: `${process.platform}-${process.arch}`,
      node: process.version,
      setup,
      paths: cache.paths,
    }),
  );
  for (const name of cache.key) {
    hash.update(`\0${name}\0`);
    const file = path.join(src, name);
    const stat = insideCheckout(src, name) ? fs.lstatSync(file, { throwIfNoEntry: false }) : undefined;
    // Only regular files count: a FIFO would block the read, a symlink could name a host file.
    if (stat?.isFile() && stat.size <= KEY_FILE_BYTES_MAX) hash.update(fs.readFileSync(file));
    else hash.update(stat ? `<${stat.isSymbolicLink() ? "symlink" : "other"}>` : "<missing>");
  }
  return hash.digest("hex").slice(0, 40);
}

/** Hard-links the entry's paths into the checkout; false (nothing restored) when there is none. */
export async function restoreCache(
  projectId: string,
  key: string,
  cache: CachePolicy,
  layout: RunLayout,
): Promise<boolean> {
  const entry = path.join(projectDir(projectId), key);
  if (!fs.existsSync(path.join(entry, "data"))) return false;
  const restored: string[] = [];
  try {
    for (const relative of cache.paths) {
      const from = path.join(entry, "data", relative);
      if (!fs.existsSync(from)) continue;
      if (!insideCheckout(layout.src, relative)) return false;
      const to = path.join(layout.src, relative);
      await fs.promises.rm(to, { recursive: true, force: true });
      await makeParents(layout, relative);
      restored.push(to);
      await runTool("cp", ["-al", "--", from, to]);
      // cp made the directories as the server: the run must be able to add and remove files in them.
      if (runsAsRoot())
        await runTool("find", [to, "-type", "d", "-exec", "chown", `${layout.uid}:${layout.gid}`, "{}", "+"]);
    }
    const now = new Date();
    await fs.promises.utimes(entry, now, now);
    return true;
  } catch {
    // An entry evicted while it was read: start from a clean checkout, as on a miss.
    for (const to of restored) await fs.promises.rm(to, { recursive: true, force: true });
    return false;
  }
}

async function makeParents(layout: RunLayout, relative: string): Promise<void> {
  let dir = layout.src;
  for (const part of relative.split("/").filter(Boolean).slice(0, -1)) {
    dir = path.join(dir, part);
    if (fs.existsSync(dir)) continue;
    await fs.promises.mkdir(dir);
    if (runsAsRoot()) await fs.promises.chown(dir, layout.uid, layout.gid);
  }
}

/** Keeps what setup produced at `cache.paths` as the entry `key` (a concurrent save of the same key wins). */
export async function saveCache(projectId: string, key: string, cache: CachePolicy, layout: RunLayout): Promise<void> {
  const project = projectDir(projectId);
  fs.mkdirSync(project, { recursive: true, mode: 0o700 });
  const entry = path.join(project, key);
  if (fs.existsSync(entry)) return;
  const tmp = path.join(project, `.tmp-${randomBytes(8).toString("hex")}`);
  try {
    const data = path.join(tmp, "data");
    fs.mkdirSync(data, { recursive: true });
    let saved = 0;
    for (const relative of cache.paths) {
      const from = path.join(layout.src, relative);
      if (!insideCheckout(layout.src, relative) || !fs.existsSync(from)) continue;
      fs.mkdirSync(path.dirname(path.join(data, relative)), { recursive: true });
      await runTool("cp", ["-al", "--", from, path.join(data, relative)]);
      saved++;
    }
    if (saved === 0) return;
    // The files (shared with this checkout) become the server's, readable but not writable by runs.
    if (runsAsRoot()) await runTool("chown", ["-R", "--no-dereference", "0:0", tmp]);
    await runTool("chmod", ["-R", "a+rX,go-w", tmp]);
    await fs.promises.writeFile(path.join(tmp, "bytes"), String(await diskBytes(data)));
    await fs.promises.rename(tmp, entry).catch(() => undefined);
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
  await evict(config.runnerCacheBytes);
}

async function diskBytes(dir: string): Promise<number> {
  let bytes = 0;
  const seen = new Set<number>();
  const walk = async (current: string) => {
    for (const entry of await fs.promises.readdir(current, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(current, entry.name);
      const stat = await fs.promises.lstat(full).catch(() => null);
      if (!stat || seen.has(stat.ino)) continue;
      seen.add(stat.ino);
      bytes += stat.blocks * 512;
      if (entry.isDirectory()) await walk(full);
    }
  };
  await walk(dir);
  return bytes;
}

/** Removes least recently used entries, across projects, until the cache fits in `bound` bytes. */
export async function evict(bound: number): Promise<void> {
  const root = cacheRoot();
  const entries: Array<{ dir: string; used: number; bytes: number }> = [];
  for (const project of await fs.promises.readdir(root)) {
    for (const key of await fs.promises.readdir(path.join(root, project)).catch(() => [])) {
      if (key.startsWith(".")) continue;
      const dir = path.join(root, project, key);
      const stat = await fs.promises.stat(dir).catch(() => null);
      if (stat) entries.push({ dir, used: stat.mtimeMs, bytes: await entryBytes(dir) });
    }
  }
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  for (const entry of entries.sort((a, b) => a.used - b.used)) {
    if (total <= bound) break;
    const trash = path.join(path.dirname(entry.dir), `.evicted-${randomBytes(8).toString("hex")}`);
    try {
      await fs.promises.rename(entry.dir, trash);
      await fs.promises.rm(trash, { recursive: true, force: true });
      total -= entry.bytes;
    } catch {
      // taken by a concurrent eviction
    }
  }
}

/** An entry's size, measured when it was saved. */
async function entryBytes(dir: string): Promise<number> {
  const known = await fs.promises.readFile(path.join(dir, "bytes"), "utf8").catch(() => "");
  return /^\d+$/.test(known) ? Number(known) : diskBytes(path.join(dir, "data"));
}
