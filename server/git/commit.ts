import { db, type Tx } from "@/server/db";
import { DomainError } from "@/server/errors";
import { readCommit, readTree, writeBlob, writeCommitObject, writeTree, type TreeEntry } from "./objects";
import type { Repo } from "./repo";
import { withProcessLock, withRepoLock } from "./lock";
import { segmentProblem } from "./path-rules";
import { runAfterMoveHooks, runMoveHooks, type BranchMove, type MoveContext } from "./move";
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
  constructor(
    readonly path: string,
    reason: string,
  ) {
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

const toBytes = (content: string | Uint8Array) =>
  typeof content === "string" ? Buffer.from(content, "utf8") : content;
const BLOB_MODES = new Set(["100644", "100755"]);

/** Applies one level of changes to a tree; returns the new tree's oid, or null when it ends up empty. */
async function applyChanges(
  repo: Repo,
  treeOid: string | null,
  node: ChangeNode,
  isRoot: boolean,
): Promise<string | null> {
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
  const person = (signature: Signature) => ({
    name: signature.name,
    email: signature.email,
    timestamp: signature.timestamp ?? now,
    timezoneOffset: 0,
  });
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
export interface CommitMove {
  oid: string;
  parent: string | null;
}

/** Runs in the transaction that moves the branch, before the move (an event recorded with it). */
export type RecordMove = (tx: Tx, move: CommitMove) => Promise<unknown>;

// The rebuild after a lost race writes the commit's objects inside the transaction.
const MOVE_TRANSACTION = { maxWait: 30_000, timeout: 120_000 };

export type CommitToBranchInput = Omit<CommitInput, "parent"> & {
  expectedTip?: string | null;
  recordMove?: RecordMove;
};

/**
 * Commits a file map on top of a branch and moves the branch by compare-and-swap. With `expectedTip`
 * the commit must land on exactly that tip (a moved branch is a RefConflictError). Without it,
 * writers of one repository in this process take turns (so no work is wasted on lost races), and a
 * race lost to another instance is rebuilt on the new tip under the repository's lock: every writer
 * lands and none starves. With `move` (who and why), the move is one of the door's: `recordMove`,
 * the swap and every subscriber's hook in one transaction, their after-commit hooks once it
 * committed. Without it (tests and benchmarks that build a history: `commitUnhooked`) no
 * transaction is opened unless `recordMove` asks for one.
 */
async function commitOnBranch(
  repo: Repo,
  branch: string,
  input: CommitToBranchInput & { move?: MoveContext },
): Promise<CommitMove> {
  const { expectedTip, recordMove, move: context, ...commit } = input;
  const ref = branchRef(branch);
  const moveOf = (made: CommitMove): BranchMove => ({ ...context!, ref, from: made.parent, to: made.oid });
  const inTransaction = <T>(work: (tx: Tx | undefined) => Promise<T>): Promise<T> =>
    recordMove || context
      ? db().then((prisma) => prisma.$transaction((tx) => work(tx), MOVE_TRANSACTION))
      : work(undefined);
  /** The record before the swap and the subscribers' hooks after it, in the move's transaction. */
  const around = async (tx: Tx | undefined, made: CommitMove, swap: () => Promise<void>) => {
    // The first statement takes the embedded database's connection before the ref moves (see moveBranch).
    if (tx && recordMove) await recordMove(tx, made);
    else if (tx) await tx.$queryRaw`SELECT 1`;
    await swap();
    if (tx && context) await runMoveHooks(tx, moveOf(made));
  };
  const build = async (): Promise<CommitMove> => {
    const parent = expectedTip !== undefined ? expectedTip : readRef(repo, ref);
    const { oid } = await writeCommitFromFiles(repo, { ...commit, parent });
    return { oid, parent };
  };
  const buildThenSwap = async () => {
    const made = await build();
    await inTransaction((tx) => around(tx, made, () => updateRef(repo, ref, made.oid, made.parent, { tx })));
    return made;
  };
  const landed = async (made: CommitMove) => {
    if (context) await runAfterMoveHooks([moveOf(made)]);
    return made;
  };
  if (expectedTip !== undefined) return landed(await buildThenSwap());
  const made = await withProcessLock(`build:${repo.gitdir}`, async () => {
    try {
      return await buildThenSwap();
    } catch (error) {
      if (!(error instanceof RefConflictError)) throw error;
    }
    return inTransaction((tx) =>
      withRepoLock(
        repo,
        async () => {
          const rebuilt = await build();
          await around(tx, rebuilt, () => updateRefWhileLocked(repo, ref, rebuilt.oid, rebuilt.parent));
          return rebuilt;
        },
        { tx },
      ),
    );
  });
  // Outside the turn: the next writer of this repository need not wait for the subscribers.
  return landed(made);
}

/** The door's commit: `commitOnBranch` with who moves the branch and why, so every subscriber hears of it. */
export const commitToBranch = (
  repo: Repo,
  branch: string,
  input: CommitToBranchInput & { move: MoveContext },
): Promise<CommitMove> => commitOnBranch(repo, branch, input);

/** A commit that moves a branch without telling anyone: only for tests and benchmarks building a history. */
export const commitUnhooked = (repo: Repo, branch: string, input: CommitToBranchInput): Promise<CommitMove> =>
  commitOnBranch(repo, branch, input);
