import { randomUUID } from "node:crypto";
import type { Change, Project } from "@/server/generated/prisma/client";
import { insertRowsSql, type DbOrTx, type Tx } from "@/server/db";
import { recordEventsWith, type Alongside, type EventInput } from "@/server/events";
import { branchRef, moveBranch, RefConflictError, type MoveCause, type Repo } from "@/server/git";
import { conflict, DomainError } from "@/server/errors";
import { loadPolicy } from "@/server/policy";

/**
 * Moves the default branch from `head` to `commit` through the one door (`moveBranch`): the landing's
 * records (`record`), the compare-and-swap under the project's ref lock and the move's subscribers
 * (deployments, linked issues, the queue) in one transaction. Throws RefConflictError when the
 * branch moved meanwhile (nothing is recorded then). `commit === head` records without moving.
 */
export async function landOnDefaultBranch(
  project: Project,
  repo: Repo,
  move: { head: string; commit: string; changeIds: string[]; actor: string; cause: MoveCause },
  record: (tx: Tx) => Promise<void>,
  options: { timeout?: number } = {},
): Promise<void> {
  await moveBranch(
    repo,
    {
      project,
      workspace: null,
      ref: branchRef(project.defaultBranch),
      from: move.head,
      to: move.commit,
      actor: move.actor,
      cause: move.cause,
      changeIds: move.changeIds,
    },
    record,
    options,
  );
}

/** Upper bound of the random pause before retry n, per n. */
const RETRY_JITTER_MS = 40;

/**
 * Runs `attempt` again (up to `attempts` times in all) while it fails because the default branch
 * moved. A caller that loses every race gets STALE_BASE, the spec's code for a moved base (a bare
 * ref conflict is not a merge outcome the spec knows).
 */
export async function retryWhenBranchMoves<T>(attempts: number, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof RefConflictError)) throw error;
      if (n >= attempts) {
        throw conflict(`The default branch kept moving during ${attempts} attempts; try again`, "STALE_BASE", {
          currentHead: error.actual,
        });
      }
      // Racers that all lost to one landing would otherwise recompute and collide again in step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_JITTER_MS * n));
    }
  }
}

/**
 * A change of the landing was merged or rejected by another writer after its gates were read (a
 * direct merge racing the queue): the landing rolls back. A 400, as the gate that reads it first says.
 */
export class ChangeFinalMeanwhile extends DomainError {
  constructor() {
    super("invalid", "The change is already merged or rejected");
  }
}

interface MergedInput {
  project: Project;
  merged: Array<{ change: Change; commit: string }>;
  mergedById: string;
  strategy: string;
  actor: string;
  agentModels: Map<string, string | null>;
}

/**
 * The database side of merges, in the transaction that also moves the branch: each change becomes
 * merged (only from a non-final state, so a change never merges twice), provenance says who
 * produced each landed commit, change.merged per change (linked issues close in the move's hook).
 * One statement for any number of changes.
 */
export async function recordMerged(tx: Tx, input: MergedInput): Promise<void> {
  const { alongside, events } = mergedRows(input);
  if (events.length === 0) return;
  assertAllMerged(input, await recordEventsWith(tx, alongside, events));
}

/** `recordMerged` but the `change.merged` events, answered for the caller to record with others of its transaction. */
export async function markMerged(tx: Tx, input: MergedInput): Promise<EventInput[]> {
  const { alongside, events } = mergedRows(input);
  if (events.length === 0) return [];
  const [row] = await tx.$queryRawUnsafe<Array<{ answer: unknown }>>(
    `WITH ${alongside.ctes} SELECT ${alongside.answer} AS answer`,
    ...alongside.params,
  );
  assertAllMerged(input, row?.answer);
  return events;
}

function assertAllMerged(input: MergedInput, mergedCount: unknown): void {
  if (Number(mergedCount) !== input.merged.length) throw new ChangeFinalMeanwhile();
}

const INSERT_PROVENANCE = insertRowsSql(
  "Provenance",
  {
    id: "uuid",
    projectId: "uuid",
    changeId: "uuid",
    commitSha: "text",
    authorId: "uuid",
    agentId: "uuid",
    keyId: "uuid",
    model: "text",
    createdAt: "timestamp(3)",
  },
  "",
  "$4",
);

/** The merges as data-modifying CTEs over $1-$4 (the changes' update, their provenance), answering how many changes became merged, and their events. */
function mergedRows(input: MergedInput): { alongside: Alongside; events: EventInput[] } {
  const { project, merged } = input;
  const createdAt = new Date();
  const provenance = merged.map(({ change, commit }) => ({
    id: randomUUID(),
    projectId: project.id,
    changeId: change.id,
    commitSha: commit,
    authorId: change.authorId,
    agentId: change.agentId,
    keyId: change.keyId,
    model: change.agentId ? (input.agentModels.get(change.agentId) ?? null) : null,
    createdAt,
  }));
  const ctes = `merged AS (
    UPDATE "Change" AS c
       SET status = 'merged', "mergedSha" = v.sha, "mergedAt" = now(), "mergedById" = $1::uuid, "updatedAt" = now()
      FROM unnest($2::uuid[], $3::text[]) AS v(id, sha)
     -- Not even force merges a change whose evaluation still runs ('open').
     WHERE c.id = v.id AND c.status NOT IN ('merged', 'rejected', 'open')
     RETURNING c.id),
  provenance AS (${INSERT_PROVENANCE})`;
  const params = [
    input.mergedById,
    merged.map((m) => m.change.id),
    merged.map((m) => m.commit),
    JSON.stringify(provenance),
  ];
  const events = merged.map(({ change, commit }) => ({
    projectId: project.id,
    kind: "change.merged" as const,
    actor: input.actor,
    data: { changeId: change.id, commit, strategy: input.strategy, baseSha: change.baseSha, tipSha: change.tipSha },
  }));
  return { alongside: { ctes, params, answer: "(SELECT count(*) FROM merged)" }, events };
}

/** The models of the agents that produced a set of changes (for provenance), in one query. */
export async function agentModels(
  tx: DbOrTx,
  changes: Array<Pick<Change, "agentId">>,
): Promise<Map<string, string | null>> {
  const ids = [...new Set(changes.flatMap((c) => (c.agentId ? [c.agentId] : [])))];
  if (ids.length === 0) return new Map();
  const agents = await tx.agent.findMany({ where: { id: { in: ids } }, select: { id: true, model: true } });
  return new Map(agents.map((a) => [a.id, a.model]));
}

/** The post-merge policy check: the policy the merged commit leaves on the default branch must parse. */
export async function postMergeCheck(
  repo: Repo,
  commit: string,
): Promise<{ status: "passed" | "failed"; message?: string }> {
  const policy = await loadPolicy(repo, commit);
  return policy.ok ? { status: "passed" } : { status: "failed", message: policy.error };
}
