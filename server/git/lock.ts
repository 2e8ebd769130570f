import { database, type Tx } from "@/server/db";
import { noteWait } from "@/server/log";
import { removeProjectRepos } from "./repo";

// Waiters per key in this process; a PostgreSQL advisory lock extends the exclusion to every
// instance sharing the database (PGlite is one process by construction).
const holder = globalThis as unknown as { __svcRepoLocks?: Map<string, Promise<void>> };

/** Class id of our advisory locks ("git"), so they cannot collide with other pg_advisory users. */
const ADVISORY_NAMESPACE = 0x676974;

function hash32(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** Waits for `key`'s advisory lock on `tx` (alone, or shared with other shared holders), held until `tx` ends. */
async function takeAdvisoryLock(tx: Tx, key: string, shared = false): Promise<void> {
  if (shared)
    await tx.$queryRaw`SELECT 1 FROM pg_advisory_xact_lock_shared(${ADVISORY_NAMESPACE}::int, ${hash32(key)}::int)`;
  else await tx.$queryRaw`SELECT 1 FROM pg_advisory_xact_lock(${ADVISORY_NAMESPACE}::int, ${hash32(key)}::int)`;
}

/** An in-process mutex: `fn` runs after every earlier holder of `key` in this process finished. */
export async function withProcessLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const locks = (holder.__svcRepoLocks ??= new Map<string, Promise<void>>());
  const previous = locks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  locks.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(key) === tail) locks.delete(key);
  }
}

/**
 * A repository's lock (`lockKey`: a project's, or one workspace's) and its group (`lockGroup`, its
 * project): the writers of a group's repositories run side by side, each holding the group shared,
 * and `withRepoLocksHeld` holds it alone. A bare key is a lock of its own, in no group.
 */
export type RepoLock = string | { lockKey: string; lockGroup: string };

/**
 * Runs `fn` while holding `lock` (a repository's refs, given as the repository), in this process
 * and, on PostgreSQL, across instances. Keep `fn` short: it holds a database connection on
 * PostgreSQL. Not reentrant, and `fn` takes no other lock of its group: a backup waiting for the
 * group would stand between the two, and wait for the first one (a deadlock PostgreSQL cannot see).
 */
export async function withRepoLock<T>(lock: RepoLock, work: () => Promise<T>, options: { tx?: Tx } = {}): Promise<T> {
  const [key, group] = typeof lock === "string" ? [lock, undefined] : [lock.lockKey, lock.lockGroup];
  const asked = performance.now();
  const fn = () => {
    noteWait("lock", performance.now() - asked);
    return work();
  };
  const current = await database();
  if (current.kind !== "postgres") return withProcessLock(`refs:${key}`, fn);
  // On PostgreSQL every path takes its connection before this process's locks: a caller in a
  // transaction holds one while it waits here, so a lock holder that then waited for a connection
  // could wait for ever (a fleet's commits and a change's pinned tip filled the pool that way).
  const locked = (tx: Tx) => {
    const advisory = async () => {
      if (group === undefined) await takeAdvisoryLock(tx, key);
      else await takeWriterLocks(tx, group, key);
      return fn();
    };
    const exclusive = () => withProcessLock(`refs:${key}`, advisory);
    return group === undefined ? exclusive() : withGroupProcessLock(group, false, exclusive);
  };
  if (options.tx) return locked(options.tx);
  return current.prisma.$transaction(locked, { maxWait: 30_000, timeout: 120_000 });
}

/**
 * Runs `fn` while no ref of the given groups (projects) can move: writers in flight have committed
 * before it starts, later ones wait until it returns. On PostgreSQL: this process's group locks and,
 * in one transaction, every group's advisory lock, held alone (sorted, so two callers cannot
 * deadlock). PGlite has one connection, so a transaction of `fn`'s already waits for every writer's
 * transaction and holds off the next (a writer moves refs only after its transaction's first
 * statement, which takes that connection: moveBranch, commitToBranch and the tags record before they
 * move); taking the process locks there would deadlock with a writer that holds the connection while
 * it waits for one of them.
 */
export async function withRepoLocksHeld<T>(groups: string[], fn: () => Promise<T>): Promise<T> {
  const current = await database();
  if (current.kind !== "postgres") return fn();
  const sorted = [...new Set(groups)].sort();
  // The connection first, then the process locks (see withRepoLock), then the advisory locks.
  return current.prisma.$transaction(
    async (tx) => {
      const nest = async (index: number): Promise<T> => {
        if (index < sorted.length) return withGroupProcessLock(sorted[index], true, () => nest(index + 1));
        for (const group of sorted) await takeGroupLock(tx, group, true);
        return fn();
      };
      return nest(0);
    },
    { maxWait: 30_000, timeout: 600_000 },
  );
}

/** A group's advisory lock, named apart ("group:" + id) from any repository's. */
const groupKey = (group: string) => `group:${group}`;
const takeGroupLock = (tx: Tx, group: string, exclusive: boolean) => takeAdvisoryLock(tx, groupKey(group), !exclusive);

/**
 * A writer's two advisory locks, its group shared then its repository's alone, in one statement
 * (a select list is evaluated in order): a round trip fewer on every ref move (a commit, a
 * landing), each a wait for the server's thread while the transaction holds its connection.
 */
async function takeWriterLocks(tx: Tx, group: string, key: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM (SELECT pg_advisory_xact_lock_shared(${ADVISORY_NAMESPACE}::int, ${hash32(groupKey(group))}::int), pg_advisory_xact_lock(${ADVISORY_NAMESPACE}::int, ${hash32(key)}::int)) AS locked`;
}

const groups = globalThis as unknown as { __svcRepoGroupLocks?: Map<string, ReadWriteLock> };

/** This process's read-write lock of a group: shared by its writers, exclusive for `withRepoLocksHeld`. */
async function withGroupProcessLock<T>(group: string, exclusive: boolean, fn: () => Promise<T>): Promise<T> {
  const locks = (groups.__svcRepoGroupLocks ??= new Map<string, ReadWriteLock>());
  let lock = locks.get(group);
  if (!lock) locks.set(group, (lock = new ReadWriteLock()));
  await lock.acquire(exclusive);
  try {
    return await fn();
  } finally {
    lock.release(exclusive);
    if (lock.idle() && locks.get(group) === lock) locks.delete(group);
  }
}

/** Removals of repositories share this lock among themselves; a backup's read of the repositories holds it alone. */
const REMOVAL_KEY = "repositories:removal";

class ReadWriteLock {
  private shared = 0;
  private exclusive = false;
  private readonly waiting: Array<{ exclusive: boolean; wake: () => void }> = [];

  async acquire(exclusive: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.free(exclusive)) return this.take(exclusive);
    await new Promise<void>((wake) => this.waiting.push({ exclusive, wake }));
  }

  release(exclusive: boolean): void {
    if (exclusive) this.exclusive = false;
    else this.shared--;
    // In arrival order, so a waiting backup is not starved by a stream of removals (nor the reverse).
    while (this.waiting.length > 0 && this.free(this.waiting[0].exclusive)) {
      const next = this.waiting.shift()!;
      this.take(next.exclusive);
      next.wake();
    }
  }

  idle(): boolean {
    return !this.exclusive && this.shared === 0 && this.waiting.length === 0;
  }

  private free(exclusive: boolean): boolean {
    return !this.exclusive && (!exclusive || this.shared === 0);
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusive = true;
    else this.shared++;
  }
}

const removal = globalThis as unknown as { __svcRepoRemovalLock?: ReadWriteLock };

async function withRemovalLock<T>(exclusive: boolean, fn: () => Promise<T>, timeout: number): Promise<T> {
  const lock = (removal.__svcRepoRemovalLock ??= new ReadWriteLock());
  await lock.acquire(exclusive);
  try {
    const current = await database();
    if (current.kind !== "postgres") return await fn();
    return await current.prisma.$transaction(
      async (tx) => {
        await takeAdvisoryLock(tx, REMOVAL_KEY, !exclusive);
        return fn();
      },
      { maxWait: 30_000, timeout },
    );
  } finally {
    lock.release(exclusive);
  }
}

/**
 * Runs `fn` (a backup's snapshot and its reads of the repositories) while no project's repositories
 * are removed, in this process and, on PostgreSQL, on every instance. Holds a connection throughout.
 */
export function withRepositoriesKept<T>(fn: () => Promise<T>): Promise<T> {
  return withRemovalLock(true, fn, 3_600_000);
}

/** Removes a project's repositories once no backup is reading them (see withRepositoriesKept). Idempotent. */
export function removeProjectReposUnread(projectId: string): Promise<void> {
  return withRemovalLock(false, async () => removeProjectRepos(projectId), 120_000);
}
