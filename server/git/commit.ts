import { db, type Tx } from "@/server/db";
import { DomainError } from "@/server/errors";
import { readCommit, readTree, writeBlob, writeCommitObject, writeTree, type TreeEntry } from "./objects";
import type { Repo } from "./repo";
import { withProcessLock, withRepoLock } from "./lock";
import { segmentProblem } from "./path-rules";
import { branchRef, readRef, RefConflictError, updateRef, updateRefWhileLocked } from "./refs";

/** New file contents by path; null deletes the path (a whole directory when it names one). */
export type FileMap = Record<string, string | Uint8Array | null>;

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch; now when omitted. */
  timestamp?: number;
}

export interface CommitInput {
  parent: string | null;
  files: FileMap;
  message: string;
  author: Signature;
  /** Defaults to the author. */
  committer?: Signature;
}

export class InvalidPathError extends DomainError {
  constructor(readonly path: string, reason: string) {
    super("invalid", `Invalid path ${JSON.stringify(path)}: ${reason}`, "INVALID_PATH");
  }
}

/** Splits a repository path into segments, refusing anything that could escape or corrupt the tree. */
export function pathSegments(filePath: string): string[] {
  if (filePath.length === 0) throw new InvalidPathError(filePath, "empty");
  if (filePath.includes("\0")) throw new InvalidPathError(filePath, "contains NUL");
  const segments = filePath.split("/");
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) throw new InvalidPathError(filePath, problem);
  }
  return segments;
}

interface ChangeNode {
  files: Map<string, string | Uint8Array | null>;
  dirs: Map<string, ChangeNode>;
}

const emptyNode = (): ChangeNode => ({ files: new Map(), dirs: new Map() });

function changeTree(files: FileMap): ChangeNode {
  const root = emptyNode();
  for (const [filePath, content] of Object.entries(files)) {
    const segments = pathSegments(filePath);
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      if (node.files.get(segment) != null) throw new InvalidPathError(filePath, `${segment} is also written as a file`);
      let child = node.dirs.get(segment);
      if (!child) node.dirs.set(segment, (child = emptyNode()));
      node = child;
    }
    const name = segments[segments.length - 1];
    if (content !== null && node.dirs.has(name)) throw new InvalidPathError(filePath, "also used as a directory");
    node.files.set(name, content);
  }
  return root;
}

const toBytes = (content: string | Uint8Array) => (typeof content === "string" ? Buffer.from(content, "utf8") : content);
const BLOB_MODES = new Set(["100644", "100755"]);

/** Applies one level of changes to a tree; returns the new tree's oid, or null when it ends up empty. */
async function applyChanges(repo: Repo, treeOid: string | null, node: ChangeNode, isRoot: boolean): Promise<string | null> {
  const entries = new Map<string, TreeEntry>();
  if (treeOid) for (const entry of await readTree(repo, treeOid)) entries.set(entry.path, entry);
  for (const [name, content] of node.files) {
    if (content === null) {
      entries.delete(name);
      continue;
    }
    const existing = entries.get(name);
    const mode = existing && BLOB_MODES.has(existing.mode) ? existing.mode : "100644";
    entries.set(name, { mode, path: name, type: "blob", oid: await writeBlob(repo, toBytes(content)) });
  }
  for (const [name, child] of node.dirs) {
    const existing = entries.get(name);
    const oid = await applyChanges(repo, existing?.type === "tree" ? existing.oid : null, child, false);
    if (oid) entries.set(name, { mode: "040000", path: name, type: "tree", oid });
    else entries.delete(name);
  }
  if (entries.size === 0 && !isRoot) return null;
  return writeTree(repo, [...entries.values()]);
}

/**
 * Writes the tree of `parent` with `files` applied (nested paths build nested trees; null deletes)
 * and a commit of it. Objects go to `repo`'s own store; no ref moves (see updateRef / commitToBranch).
 */
export async function writeCommitFromFiles(repo: Repo, input: CommitInput): Promise<{ oid: string; tree: string }> {
  const baseTree = input.parent ? (await readCommit(repo, input.parent)).tree : null;
  const tree = (await applyChanges(repo, baseTree, changeTree(input.files), true))!;
  const now = Math.floor(Date.now() / 1000);
  const person = (signature: Signature) => ({ name: signature.name, email: signature.email, timestamp: signature.timestamp ?? now, timezoneOffset: 0 });
  const oid = await writeCommitObject(repo, {
    tree,
    parent: input.parent ? [input.parent] : [],
    author: person(input.author),
    committer: person(input.committer ?? input.author),
    message: input.message.endsWith("\n") ? input.message : `${input.message}\n`,
  });
  return { oid, tree };
}

/** A branch move a commit made; `parent` is the tip it replaced. */
export interface BranchMove {
  oid: string;
  parent: string | null;
}

/** Runs in the transaction that moves the branch, before the move (an event recorded with it). */
export type RecordMove = (tx: Tx, move: BranchMove) => Promise<unknown>;

// The rebuild after a lost race writes the commit's objects inside the transaction.
const MOVE_TRANSACTION = { maxWait: 30_000, timeout: 120_000 };

/** `work` inside one transaction when there is a move to record (`record` records it there), else as is. */
async function inMoveTransaction<T>(recordMove: RecordMove | undefined, work: (tx: Tx | undefined, record: (move: BranchMove) => Promise<unknown>) => Promise<T>): Promise<T> {
  if (!recordMove) return work(undefined, async () => {});
  return (await db()).$transaction((tx) => work(tx, (move) => recordMove(tx, move)), MOVE_TRANSACTION);
}

/**
 * Commits a file map on top of a branch and moves the branch by compare-and-swap. With `expectedTip`
 * the commit must land on exactly that tip (a moved branch is a RefConflictError). Without it,
 * writers of one repository in this process take turns (so no work is wasted on lost races), and a
 * race lost to another instance is rebuilt on the new tip under the project's lock: every writer
 * lands and none starves. `recordMove` runs in the transaction that moves the branch, so what it
 * records commits exactly when the branch moved.
 */
export async function commitToBranch(
  repo: Repo,
  branch: string,
  input: Omit<CommitInput, "parent"> & { expectedTip?: string | null; recordMove?: RecordMove },
): Promise<BranchMove> {
  const { expectedTip, recordMove, ...commit } = input;
  const ref = branchRef(branch);
  const build = async (): Promise<BranchMove> => {
    const parent = expectedTip !== undefined ? expectedTip : readRef(repo, ref);
    const { oid } = await writeCommitFromFiles(repo, { ...commit, parent });
    return { oid, parent };
  };
  const buildThenSwap = async () => {
    const move = await build();
    await inMoveTransaction(recordMove, async (tx, record) => {
      await record(move);
      await updateRef(repo, ref, move.oid, move.parent, { tx });
    });
    return move;
  };
  if (expectedTip !== undefined) return buildThenSwap();
  return withProcessLock(`build:${repo.gitdir}`, async () => {
    try {
      return await buildThenSwap();
    } catch (error) {
      if (!(error instanceof RefConflictError)) throw error;
    }
    return inMoveTransaction(recordMove, (tx, record) =>
      withRepoLock(
        repo.lockKey,
        async () => {
          const move = await build();
          await record(move);
          await updateRefWhileLocked(repo, ref, move.oid, move.parent);
          return move;
        },
        { tx },
      ),
    );
  });
}
