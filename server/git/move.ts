import { db, type Tx } from "@/server/db";
import { createUnknownRef, deleteRef, readRef, updateRef } from "./refs";
import type { Repo } from "./repo";
import { log } from "@/server/log";

/** What moved a ref: subscribers may treat causes differently (the queue ignores its own landings). */
export type MoveCause =
  "merge" | "batch" | "queue" | "revert" | "resolve" | "push" | "sync" | "commit" | "init" | "branch" | "tag";

/** One ref move of a project's repository or of one of its workspaces. */
export interface BranchMove {
  project: { id: string; defaultBranch: string };
  /** The workspace whose repository moved; null for the project repository. */
  workspace: string | null;
  /** The full ref name (`refs/heads/main`, `refs/tags/v1`). */
  ref: string;
  /** The tip it replaced (null: created) and its new tip (null: deleted). */
  from: string | null;
  to: string | null;
  /** Who moved it (`actorOf()`). */
  actor: string;
  cause: MoveCause;
  /** Changes this move landed, in landing order (merged by it). */
  changeIds: string[];
}

/** Who moves a ref and why: a move before its ref and tips are known (a commit's, see commitToBranch). */
export type MoveContext = Omit<BranchMove, "ref" | "from" | "to">;

/**
 * A subscriber of ref moves. `inTransaction` runs in the transaction that moves the ref, after the
 * mover's own records and the compare-and-swap, so what it writes exists exactly when the move
 * does (a throw undoes the move). `afterCommit` runs once the move is committed (hand work to
 * queues, wake waiters); its failures are logged, never the mover's.
 */
export interface BranchMoveHook {
  name: string;
  inTransaction?: (tx: Tx, move: BranchMove) => Promise<unknown>;
  afterCommit?: (move: BranchMove) => Promise<unknown>;
}

// On globalThis: Next.js loads separate module copies per entry point; keyed by name, so
// registering again (another copy, a second start-up) replaces rather than doubles.
const holder = globalThis as unknown as { __svcBranchMoveHooks?: Map<string, BranchMoveHook> };
const hooks = () => (holder.__svcBranchMoveHooks ??= new Map<string, BranchMoveHook>());

/** Subscribes to every ref move (Gitea's notifier: the mover imports none of its subscribers). */
export function onBranchMove(hook: BranchMoveHook): void {
  hooks().set(hook.name, hook);
}

/** The names of the registered subscribers, in registration order. */
export const branchMoveHookNames = (): string[] => [...hooks().keys()];

/** Runs the subscribers' in-transaction part for a move made in `tx` (only the movers of this area call it). */
export async function runMoveHooks(tx: Tx, move: BranchMove): Promise<void> {
  for (const hook of hooks().values()) if (hook.inTransaction) await hook.inTransaction(tx, move);
}

/** Runs the subscribers' after-commit part for committed moves. */
export async function runAfterMoveHooks(moves: BranchMove[]): Promise<void> {
  for (const hook of hooks().values()) {
    if (!hook.afterCommit) continue;
    for (const move of moves) {
      await hook
        .afterCommit(move)
        .catch((error: unknown) =>
          log().error({ hook: hook.name, err: error }, "git: a branch-move hook failed after commit"),
        );
    }
  }
}

/** Transaction options of a move; a batch landing records many rows. */
export interface MoveOptions {
  timeout?: number;
}

/**
 * The one door that moves a branch (or any ref a push names): in one transaction, `record` (the
 * mover's own rows and its domain event), the compare-and-swap of `move.ref` from `move.from` to
 * `move.to` under the repository's lock (RefConflictError when it moved meanwhile: nothing is
 * recorded then; a new name that collides with an existing one, `a` beside `a/b`, is 409
 * BRANCH_NAME_CONFLICT), and every subscriber's in-transaction hook; then their after-commit
 * hooks. `from === to` records without moving and runs no hook.
 */
export async function moveBranch(
  repo: Repo,
  move: BranchMove,
  record?: (tx: Tx) => Promise<unknown>,
  options: MoveOptions = {},
): Promise<void> {
  const moving = move.from !== move.to;
  await (
    await db()
  ).$transaction(async (tx) => {
    // The ref moves once the transaction holds the database: the embedded one's single connection is
    // taken by a transaction's first statement, and a backup's snapshot counts on no ref moving
    // while it holds it (withRepoLocksHeld). A mover's record is that statement; without one, a probe.
    if (record) await record(tx);
    else if (moving) await tx.$queryRaw`SELECT 1`;
    if (!moving) return;
    if (move.to !== null) await updateRef(repo, move.ref, move.to, move.from, { tx });
    else if (move.from !== null) await deleteRef(repo, move.ref, move.from, { tx });
    await runMoveHooks(tx, move);
  }, options);
  if (moving) await runAfterMoveHooks([move]);
}

/** `moveBranch` for a tag (`refs/tags/...`): the same compare-and-swap, event and subscribers. */
export function moveTag(repo: Repo, move: BranchMove, record?: (tx: Tx) => Promise<unknown>): Promise<void> {
  if (!move.ref.startsWith("refs/tags/")) throw new Error(`Not a tag: ${move.ref}`);
  return moveBranch(repo, move, record);
}

/** The internal refs the server keeps objects reachable with; no branch, no event, no subscriber. */
const INTERNAL_REF = /^refs\/svc\/[^\s]+$/;

/**
 * Points an internal ref (`refs/svc/changes/<id>`: an evaluated tip kept safe from gc) at `oid`,
 * by the same compare-and-swap under the repository's lock; nothing when it already does. A lost race
 * is a RefConflictError.
 */
export async function pinRef(repo: Repo, ref: string, oid: string): Promise<void> {
  if (!INTERNAL_REF.test(ref)) throw new Error(`Not an internal ref: ${ref}`);
  const current = readRef(repo, ref);
  if (current !== oid) await updateRef(repo, ref, oid, current);
}

/**
 * `pinRef` for an internal ref whose name no other writer can know yet (a new change's pin, named by
 * the id made for it): created without waiting for the project's lock, which a fleet's commits and
 * landings keep busy; by `pinRef` when something is in its way.
 */
export async function pinUnknownRef(repo: Repo, ref: string, oid: string): Promise<void> {
  if (!INTERNAL_REF.test(ref)) throw new Error(`Not an internal ref: ${ref}`);
  if (!createUnknownRef(repo, ref, oid)) await pinRef(repo, ref, oid);
}
